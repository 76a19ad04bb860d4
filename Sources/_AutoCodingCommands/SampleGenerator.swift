import AutoCodingCore
import Foundation

/// A small, fast, seedable generator (SplitMix64): the same seed gives the same samples on every machine.
struct SampleRandom {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `range`.
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }

    /// A number in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    mutating func bool(_ probability: Double = 0.5) -> Bool { unit() < probability }

    mutating func pick<T>(_ items: [T]) -> T { items[int(0...items.count - 1)] }

    mutating func bytes(_ count: Int) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(count + 8)
        while result.count < count {
            withUnsafeBytes(of: next().littleEndian) { result.append(contentsOf: $0) }
        }
        return Array(result.prefix(count))
    }

    /// Bytes that compress like real files: runs and repeats mixed with noise.
    mutating func blob(_ count: Int) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(count)
        while result.count < count {
            let run = int(1...64)
            if bool(0.3) {
                result.append(contentsOf: repeatElement(UInt8(truncatingIfNeeded: next()), count: run))
            } else {
                result.append(contentsOf: bytes(run))
            }
        }
        return Array(result.prefix(count))
    }

    mutating func uuid() -> UUID {
        var b = bytes(16)
        b[6] = (b[6] & 0x0F) | 0x40
        b[8] = (b[8] & 0x3F) | 0x80
        return UUID(
            uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])
        )
    }

    /// A date between 2015 and 2025, to the millisecond.
    mutating func date() -> Date {
        Date(timeIntervalSinceReferenceDate: Double(int(441_763_200_000...788_918_400_000)) / 1000)
    }
}

/// Writes the sample set: keyed archives of many shapes, a few files that are not archives, and a SQLite
/// database of archive blobs. Everything is made here from a seed, so the output is the same on every run.
struct SampleGenerator {
    var seed: UInt64 = 1

    /// The kinds of archive, in the order file numbers cycle through them.
    enum Kind: String, CaseIterable {
        case people, notes, graph, collections, blob, attributed, accounts, chain
    }

    static let firstNames = [
        "Ann", "Bob", "Chloé", "Dmitri", "Eve", "Fatima", "Gus", "Hiro", "Ines", "José", "Kai", "Lena", "Mo",
        "Nadia", "Olu", "Priya", "Quinn", "Rui", "Sven", "Tess", "Uma", "Vik", "Wen", "Xavi", "Yara", "Zoë",
    ]
    static let words = [
        "archive", "budget", "coffee", "delta", "engine", "forest", "garden", "harbor", "island", "jigsaw",
        "kernel", "lantern", "meadow", "nectar", "orbit", "pixel", "quartz", "river", "summit", "timber",
        "utopia", "velvet", "window", "xenon", "yonder", "zephyr", "über", "naïve", "日本", "🙂",
    ]

    // MARK: Archives

    /// The kind and the file name of archive `index`.
    func fileName(_ index: Int) -> (Kind, String) {
        let kind = Kind.allCases[index % Kind.allCases.count]
        return (kind, String(format: "%06d-", index) + kind.rawValue + ".plist")
    }

    /// The bytes of archive `index`: every tenth archive is written as XML, the others as binary.
    func archive(_ index: Int) throws -> [UInt8] {
        var random = SampleRandom(seed: seed &* 0x1000_0000_01B3 &+ UInt64(index))
        let archive: KeyedArchive
        switch fileName(index).0 {
        case .people:
            let group = people(&random)
            // The friends lists are cycles, which would outlive the archive (one per archive generated).
            defer { for person in group { person.friends = []; person.bestFriend = nil } }
            archive = try KeyedArchiveEncoder().encodeArchive(group)
        case .notes:
            let root = notes(&random)
            defer { Self.breakParentCycles(root) }
            archive = try KeyedArchiveEncoder().encodeArchive(root)
        case .graph:
            let graph = graph(&random)
            defer { graph.breakReferenceCycles() }
            archive = graph.keyedArchive()
        case .collections: archive = collections(&random).keyedArchive()
        case .blob: archive = try KeyedArchiveEncoder().encodeArchive(Data(random.blob(random.int(256...16 * 1024))))
        case .attributed:
            let archiver = KeyedArchiver()
            try archiver.encode(attributed(&random), forKey: ArchiveKey.root)
            archive = try archiver.finishEncoding()
        case .accounts:
            let archiver = KeyedArchiver()
            try archiver.encode(accounts(&random), forKey: ArchiveKey.root)
            archive = try archiver.finishEncoding()
        case .chain: archive = chain(&random).keyedArchive()
        }
        return index % 10 == 9 ? try archive.xmlPlist() : archive.binaryPlist()
    }

    /// A group of people whose friend lists point at each other: shared references and cycles.
    func people(_ random: inout SampleRandom) -> [SamplePerson] {
        let group = (0..<random.int(3...14)).map { i in
            SamplePerson(
                name: random.pick(Self.firstNames) + " " + random.pick(Self.words).capitalized,
                age: random.int(18...90),
                email: random.bool(0.7) ? "p\(i)@example.org" : nil,
                score: (random.unit() * 1000).rounded() / 10,
                isVerified: random.bool()
            )
        }
        for person in group {
            for _ in 0..<random.int(0...4) {
                let friend = random.pick(group)
                if friend !== person && !person.friends.contains(where: { $0 === friend }) {
                    person.friends.append(friend)
                }
            }
            person.bestFriend = person.friends.first
        }
        return group
    }

    /// Empties a folder tree's subfolder lists, whose folders hold their parents.
    static func breakParentCycles(_ root: SampleFolder) {
        var pending = [root]
        while let folder = pending.popLast() {
            pending.append(contentsOf: folder.subfolders)
            folder.subfolders = []
        }
    }

    /// A folder tree with notes; children point back at parents and notes share tags.
    func notes(_ random: inout SampleRandom) -> SampleFolder {
        let tags = (0..<random.int(2...6)).map { _ in
            SampleTag(name: "#" + random.pick(Self.words), color: random.int(0...0xFFFFFF))
        }
        let root = SampleFolder(name: "Notes", parent: nil)
        var folders = [root]
        for _ in 0..<random.int(1...4) {
            let parent = random.pick(folders)
            let folder = SampleFolder(name: random.pick(Self.words).capitalized, parent: parent)
            parent.subfolders.append(folder)
            folders.append(folder)
        }
        for _ in 0..<random.int(2...12) {
            let folder = random.pick(folders)
            let body = (0..<random.int(5...80)).map { _ in random.pick(Self.words) }.joined(separator: " ")
            let note = SampleNote(
                id: random.uuid(),
                title: random.pick(Self.words).capitalized,
                body: body,
                created: random.date(),
                link: random.bool(0.4) ? URL(string: "https://example.org/\(random.pick(Self.words))") : nil,
                attachment: random.bool(0.2) ? Data(random.blob(random.int(64...4096))) : nil,
                tags: (0..<random.int(0...3)).map { _ in random.pick(tags) }
            )
            note.folder = folder
            folder.notes.append(note)
        }
        return root
    }

    /// An object graph built directly with ``ArchivedObject``: a ring of nodes (a cycle) that all share one
    /// palette object, with scalars both in place and referenced.
    func graph(_ random: inout SampleRandom) -> ArchiveGraph {
        let palette = ArchivedObject(
            className: "Sample.Palette",
            chain: ["Sample.Palette", "NSObject"],
            fields: [
                "name": .reference(.string(random.pick(Self.words))),
                "colors": .array(
                    (0..<random.int(2...8)).map { _ in .inline(.integer(Int64(random.int(0...0xFFFFFF)))) }
                ),
            ]
        )
        let nodes = (0..<random.int(4...60)).map { i in
            ArchivedObject(
                className: "Sample.Node",
                chain: ["Sample.Node", "NSObject"],
                fields: [
                    "index": .inline(.integer(Int64(i))),
                    "label": .reference(.string(random.pick(Self.words) + "-\(i)")),
                    "weight": .inline(.real((random.unit() * 100).rounded() / 4)),
                    "palette": .object(palette),
                ]
            )
        }
        for (i, node) in nodes.enumerated() {
            node["next"] = .object(nodes[(i + 1) % nodes.count])
            node["previous"] = .object(nodes[(i + nodes.count - 1) % nodes.count])
        }
        let ring = ArchivedObject(
            className: "Sample.Ring",
            chain: ["Sample.Ring", "NSObject"],
            fields: [
                "first": .object(nodes[0]), "count": .inline(.integer(Int64(nodes.count))), "palette": .object(palette),
            ]
        )
        return ArchiveGraph(root: .object(ring))
    }

    /// Foundation collections as Apple archives them: NSDictionary, NSArray, NSSet, NSOrderedSet, NSDate,
    /// NSNull, NSData, strings and numbers, nested a few levels.
    func collections(_ random: inout SampleRandom) -> ArchiveGraph {
        ArchiveGraph(root: collection(&random, depth: 0))
    }

    private func collection(_ random: inout SampleRandom, depth: Int) -> ArchivedValue {
        func object(_ name: String, _ chain: [String], _ fields: KeyValuePairs<String, ArchivedValue>) -> ArchivedValue
        {
            let instance = ArchivedObject(className: name, chain: chain + ["NSObject"])
            for (key, value) in fields { instance[key] = value }
            return .object(instance)
        }
        func element() -> ArchivedValue {
            if depth < 3 && random.bool(0.25) { return collection(&random, depth: depth + 1) }
            switch random.int(0...6) {
            case 0: return .reference(.string(random.pick(Self.words)))
            case 1: return .reference(.integer(Int64(random.int(-1000...100_000))))
            case 2: return .reference(.real((random.unit() * 1e6).rounded() / 100))
            case 3: return .reference(.bool(random.bool()))
            case 4:
                return object(
                    "NSDate",
                    ["NSDate"],
                    ["NS.time": .inline(.real(random.date().timeIntervalSinceReferenceDate))]
                )
            case 5: return object("NSNull", ["NSNull"], [:])
            default:
                return object(
                    "NSMutableData",
                    ["NSMutableData", "NSData"],
                    ["NS.bytes": .inline(.data(random.blob(random.int(8...512))))]
                )
            }
        }
        let count = random.int(1...(depth == 0 ? 24 : 8))
        switch random.int(0...3) {
        case 0:
            var keys: [ArchivedValue] = []
            var values: [ArchivedValue] = []
            for i in 0..<count {
                keys.append(.reference(.string(random.pick(Self.words) + "\(i)")))
                values.append(element())
            }
            let mutable = random.bool()
            return object(
                mutable ? "NSMutableDictionary" : "NSDictionary",
                mutable ? ["NSMutableDictionary", "NSDictionary"] : ["NSDictionary"],
                ["NS.keys": .array(keys), "NS.objects": .array(values)]
            )
        case 1:
            return object("NSArray", ["NSArray"], ["NS.objects": .array((0..<count).map { _ in element() })])
        case 2:
            let members = (0..<count).map { i in ArchivedValue.reference(.string(random.pick(Self.words) + "·\(i)")) }
            return object("NSSet", ["NSSet"], ["NS.objects": .array(members)])
        default:
            let set = ArchivedObject(className: "NSOrderedSet", chain: ["NSOrderedSet", "NSObject"])
            for i in 0..<count { set["NS.object.\(i)"] = .reference(.string(random.pick(Self.words) + "-\(i)")) }
            return .object(set)
        }
    }

    /// An attributed string with a few runs, attributes sorted by name as the archiver writes them.
    func attributed(_ random: inout SampleRandom) -> ArchiveAttributedString {
        var text = ""
        var runs: [ArchiveAttributedString.Run] = []
        for _ in 0..<random.int(1...6) {
            let piece = (0..<random.int(1...8)).map { _ in random.pick(Self.words) }.joined(separator: " ") + " "
            let start = text.utf16.count
            text += piece
            var attributes: [String: Any] = ["__kIMMessagePartAttributeName": runs.count]
            if random.bool(0.3) {
                attributes["__kIMLinkAttributeName"] = URL(string: "https://example.org/\(random.pick(Self.words))")!
            }
            if random.bool(0.3) { attributes["NSColor"] = random.int(0...0xFFFFFF) }
            runs.append(.init(range: start..<text.utf16.count, attributes: attributes))
        }
        return ArchiveAttributedString(string: text, runs: runs, isMutable: random.bool())
    }

    /// Accounts archived with ``ArchiveCoding``, owned by people who are friends of each other.
    func accounts(_ random: inout SampleRandom) -> SampleLedger {
        let owners = people(&random)
        return SampleLedger(
            accounts: (0..<random.int(1...6)).map { _ in
                SampleAccount(
                    number: Int64(random.int(10_000_000...99_999_999)),
                    balance: (random.unit() * 1e7).rounded() / 100,
                    owner: random.pick(owners),
                    history: (0..<random.int(0...20)).map { _ in (random.unit() * 1e5).rounded() / 100 }
                )
            }
        )
    }

    /// A long singly linked list (hundreds to thousands of objects), the shape that breaks recursive decoders.
    func chain(_ random: inout SampleRandom) -> ArchiveGraph {
        let length = random.int(50...1000)
        var next: ArchivedValue = .null
        for i in (0..<length).reversed() {
            next = .object(
                ArchivedObject(
                    className: "Sample.Link",
                    chain: ["Sample.Link", "NSObject"],
                    fields: ["value": .inline(.integer(Int64(i))), "next": next]
                )
            )
        }
        let head = ArchivedObject(
            className: "Sample.List",
            chain: ["Sample.List", "NSObject"],
            fields: ["head": next, "count": .inline(.integer(Int64(length)))]
        )
        return ArchiveGraph(root: .object(head))
    }

    // MARK: Files that are not archives

    /// Files `batch` must report rather than decode: not plists, plain plists, and damaged archives.
    func otherFiles() throws -> [(name: String, bytes: [UInt8])] {
        var random = SampleRandom(seed: seed ^ 0xD1B5_4A32_D192_ED03)
        let plain: ArchiveValue = .dictionary([
            "name": .string("settings"), "version": .integer(3), "enabled": .bool(true),
            "ratios": .array([.real(0.25), .real(0.5)]), "blob": .data(random.bytes(32)),
        ])
        let archive = try KeyedArchiveEncoder().encodeArchive(people(&random))
        let bytes = archive.binaryPlist()
        var badUID = archive
        badUID.top[ArchiveKey.root] = .uid(ArchiveUID(UInt32(archive.objects.count + 7)))
        return [
            ("notes.txt", Array("Not an archive: plain text.\n".utf8)),
            ("random.bin", random.bytes(4096)),
            ("empty.dat", []),
            ("data.json", Array(#"{"name": "not a plist", "values": [1, 2, 3]}"#.utf8)),
            ("page.xml", Array(#"<?xml version="1.0"?><html><body>not a plist</body></html>"#.utf8)),
            ("settings.plist", plain.binaryPropertyList()),
            ("settings.xml.plist", try plain.xmlPropertyList()),
            ("truncated.plist", Array(bytes.prefix(bytes.count / 2))),
            ("bad-uid.plist", badUID.binaryPlist()),
        ]
    }

    // MARK: SQLite

    /// A chat.db-like database: `handle` and `message` tables, each message's `attributedBody` a keyed archive
    /// of an attributed string, and every fifth message's `payload_data` a keyed archive of a dictionary.
    func writeDatabase(at path: String, rows: Int) throws {
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(path + suffix) }
        let database = try SQLiteDatabase(path: path, create: true)
        try database.execute(
            """
            PRAGMA page_size = 4096;
            CREATE TABLE handle (ROWID INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL, service TEXT NOT NULL);
            CREATE TABLE message (
                ROWID INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT UNIQUE NOT NULL, text TEXT,
                handle_id INTEGER DEFAULT 0, service TEXT, date INTEGER, is_from_me INTEGER DEFAULT 0,
                attributedBody BLOB, payload_data BLOB);
            CREATE INDEX message_idx_handle ON message(handle_id);
            BEGIN;
            """
        )
        var random = SampleRandom(seed: seed ^ 0x5DB3_7C41_0A2E_9F13)
        let handles = try database.prepare("INSERT INTO handle (id, service) VALUES (?1, ?2)")
        let handleCount = max(1, min(50, rows / 20))
        for i in 0..<handleCount {
            try handles.run([
                .text("+1555\(String(format: "%07d", 1_000_000 + i * 7919))"),
                .text(random.bool(0.8) ? "iMessage" : "SMS"),
            ])
        }
        let messages = try database.prepare(
            """
            INSERT INTO message (guid, text, handle_id, service, date, is_from_me, attributedBody, payload_data)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
            """
        )
        for i in 0..<rows {
            let body = attributed(&random)
            let archiver = KeyedArchiver()
            try archiver.encode(body, forKey: ArchiveKey.root)
            let attributedBody = try archiver.finishEncoding().binaryPlist()
            var payload: SQLiteValue = .null
            if i % 5 == 4 {
                let link = ArchiveGraph(root: collection(&random, depth: 1)).binaryPlist()
                payload = .blob(link)
            }
            let date = Int64(random.date().timeIntervalSinceReferenceDate * 1e9)
            try messages.run([
                .text(random.uuid().uuidString), .text(body.string), .integer(Int64(random.int(1...handleCount))),
                .text("iMessage"), .integer(date), .integer(random.bool() ? 1 : 0), .blob(attributedBody), payload,
            ])
        }
        try database.execute("COMMIT;")
    }
}
