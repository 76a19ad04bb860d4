import ArgumentParser
import AutoCoding
import BenchmarkFixtures
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// W2: a dictionary of string → integer, integers of 1 to 8 bytes, some negative.
final class NumbersWorkload: BenchWorkload {
    let context: BenchContext
    let n: Int
    var key: String { "W2" }
    var title: String { "W2 dictionary of \(n) string → integer" }

    init(context: BenchContext, n: Int) {
        self.context = context
        self.n = n
    }

    lazy var entries = Fixtures.numberEntries(n)
    lazy var dictionary = Dictionary(uniqueKeysWithValues: entries.map { ($0.key, $0.value) })
    lazy var nsDictionary = NSDictionary(
        objects: entries.map { NSNumber(value: $0.value) }, forKeys: entries.map { $0.key as NSString })

    var corelibsArchive: [UInt8] {
        get throws {
            try context.bytes("W2-\(n)-corelibs.bplist") {
                try NSKeyedArchiver.archivedData(withRootObject: nsDictionary, requiringSecureCoding: false).byteArray
            }
        }
    }
    var plist: [UInt8] {
        get throws { try context.bytes("W2-\(n)-codable.plist") { try PeopleWorkload.plistEncoder.encode(dictionary).byteArray } }
    }
    lazy var objects: Int = (try? KeyedArchiveView(bytes: corelibsArchive).objectCount) ?? 0
    var summary: WorkloadSummary {
        WorkloadSummary(key: key, title: title, objects: objects, archiveBytes: (try? corelibsArchive.count) ?? 0)
    }

    func checkDictionary(_ result: Any) -> String? {
        let lookup: (String) -> Int64?
        let count: Int
        switch result {
        case let d as [String: Int64]: (lookup, count) = ({ d[$0] }, d.count)
        case let d as NSDictionary: (lookup, count) = ({ (d.object(forKey: $0 as NSString) as? NSNumber)?.int64Value }, d.count)
        default: return "FAIL: unexpected result \(type(of: result))"
        }
        guard count == n else { return "FAIL: \(count) entries, expected \(n)" }
        for i in Set([0, 1, 7, n / 2, n - 1]) where i < n {
            guard lookup(entries[i].key) == entries[i].value else { return "FAIL: entry \(entries[i].key) differs" }
        }
        return nil
    }

    func checkEncoded(_ result: Any) -> String? {
        guard let bytes = (result as? [UInt8]) ?? (result as? Data).map({ [UInt8]($0) }) else { return "FAIL: no bytes" }
        do { return checkDictionary(try KeyedArchiveDecoder().decode([String: Int64].self, from: bytes)) } catch {
            return "FAIL: the output does not decode: \(error)"
        }
    }

    func paths() -> [BenchPath] {
        let context = self.context
        var paths: [BenchPath] = [
            BenchPath(id: "corelibs.archiver", label: "corelibs NSKeyedArchiver", operation: .encode, role: .foundationBaseline) {
                [unowned self] in
                let dictionary = nsDictionary
                return PreparedPath(
                    inputBytes: nil,
                    run: { try NSKeyedArchiver.archivedData(withRootObject: dictionary, requiringSecureCoding: false) },
                    check: { [unowned self] result in
                        if let data = result as? Data { context.store("W2-\(n)-corelibs.bplist", data.byteArray) }
                        return checkEncoded(result)
                    })
            },
            BenchPath(id: "corelibs.plist-encoder", label: "corelibs PropertyListEncoder", operation: .encode) { [unowned self] in
                let dictionary = self.dictionary
                return PreparedPath(
                    inputBytes: nil, run: { try PeopleWorkload.plistEncoder.encode(dictionary) },
                    check: { [unowned self] result in
                        guard let data = result as? Data,
                            let back = try? PropertyListDecoder().decode([String: Int64].self, from: data)
                        else { return "FAIL: the output does not decode" }
                        return checkDictionary(back)
                    })
            },
        ]
        paths.append(BenchPaths.libplistWrite(
            context: context, label: "libplist plist_to_bin",
            input: { [unowned self] in
                let cap = context.settings.libplistWriteCap
                if objects <= cap { return (try corelibsArchive, nil, nil) }
                let smaller = [50_000, 20_000, 10_000, 5_000, 2_000, 1_000].first { $0 * 2 + 10 <= cap } ?? 1_000
                let small = NumbersWorkload(context: context, n: smaller)
                return (try small.corelibsArchive, small.objects, "N = \(smaller): quadratic, capped at \(cap) objects")
            }))
        paths += [
            BenchPath(id: "ours.writer", label: "ours writer: KeyedArchive.binaryPlist()", operation: .encode) { [unowned self] in
                let table = try KeyedArchiveEncoder().encodeArchive(dictionary)
                return PreparedPath(inputBytes: nil, run: { table.binaryPlist() }, check: { [unowned self] in checkEncoded($0) })
            },
            BenchPath(id: "ours.codable-encode", label: "ours Codable bridge encode", operation: .encode) { [unowned self] in
                let dictionary = self.dictionary
                return PreparedPath(
                    inputBytes: nil, run: { try KeyedArchiveEncoder().encodeBytes(dictionary) },
                    check: { [unowned self] in checkEncoded($0) })
            },
        ]
        paths += BenchPaths.corelibsDecodePaths(
            rootName: "NSDictionary", root: NSDictionary.self,
            secureClasses: [NSDictionary.self, NSString.self, NSNumber.self], records: [String: Int64].self,
            plistLabel: "corelibs PropertyListDecoder",
            archive: { [unowned self] in try corelibsArchive }, plist: { [unowned self] in try plist },
            check: { [unowned self] in checkDictionary($0) }, checkRecords: { [unowned self] in checkDictionary($0) })
        paths += BenchPaths.readPaths(
            context: context, input: { [unowned self] in try corelibsArchive }, expectedObjects: { [unowned self] in objects },
            checkGraph: { [unowned self] graph in
                guard let root = graph.root?.object, root.className == "NSDictionary",
                    let keys = root["NS.keys"]?.elements, let values = root["NS.objects"]?.elements
                else { return "FAIL: the root is not a dictionary object" }
                guard keys.count == n, values.count == n else { return "FAIL: \(keys.count) keys, expected \(n)" }
                let found = Dictionary(zip(keys.compactMap(\.string), values.compactMap(\.scalar?.int64Value))) { a, _ in a }
                return checkDictionary(found)
            })
        paths.append(
            BenchPath(id: "ours.codable-decode", label: "ours Codable bridge decode → [String: Int64]", operation: .decode) {
                [unowned self] in
                let bytes = try corelibsArchive
                return PreparedPath(
                    inputBytes: bytes.count, run: { try KeyedArchiveDecoder().decode([String: Int64].self, from: bytes) },
                    check: { [unowned self] in checkDictionary($0) })
            })
        return paths
    }
}
