import ArgumentParser
import AutoCoding
import BenchmarkFixtures
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// W4: many small archives, every file of shared/corpus/apple (or generated ones when it is not found).
final class CorpusWorkload: BenchWorkload {
    struct File {
        var name: String
        var bytes: [UInt8]
        var data: Data
        var topKeys: [String]
        var objects: Int
    }

    let context: BenchContext
    let source: String
    let files: [File]
    var key: String { "W4" }
    var title: String { "W4 \(files.count) archives of \(source)" }
    var objects: Int { files.reduce(0) { $0 + $1.objects } }
    var summary: WorkloadSummary {
        WorkloadSummary(key: key, title: title, objects: objects, archiveBytes: files.reduce(0) { $0 + $1.bytes.count })
    }

    init(context: BenchContext) {
        self.context = context
        if let folder = Self.findCorpus(context.settings.corpus) {
            source = folder
            let names = (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? []).sorted()
            files = names.compactMap { name in
                guard let data = FileManager.default.contents(atPath: folder + "/" + name) else { return nil }
                return Self.file(name: (name as NSString).lastPathComponent, bytes: [UInt8](data))
            }
        } else {
            source = "generated archives (no corpus found)"
            // Said on stderr as it happens too: a run from outside the package folder finds no corpus, and its
            // figures are then of other inputs than the documented ones.
            BenchLog.progress("warning: no corpus found from here; timing generated archives (give --corpus FOLDER)")
            files = (0..<100).map { i in
                let people = FoundationPerson.make(PersonSpec.generate(n: 3 + i % 40))
                let bytes = (try? PeopleWorkload.corelibsEncode(people)) ?? []
                return Self.file(name: "generated-\(i).bplist", bytes: bytes)
            }
        }
    }

    private static func file(name: String, bytes: [UInt8]) -> File {
        let view = try? KeyedArchiveView(bytes: bytes)
        return File(name: name, bytes: bytes, data: Data(bytes), topKeys: view?.topKeys ?? ["root"], objects: view?.objectCount ?? 0)
    }

    /// `explicit` (an option's folder), else shared/corpus/`folder` in this folder or one above it, from here or
    /// from the executable.
    static func findCorpus(_ explicit: String?, folder wanted: String = "apple") -> String? {
        if let explicit { return explicit }
        var starts = [FileManager.default.currentDirectoryPath]
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            starts.append((executable as NSString).deletingLastPathComponent)
        }
        for start in starts {
            var folder = start
            for _ in 0..<8 {
                for candidate in ["shared/corpus/" + wanted, "corpus/" + wanted] {
                    let path = (folder as NSString).appendingPathComponent(candidate)
                    var isDirectory: ObjCBool = false
                    if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                        return (path as NSString).standardizingPath
                    }
                }
                let parent = (folder as NSString).deletingLastPathComponent
                if parent == folder { break }
                folder = parent
            }
        }
        return nil
    }

    /// The files corelibs handled without killing the process, found by ``BenchRunner/screen(_:)``.
    var survivors: [String: [Int]] = [:]

    func indices(surviving pathID: String) -> [Int] {
        if let list = survivors[pathID] { return list }
        if let text = context.text("W4-\(pathID).survivors") {
            return text.split(separator: " ").compactMap { Int($0) }
        }
        return Array(files.indices)
    }

    /// One file through corelibs' NSKeyedUnarchiver with a substituting delegate; true when every `$top` entry decoded.
    func corelibsUnarchive(_ i: Int) -> Bool {
        guard let unarchiver = try? NSKeyedUnarchiver(forReadingFrom: files[i].data) else { return false }
        let delegate = SubstitutingDelegate()
        unarchiver.delegate = delegate
        unarchiver.requiresSecureCoding = false
        unarchiver.decodingFailurePolicy = .setErrorAndReturn
        var decoded = 0
        for key in files[i].topKeys where unarchiver.decodeObject(forKey: key) != nil { decoded += 1 }
        unarchiver.finishDecoding()
        return unarchiver.error == nil && decoded > 0
    }

    func corelibsPropertyList(_ i: Int) -> Bool {
        (try? PropertyListSerialization.propertyList(from: files[i].data, options: [], format: nil)) != nil
    }

    /// The per-file operations that may kill the process, run one file at a time by the screening child.
    func screenedOperation(_ pathID: String) -> ((Int) -> Bool)? {
        switch pathID {
        case "corelibs.unarchiver": corelibsUnarchive
        case "corelibs.plist-serialization": corelibsPropertyList
        default: nil
        }
    }

    private func counted(_ indices: [Int], total: Int? = nil, _ body: @escaping (Int) -> Bool) -> () throws -> Any {
        { indices.reduce(0) { $0 + (body($1) ? 1 : 0) } }
    }

    private func allDecoded(_ expected: Int) -> (Any) -> String? {
        { result in
            let count = result as? Int ?? -1
            return count == expected ? "ok (\(count)/\(expected))" : "FAIL: \(count) of \(expected) files"
        }
    }

    private func bytes(_ indices: [Int]) -> Int { indices.reduce(0) { $0 + files[$1].bytes.count } }
    private func objects(_ indices: [Int]) -> Int { indices.reduce(0) { $0 + files[$1].objects } }

    func paths() -> [BenchPath] {
        let all = Array(files.indices)
        var paths: [BenchPath] = []
        paths.append(
            BenchPath(id: "ours.writer", label: "ours writer: KeyedArchive.binaryPlist() per file", operation: .encode) {
                [unowned self] in
                let tables = try files.map { try KeyedArchive(bytes: $0.bytes) }
                return PreparedPath(
                    inputBytes: nil, run: { tables.reduce(0) { $0 + $1.binaryPlist().count } },
                    check: { _ in
                        let same = tables.filter { (try? KeyedArchive(bytes: $0.binaryPlist())) == $0 }.count
                        return same == tables.count ? "ok (\(same)/\(tables.count))" : "FAIL: \(same) of \(tables.count) read back equal"
                    })
            })
        paths.append(
            BenchPath(id: "ours.graph-encode", label: "ours ArchiveGraph.binaryPlist() per file", operation: .encode) {
                [unowned self] in
                let graphs = try files.map { try ArchiveGraph(bytes: $0.bytes) }
                return PreparedPath(
                    inputBytes: nil, run: { graphs.reduce(0) { $0 + $1.binaryPlist().count } },
                    check: { _ in
                        let same = graphs.filter { graph in
                            (try? ArchiveGraph(bytes: graph.binaryPlist())).map { $0.isEquivalent(to: graph) } ?? false
                        }.count
                        return same == graphs.count ? "ok (\(same)/\(graphs.count))" : "FAIL: \(same) of \(graphs.count) equivalent"
                    })
            })
        paths.append(
            BenchPath(id: "libplist.write", label: "libplist plist_to_bin per file", operation: .encode, role: .floorBaseline) {
                [unowned self] in
                let cap = context.settings.libplistWriteCap
                let trees = files.filter { $0.objects <= cap }.compactMap { LibplistTree($0.bytes) }
                return PreparedPath(
                    inputBytes: nil, run: { trees.reduce(0) { $0 + LibplistC.writeBinary($1) } },
                    check: { _ in "ok (\(trees.count)/\(self.files.count))" })
            })
        paths.append(
            BenchPath(id: "corelibs.unarchiver", label: "corelibs NSKeyedUnarchiver + substituting delegate",
                      operation: .decode, role: .foundationBaseline) { [unowned self] in
                let subset = indices(surviving: "corelibs.unarchiver")
                return PreparedPath(
                    inputBytes: bytes(subset), objects: objects(subset),
                    note: subset.count == files.count ? nil : "\(subset.count) of \(files.count) files: the rest kill the process",
                    input: subset.count == files.count ? nil : "corelibs-subset",
                    run: counted(subset) { [unowned self] in corelibsUnarchive($0) },
                    check: { [unowned self] result in
                        "ok (\(result as? Int ?? 0) of \(files.count) decoded; \(files.count - subset.count) crash)"
                    })
            })
        paths.append(
            BenchPath(id: "corelibs.plist-serialization", label: "corelibs PropertyListSerialization (no graph)",
                      operation: .decode) { [unowned self] in
                let subset = indices(surviving: "corelibs.plist-serialization")
                return PreparedPath(
                    inputBytes: bytes(subset), objects: objects(subset),
                    run: counted(subset) { [unowned self] in corelibsPropertyList($0) },
                    check: { [unowned self] result in "ok (\(result as? Int ?? 0) of \(files.count) parsed)" })
            })
        paths.append(
            BenchPath(id: "libplist.read", label: "libplist C parse + walk + free per file", operation: .decode,
                      role: .floorBaseline) { [unowned self] in
                PreparedPath(
                    inputBytes: bytes(all),
                    run: counted(all) { [unowned self] in LibplistC.parseWalkFree(files[$0].bytes) != nil },
                    check: allDecoded(files.count))
            })
        paths.append(
            BenchPath(id: "ours.engine", label: "ours engine read: KeyedArchiveView per file", operation: .decode) {
                [unowned self] in
                PreparedPath(
                    inputBytes: bytes(all),
                    run: counted(all) { [unowned self] in (try? KeyedArchiveView(bytes: files[$0].bytes)) != nil },
                    check: allDecoded(files.count))
            })
        paths.append(
            BenchPath(id: "ours.value-libplist", label: "ours ArchiveValue libplist backend per file", operation: .decode) {
                [unowned self] in
                var options = ArchiveReadingOptions()
                options.backend = .libplist
                return PreparedPath(
                    inputBytes: bytes(all),
                    run: counted(all) { [unowned self] in (try? ArchiveValue(propertyList: files[$0].bytes, options: options)) != nil },
                    check: allDecoded(files.count))
            })
        paths.append(
            BenchPath(id: "ours.graph", label: "ours ArchiveGraph(bytes:), every archive in one process", operation: .decode) { [unowned self] in
                PreparedPath(
                    inputBytes: bytes(all),
                    run: counted(all) { [unowned self] in
                        guard let graph = try? ArchiveGraph(bytes: files[$0].bytes) else { return false }
                        graph.breakReferenceCycles()
                        return true
                    },
                    check: allDecoded(files.count))
            })
        paths.append(
            BenchPath(id: "ours.graph-subset", label: "ours ArchiveGraph(bytes:), corelibs' files", operation: .decode) {
                [unowned self] in
                let subset = indices(surviving: "corelibs.unarchiver")
                return PreparedPath(
                    inputBytes: bytes(subset), objects: objects(subset), note: "the \(subset.count) files corelibs survives",
                    input: subset.count == files.count ? nil : "corelibs-subset",
                    run: counted(subset) { [unowned self] in
                        guard let graph = try? ArchiveGraph(bytes: files[$0].bytes) else { return false }
                        graph.breakReferenceCycles()
                        return true
                    },
                    check: allDecoded(subset.count))
            })
        return paths
    }
}
