import ArgumentParser
import AutoCoding
import BenchmarkFixtures
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// W1 (and W1c with reference cycles): an array of people with shared friends.
final class PeopleWorkload: BenchWorkload {
    let context: BenchContext
    let n: Int
    let cycles: Bool
    /// The scaling series reads this package's own archive, since corelibs cannot write 1M people in time.
    var decodeOwnArchive: Bool
    var key: String { cycles ? "W1c" : "W1" }
    var title: String {
        cycles ? "W1c people graph with reference cycles, N = \(n)" : "W1 people graph, N = \(n)"
    }

    init(context: BenchContext, n: Int, cycles: Bool, decodeOwnArchive: Bool = false) {
        self.context = context
        self.n = n
        self.cycles = cycles
        self.decodeOwnArchive = decodeOwnArchive || cycles
    }

    lazy var specs = PersonSpec.generate(n: n, cycles: cycles)
    lazy var foundationPeople = FoundationPerson.make(specs)
    lazy var codablePeople = BenchPerson.make(specs)
    lazy var autoPeople = AutoPerson.make(specs)
    lazy var records = specs.map(PersonRecord.init)

    private var prefix: String { "\(key)-\(n)" }

    /// The archive corelibs' NSKeyedArchiver writes (the reference bytes of W1).
    var corelibsArchive: [UInt8] {
        get throws {
            try context.bytes("\(prefix)-corelibs.bplist") { try Self.corelibsEncode(foundationPeople) }
        }
    }

    /// The archive this package's Codable bridge writes.
    var ownArchive: [UInt8] {
        get throws { try context.bytes("\(prefix)-ours.bplist") { try KeyedArchiveEncoder().encodeBytes(codablePeople) } }
    }

    /// The equivalent Codable plist.
    var plist: [UInt8] {
        get throws { try context.bytes("\(prefix)-codable.plist") { try Self.plistEncoder.encode(records).byteArray } }
    }

    /// What this package's decode paths read.
    var decodeInput: [UInt8] { get throws { try decodeOwnArchive ? ownArchive : corelibsArchive } }

    lazy var objects: Int = (try? KeyedArchiveView(bytes: decodeInput).objectCount) ?? 0

    var summary: WorkloadSummary {
        WorkloadSummary(key: key, title: title, objects: objects, archiveBytes: (try? decodeInput.count) ?? 0)
    }

    static let plistEncoder: PropertyListEncoder = {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        return encoder
    }()

    static func corelibsEncode(_ people: [FoundationPerson]) throws -> [UInt8] {
        try NSKeyedArchiver.archivedData(withRootObject: IdentityArray(people), requiringSecureCoding: false).byteArray
    }

    static func corelibsDecode(_ data: Data) throws -> [FoundationPerson] {
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = false
        unarchiver.decodingFailurePolicy = .setErrorAndReturn
        defer { unarchiver.finishDecoding() }
        guard let people = unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? [FoundationPerson] else {
            throw unarchiver.error ?? BenchError("corelibs decoded no [FoundationPerson]")
        }
        return people
    }

    /// The people match the specs: count, a sample of fields, and that friends are the very instances.
    func checkPeople(_ result: Any) -> String? {
        let people: [any PersonShape]
        switch result {
        case let list as [FoundationPerson]: people = list
        case let list as [BenchPerson]: people = list
        case let list as [AutoPerson]: people = list
        default: return "FAIL: unexpected result \(type(of: result))"
        }
        guard people.count == specs.count else { return "FAIL: \(people.count) people, expected \(specs.count)" }
        var rng = SplitMix64(seed: 42)
        let sample = Set([0, 1, n / 2, n - 1] + (0..<16).map { _ in Int(rng.next() % UInt64(n)) })
        for i in sample.sorted() {
            let (p, s) = (people[i], specs[i])
            let fields: [(String, Bool)] = [
                ("name", p.name == s.name), ("age", p.age == s.age), ("height", p.height == s.height),
                ("isActive", p.isActive == s.isActive), ("email", p.email == s.email),
                ("birthday", p.birthday == s.birthday), ("tags", p.tags == s.tags),
                ("address.city", p.shapeCity == s.city), ("address.zip", p.shapeZip == s.zip),
            ]
            if let (field, _) = fields.first(where: { !$0.1 }) {
                return "FAIL: person \(i)'s \(field) differs from the source"
            }
            let friends = p.shapeFriends
            guard friends.count == s.friends.count,
                zip(friends, s.friends).allSatisfy({ $0 === people[$1] })
            else { return "FAIL: person \(i)'s friends are not the shared instances" }
        }
        return nil
    }

    func checkRecords(_ result: Any) -> String? {
        guard let records = result as? [PersonRecord] else { return "FAIL: no records" }
        guard records.count == specs.count else { return "FAIL: \(records.count) records, expected \(specs.count)" }
        for i in [0, n / 2, n - 1] {
            let (r, s) = (records[i], specs[i])
            guard r.name == s.name, r.age == s.age, r.birthday == s.birthday, r.tags == s.tags,
                r.address.city == s.city, r.friends == s.friends
            else { return "FAIL: record \(i) differs from the source" }
        }
        return nil
    }

    func checkGraph(_ graph: ArchiveGraph) -> String? {
        guard let root = graph.root?.object, let elements = root["NS.objects"]?.elements else {
            return "FAIL: the root is not an array object"
        }
        guard elements.count == n else { return "FAIL: \(elements.count) people, expected \(n)" }
        for i in [0, n / 2, n - 1] {
            guard let person = elements[i].object, person["name"]?.string == specs[i].name,
                person["age"]?.int == specs[i].age,
                person["address"]?.object?["city"]?.string == specs[i].city
            else { return "FAIL: person \(i) differs in the graph" }
            if let friend = specs[i].friends.first {
                guard let objects = person["friends"]?.object?["NS.objects"]?.elements,
                    objects.first?.object === elements[friend].object
                else { return "FAIL: person \(i)'s friend is not the shared object" }
            }
        }
        return nil
    }

    /// Decodes an encode path's output with this package's decoder and checks it; with corelibs too for small N.
    /// With `corelibsIsInformational`, what corelibs reads differently is reported but is not a failure.
    func checkEncoded(_ result: Any, crossCheckCorelibs: Bool, corelibsIsInformational: Bool = false) -> String? {
        guard let bytes = (result as? [UInt8]) ?? (result as? Data).map({ [UInt8]($0) }) else { return "FAIL: no bytes" }
        if cycles {
            guard let people = try? KeyedArchiveDecoder().decode([AutoPerson].self, from: bytes) else {
                return "FAIL: the output does not decode"
            }
            defer { people.forEach { $0.friends = [] } }
            return checkPeople(people)
        }
        do {
            if let failure = checkPeople(try KeyedArchiveDecoder().decode([BenchPerson].self, from: bytes)) {
                return failure
            }
            if crossCheckCorelibs && n <= 10_000, let failure = checkPeople(try Self.corelibsDecode(Data(bytes))) {
                let difference = failure.replacingOccurrences(of: "FAIL: ", with: "")
                return corelibsIsInformational ? "ok; corelibs reads it differently: \(difference)" : "\(failure) (read by corelibs)"
            }
        } catch { return "FAIL: the output does not decode: \(error)" }
        return nil
    }

    func paths() -> [BenchPath] {
        var paths: [BenchPath] = []
        let context = self.context
        // Encode paths first: corelibs' output is the input of every decode path.
        if !cycles {
            paths.append(
                BenchPath(
                    id: "corelibs.archiver", label: "corelibs NSKeyedArchiver (IdentityArray workaround)",
                    operation: .encode, role: .foundationBaseline
                ) { [unowned self] in
                    let people = foundationPeople
                    return PreparedPath(
                        inputBytes: nil, run: { try Self.corelibsEncode(people) },
                        check: { [unowned self] result in
                            if let bytes = result as? [UInt8] { context.store("\(prefix)-corelibs.bplist", bytes) }
                            return checkEncoded(result, crossCheckCorelibs: false)
                        })
                })
            paths.append(
                BenchPath(id: "corelibs.plist-encoder", label: "corelibs PropertyListEncoder (Codable plist)", operation: .encode)
                { [unowned self] in
                    let records = self.records
                    return PreparedPath(
                        inputBytes: nil, run: { try Self.plistEncoder.encode(records) },
                        check: { [unowned self] result in
                            guard let data = result as? Data else { return "FAIL: no data" }
                            context.store("\(prefix)-codable.plist", data.byteArray)
                            return checkRecords((try? PropertyListDecoder().decode([PersonRecord].self, from: data)) as Any)
                        })
                })
            paths.append(BenchPaths.libplistWrite(
                context: context, label: "libplist plist_to_bin",
                input: { [unowned self] in try libplistWriteInput() }))
        }
        paths.append(
            BenchPath(id: "ours.writer", label: "ours writer: KeyedArchive.binaryPlist()", operation: .encode) {
                [unowned self] in
                let table = try KeyedArchiveEncoder().encodeArchive(codablePeople)
                return PreparedPath(
                    inputBytes: nil, run: { table.binaryPlist() },
                    check: { [unowned self] in checkEncoded($0, crossCheckCorelibs: false) })
            })
        paths.append(
            BenchPath(id: "ours.codable-encode", label: "ours Codable bridge encode (KeyedArchiveEncoder)", operation: .encode)
            { [unowned self] in
                let people = codablePeople
                return PreparedPath(
                    inputBytes: nil, run: { try KeyedArchiveEncoder().encodeBytes(people) },
                    check: { [unowned self] result in
                        if let bytes = result as? [UInt8] { context.store("\(prefix)-ours.bplist", bytes) }
                        return checkEncoded(result, crossCheckCorelibs: true)
                    })
            })
        paths.append(
            BenchPath(id: "ours.auto-encode", label: "ours @AutoCoding encode", operation: .encode) { [unowned self] in
                let people = autoPeople
                return PreparedPath(
                    inputBytes: nil, run: { try KeyedArchiveEncoder().encodeBytes(people) },
                    check: { [unowned self] in checkEncoded($0, crossCheckCorelibs: true, corelibsIsInformational: true) })
            })
        paths.append(
            BenchPath(id: "ours.graph-encode", label: "ours ArchiveGraph.binaryPlist()", operation: .encode) {
                [unowned self] in
                let graph = try ArchiveGraph(bytes: decodeInput)
                return PreparedPath(
                    inputBytes: nil, run: { graph.binaryPlist() },
                    check: { result in
                        guard let bytes = result as? [UInt8], let back = try? ArchiveGraph(bytes: bytes) else {
                            return "FAIL: the output does not read back"
                        }
                        defer { back.breakReferenceCycles() }
                        return back.isEquivalent(to: graph) ? nil : "FAIL: the graph read back is not equivalent"
                    })
            })
        // Decode paths.
        if !cycles {
            paths += BenchPaths.corelibsDecodePaths(
                rootName: "[Person]", root: [FoundationPerson].self,
                secureClasses: [NSArray.self, FoundationPerson.self, FoundationAddress.self, NSString.self, NSDate.self],
                records: [PersonRecord].self, plistLabel: "corelibs PropertyListDecoder (Codable plist)",
                archive: { [unowned self] in try corelibsArchive }, plist: { [unowned self] in try plist },
                check: { [unowned self] in checkPeople($0) }, checkRecords: { [unowned self] in checkRecords($0) })
        }
        paths += BenchPaths.readPaths(
            context: context, input: { [unowned self] in try decodeInput }, expectedObjects: { [unowned self] in objects },
            checkGraph: { [unowned self] in checkGraph($0) })
        paths.append(
            BenchPath(id: "ours.codable-decode", label: "ours Codable bridge decode → [Person]", operation: .decode) {
                [unowned self] in
                if cycles {
                    return .skipped("init(from:) cannot decode reference cycles; @AutoCoding does")
                }
                let bytes = try decodeInput
                return PreparedPath(
                    inputBytes: bytes.count, run: { try KeyedArchiveDecoder().decode([BenchPerson].self, from: bytes) },
                    check: { [unowned self] in checkPeople($0) })
            })
        paths.append(
            BenchPath(id: "ours.auto-decode", label: "ours @AutoCoding decode → [Person]", operation: .decode) {
                [unowned self] in
                let bytes = try decodeInput
                return PreparedPath(
                    inputBytes: bytes.count, run: { try KeyedArchiveDecoder().decode([AutoPerson].self, from: bytes) },
                    check: { [unowned self] in checkPeople($0) },
                    dispose: { ($0 as? [AutoPerson])?.forEach { $0.friends = [] } })
            })
        if !cycles { paths += jsonPaths() }
        return paths
    }

    /// The graph of the decode input written as compact JSON text: this package's writer against corelibs'
    /// `JSONSerialization` writing the same values, built beforehand by ``ArchiveGraph/jsonObject()`` (untimed,
    /// so the Foundation row times its writer alone). Both outputs are read back into a graph and checked.
    private func jsonPaths() -> [BenchPath] {
        func checkJSON(_ text: String?) -> String? {
            guard let text, let back = try? ArchiveGraph(json: text) else { return "FAIL: the output does not read back" }
            return checkGraph(back)
        }
        return [
            BenchPath(
                id: "corelibs.json-serialization", label: "corelibs JSONSerialization of ArchiveGraph.jsonObject()",
                operation: .json, role: .foundationBaseline
            ) { [unowned self] in
                guard let object = try ArchiveGraph(bytes: decodeInput).jsonObject() else {
                    throw BenchError("the graph has no JSON object form")
                }
                return PreparedPath(
                    inputBytes: nil, run: { try JSONSerialization.data(withJSONObject: object) },
                    check: { checkJSON(($0 as? Data).map { String(decoding: $0, as: UTF8.self) }) })
            },
            BenchPath(id: "ours.graph-json", label: "ours ArchiveGraph.json(prettyPrinted: false)", operation: .json) {
                [unowned self] in
                let graph = try ArchiveGraph(bytes: decodeInput)
                return PreparedPath(
                    inputBytes: nil, run: { graph.json(prettyPrinted: false) }, check: { checkJSON($0 as? String) })
            },
        ]
    }

    /// libplist's writer is quadratic: W1 at a smaller N when the archive has more objects than the cap.
    private func libplistWriteInput() throws -> (bytes: [UInt8], objects: Int?, note: String?) {
        let cap = context.settings.libplistWriteCap
        let full = try corelibsArchive
        if objects <= cap { return (full, nil, nil) }
        let perPerson = max(1, objects / n)
        let smaller = [50_000, 20_000, 10_000, 5_000, 2_000, 1_000, 500, 100].first { $0 * perPerson <= cap } ?? 100
        let small = PeopleWorkload(context: context, n: smaller, cycles: false)
        let bytes = try small.corelibsArchive
        return (bytes, small.objects, "N = \(smaller): quadratic, capped at \(cap) objects")
    }
}
