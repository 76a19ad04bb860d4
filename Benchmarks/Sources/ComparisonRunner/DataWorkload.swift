import ArgumentParser
import AutoCoding
import BenchmarkFixtures
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// W3: an array of 4 KiB data values.
final class DataWorkload: BenchWorkload {
    let context: BenchContext
    let n: Int
    var key: String { "W3" }
    var title: String { "W3 array of \(n) data values of 4 KiB" }

    init(context: BenchContext, n: Int) {
        self.context = context
        self.n = n
    }

    lazy var values = Fixtures.blobs(n)

    var corelibsArchive: [UInt8] {
        get throws {
            try context.bytes("W3-\(n)-corelibs.bplist") {
                try NSKeyedArchiver.archivedData(
                    withRootObject: NSArray(array: values.map { NSData(data: $0) }), requiringSecureCoding: false
                ).byteArray
            }
        }
    }
    var plist: [UInt8] {
        get throws { try context.bytes("W3-\(n)-codable.plist") { try PeopleWorkload.plistEncoder.encode(values).byteArray } }
    }
    lazy var objects: Int = (try? KeyedArchiveView(bytes: corelibsArchive).objectCount) ?? 0
    var summary: WorkloadSummary {
        WorkloadSummary(key: key, title: title, objects: objects, archiveBytes: (try? corelibsArchive.count) ?? 0)
    }

    func checkValues(_ result: Any) -> String? {
        let found: [Data]
        switch result {
        case let list as [Data]: found = list
        case let list as NSArray: found = list.compactMap { ($0 as? NSData).map { Data($0) } }
        default: return "FAIL: unexpected result \(type(of: result))"
        }
        guard found.count == n else { return "FAIL: \(found.count) values, expected \(n)" }
        for i in Set([0, n / 2, n - 1]) where found[i] != values[i] { return "FAIL: value \(i) differs" }
        return nil
    }

    func checkEncoded(_ result: Any) -> String? {
        guard let bytes = (result as? [UInt8]) ?? (result as? Data).map({ [UInt8]($0) }) else { return "FAIL: no bytes" }
        do { return checkValues(try KeyedArchiveDecoder().decode([Data].self, from: bytes)) } catch {
            return "FAIL: the output does not decode: \(error)"
        }
    }

    func paths() -> [BenchPath] {
        let context = self.context
        var paths: [BenchPath] = [
            BenchPath(id: "corelibs.archiver", label: "corelibs NSKeyedArchiver", operation: .encode, role: .foundationBaseline) {
                [unowned self] in
                let array = NSArray(array: values.map { NSData(data: $0) })
                return PreparedPath(
                    inputBytes: nil, run: { try NSKeyedArchiver.archivedData(withRootObject: array, requiringSecureCoding: false) },
                    check: { [unowned self] result in
                        if let data = result as? Data { context.store("W3-\(n)-corelibs.bplist", data.byteArray) }
                        return checkEncoded(result)
                    })
            },
            BenchPath(id: "corelibs.plist-encoder", label: "corelibs PropertyListEncoder", operation: .encode) { [unowned self] in
                let values = self.values
                return PreparedPath(
                    inputBytes: nil, run: { try PeopleWorkload.plistEncoder.encode(values) },
                    check: { [unowned self] result in
                        guard let data = result as? Data, let back = try? PropertyListDecoder().decode([Data].self, from: data)
                        else { return "FAIL: the output does not decode" }
                        return checkValues(back)
                    })
            },
        ]
        paths.append(BenchPaths.libplistWrite(
            context: context, label: "libplist plist_to_bin", input: { [unowned self] in (try corelibsArchive, nil, nil) }))
        paths += [
            BenchPath(id: "ours.writer", label: "ours writer: KeyedArchive.binaryPlist()", operation: .encode) { [unowned self] in
                let table = try KeyedArchiveEncoder().encodeArchive(values)
                return PreparedPath(inputBytes: nil, run: { table.binaryPlist() }, check: { [unowned self] in checkEncoded($0) })
            },
            BenchPath(id: "ours.codable-encode", label: "ours Codable bridge encode", operation: .encode) { [unowned self] in
                let values = self.values
                return PreparedPath(
                    inputBytes: nil, run: { try KeyedArchiveEncoder().encodeBytes(values) },
                    check: { [unowned self] in checkEncoded($0) })
            },
        ]
        paths += BenchPaths.corelibsDecodePaths(
            rootName: "NSArray of NSData", root: NSArray.self, secureClasses: [NSArray.self, NSData.self],
            records: [Data].self, plistLabel: "corelibs PropertyListDecoder",
            archive: { [unowned self] in try corelibsArchive }, plist: { [unowned self] in try plist },
            check: { [unowned self] in checkValues($0) }, checkRecords: { [unowned self] in checkValues($0) })
        paths += BenchPaths.readPaths(
            context: context, input: { [unowned self] in try corelibsArchive }, expectedObjects: { [unowned self] in objects },
            checkGraph: { [unowned self] graph in
                guard let elements = graph.root?.object?["NS.objects"]?.elements else {
                    return "FAIL: the root is not an array object"
                }
                return checkValues(elements.compactMap { $0.bytes.map { Data($0) } })
            })
        paths.append(
            BenchPath(id: "ours.codable-decode", label: "ours Codable bridge decode → [Data]", operation: .decode) {
                [unowned self] in
                let bytes = try corelibsArchive
                return PreparedPath(
                    inputBytes: bytes.count, run: { try KeyedArchiveDecoder().decode([Data].self, from: bytes) },
                    check: { [unowned self] in checkValues($0) })
            })
        return paths
    }
}
