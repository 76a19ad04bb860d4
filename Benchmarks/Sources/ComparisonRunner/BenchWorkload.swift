import ArgumentParser
import AutoCoding
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where inputs live: built once, kept in memory, and written to a folder so that the child processes that
/// measure peak RSS read the very same bytes.
final class BenchContext {
    let settings: BenchSettings
    let directory: String
    let isChild: Bool
    private var cache: [String: [UInt8]] = [:]

    init(settings: BenchSettings, directory: String, isChild: Bool) {
        self.settings = settings
        self.directory = directory
        self.isChild = isChild
    }

    /// The bytes named `name`: from memory, else from the folder, else made (and saved).
    func bytes(_ name: String, make: () throws -> [UInt8]) rethrows -> [UInt8] {
        if let cached = cache[name] { return cached }
        let path = (directory as NSString).appendingPathComponent(name)
        if let data = FileManager.default.contents(atPath: path) {
            cache[name] = [UInt8](data)
            return cache[name]!
        }
        let made = try make()
        store(name, made)
        return made
    }

    /// Keeps bytes an encode path produced, so that decode paths read them without encoding again.
    func store(_ name: String, _ bytes: [UInt8]) {
        guard cache[name] == nil else { return }
        cache[name] = bytes
        let path = (directory as NSString).appendingPathComponent(name)
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
    }

    func has(_ name: String) -> Bool { cache[name] != nil }

    func text(_ name: String) -> String? {
        try? String(contentsOfFile: (directory as NSString).appendingPathComponent(name), encoding: .utf8)
    }

    func writeText(_ name: String, _ text: String) {
        try? text.write(toFile: (directory as NSString).appendingPathComponent(name), atomically: true, encoding: .utf8)
    }
}

/// One way of doing a workload's work: a decode or an encode through one library.
struct BenchPath {
    /// What a path does: read an archive, write one, or write a graph as JSON text.
    enum Operation: String, Codable, CaseIterable { case decode, encode, json }
    /// The baselines the ratios of an operation's rows are computed against (at most one of each per operation).
    enum Role: String, Codable { case plain, foundationBaseline, floorBaseline }

    var id: String
    var label: String
    var operation: Operation
    var role: Role = .plain
    /// Builds the inputs (not timed) and returns the timed body with its check.
    var prepare: () throws -> PreparedPath
}

/// A path ready to run.
struct PreparedPath {
    /// The bytes read (decode) or, when nil, the bytes of the result (encode).
    var inputBytes: Int?
    /// Overrides the workload's object count (a capped run on a smaller input).
    var objects: Int? = nil
    /// A note shown in the table (a cap, a subset).
    var note: String? = nil
    /// Which input the path ran on when not the workload's whole input ("capped", "corelibs-subset"); ratios are
    /// computed only between rows of the same input.
    var input: String? = nil
    /// The timed body.
    var run: () throws -> Any
    /// Checks the last run's result against the source data: nil when it matches, else what differs.
    var check: (Any) -> String?
    /// Releases what the result holds that ARC cannot (reference cycles); not timed.
    var dispose: (Any) -> Void = { _ in }
    /// When set, the path is not run and this says why.
    var skip: String? = nil

    static func skipped(_ reason: String) -> PreparedPath {
        PreparedPath(inputBytes: nil, run: { 0 }, check: { _ in nil }, skip: reason)
    }
}

/// A workload: its inputs and its paths, encode paths first (they produce the bytes decode paths read).
protocol BenchWorkload: AnyObject {
    var key: String { get }
    var title: String { get }
    /// Logical objects per run: the `$objects` of the reference archive.
    var objects: Int { get }
    var summary: WorkloadSummary { get }
    func paths() -> [BenchPath]
}

struct WorkloadSummary: Codable {
    var key: String
    var title: String
    var objects: Int
    var archiveBytes: Int
}

enum BenchWorkloads {
    static func make(_ key: String, context: BenchContext) throws -> any BenchWorkload {
        let n = context.settings.n
        switch key {
        case "W1": return PeopleWorkload(context: context, n: n, cycles: false)
        case "W1c": return PeopleWorkload(context: context, n: n, cycles: true)
        case "W2": return NumbersWorkload(context: context, n: n)
        case "W3": return DataWorkload(context: context, n: max(1, n / 100))
        case "W4": return CorpusWorkload(context: context)
        case "W5": return TypedstreamWorkload(context: context)
        default: throw ValidationError("unknown workload \(key)")
        }
    }
}

/// Helpers shared by the workloads' paths.
enum BenchPaths {
    /// The size of an encode path's result.
    static func byteCount(_ result: Any) -> Int? {
        switch result {
        case let bytes as [UInt8]: bytes.count
        case let data as Data: data.count
        case let text as String: text.utf8.count
        case let count as Int: count
        default: nil
        }
    }

    static func failure(_ error: Error) -> String { "FAIL: \(error)" }

    /// The engine paths, the libplist floor and the dynamic graph, which read any archive the same way.
    /// `check` verifies the graph's content.
    static func readPaths(
        context: BenchContext, input: @escaping () throws -> [UInt8], expectedObjects: @escaping () -> Int,
        checkGraph: @escaping (ArchiveGraph) -> String?
    ) -> [BenchPath] {
        var paths: [BenchPath] = []
        let countCheck: (Int, String) -> String? = { found, what in
            let expected = expectedObjects()
            return found == expected ? nil : "FAIL: \(what) has \(found) $objects, expected \(expected)"
        }
        paths.append(
            BenchPath(
                id: "libplist.read", label: "libplist C plist_from_bin + walk + plist_free", operation: .decode,
                role: .floorBaseline
            ) {
                let bytes = try input()
                return PreparedPath(
                    inputBytes: bytes.count,
                    run: {
                        guard let walk = LibplistC.parseWalkFree(bytes) else { throw BenchError("libplist rejected the input") }
                        return walk
                    },
                    check: { result in
                        guard let walk = result as? LibplistC.Walk else { return "FAIL: no result" }
                        return countCheck(walk.objects, "libplist's tree")
                    })
            })
        paths.append(
            BenchPath(id: "ours.engine", label: "ours engine read: KeyedArchiveView (native)", operation: .decode) {
                let bytes = try input()
                return PreparedPath(
                    inputBytes: bytes.count, run: { try KeyedArchiveView(bytes: bytes) },
                    check: { result in
                        guard let view = result as? KeyedArchiveView else { return "FAIL: no view" }
                        guard view.rootUID != nil else { return "FAIL: no root" }
                        return countCheck(view.objectCount, "the view")
                    })
            })
        paths.append(
            BenchPath(id: "ours.value", label: "ours ArchiveValue(propertyList:) native tree", operation: .decode) {
                let bytes = try input()
                return PreparedPath(
                    inputBytes: bytes.count, run: { try ArchiveValue(propertyList: bytes) },
                    check: { result in
                        guard let objects = (result as? ArchiveValue)?["$objects"]?.arrayValue else { return "FAIL: no $objects" }
                        return countCheck(objects.count, "the value")
                    })
            })
        paths.append(
            BenchPath(id: "ours.value-libplist", label: "ours ArchiveValue(propertyList:) libplist backend", operation: .decode) {
                let bytes = try input()
                var options = ArchiveReadingOptions()
                options.backend = .libplist
                return PreparedPath(
                    inputBytes: bytes.count, run: { try ArchiveValue(propertyList: bytes, options: options) },
                    check: { result in
                        guard let objects = (result as? ArchiveValue)?["$objects"]?.arrayValue else { return "FAIL: no $objects" }
                        return countCheck(objects.count, "the value")
                    })
            })
        paths.append(
            BenchPath(id: "ours.graph", label: "ours ArchiveGraph(bytes:) dynamic graph", operation: .decode) {
                let bytes = try input()
                return PreparedPath(
                    inputBytes: bytes.count, run: { try ArchiveGraph(bytes: bytes) },
                    check: { result in
                        guard let graph = result as? ArchiveGraph else { return "FAIL: no graph" }
                        return checkGraph(graph)
                    },
                    dispose: { ($0 as? ArchiveGraph)?.breakReferenceCycles() })
            })
        return paths
    }

    /// corelibs' three decode paths over one workload: `NSKeyedUnarchiver` (the baseline), the same with secure
    /// coding allowing `secureClasses`, and `PropertyListDecoder` on the equivalent Codable plist.
    static func corelibsDecodePaths<Root, Record: Decodable>(
        rootName: String, root: Root.Type, secureClasses: [AnyClass], records: Record.Type, plistLabel: String,
        archive: @escaping () throws -> [UInt8], plist: @escaping () throws -> [UInt8],
        check: @escaping (Any) -> String?, checkRecords: @escaping (Any) -> String?
    ) -> [BenchPath] {
        [
            BenchPath(id: "corelibs.unarchiver", label: "corelibs NSKeyedUnarchiver → \(rootName)", operation: .decode,
                      role: .foundationBaseline) {
                let data = Data(try archive())
                return PreparedPath(
                    inputBytes: data.count,
                    run: {
                        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
                        unarchiver.requiresSecureCoding = false
                        unarchiver.decodingFailurePolicy = .setErrorAndReturn
                        defer { unarchiver.finishDecoding() }
                        guard let decoded = unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? Root else {
                            throw unarchiver.error ?? BenchError("corelibs decoded no \(rootName)")
                        }
                        return decoded
                    },
                    check: check)
            },
            BenchPath(id: "corelibs.unarchiver-secure", label: "corelibs NSKeyedUnarchiver secure → \(rootName)",
                      operation: .decode) {
                let data = Data(try archive())
                return PreparedPath(
                    inputBytes: data.count,
                    run: {
                        guard let decoded = try NSKeyedUnarchiver.unarchivedObject(ofClasses: secureClasses, from: data) as? Root
                        else { throw BenchError("secure decoding returned no \(rootName)") }
                        return decoded
                    },
                    check: check)
            },
            BenchPath(id: "corelibs.plist-decoder", label: plistLabel, operation: .decode) {
                let data = Data(try plist())
                return PreparedPath(
                    inputBytes: data.count, run: { try PropertyListDecoder().decode(Record.self, from: data) },
                    check: checkRecords)
            },
        ]
    }

    /// `plist_to_bin` of `bytes` parsed by libplist; its output must read back as the same value.
    static func libplistWrite(
        context: BenchContext, label: String, input: @escaping () throws -> (bytes: [UInt8], objects: Int?, note: String?)
    ) -> BenchPath {
        BenchPath(id: "libplist.write", label: label, operation: .encode, role: .floorBaseline) {
            let (bytes, objects, note) = try input()
            guard let tree = LibplistTree(bytes) else { throw BenchError("libplist rejected the input") }
            return PreparedPath(
                inputBytes: nil, objects: objects, note: note, input: note == nil ? nil : "capped",
                run: { LibplistC.writeBinary(tree) },
                check: { _ in
                    let written = LibplistC.writeBinaryBytes(tree)
                    guard let back = try? ArchiveValue(propertyList: written), let original = try? ArchiveValue(propertyList: bytes)
                    else { return "FAIL: libplist's output does not read back" }
                    return back == original ? nil : "FAIL: libplist's output reads back different"
                })
        }
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
