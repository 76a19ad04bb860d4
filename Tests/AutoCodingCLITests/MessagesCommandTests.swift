// The commands are the `_AutoCodingCommands` library; until the package declares it, these tests build empty.
#if canImport(_AutoCodingCommands)
import AutoCoding
import Foundation
import Testing
import _AutoCodingTestSupport

@testable import _AutoCodingCommands

/// `autocoding messages` over chat.db files the tests make: the sample's real forms, hostile rows, and
/// databases that are not what they should be. The database is never written.
@Suite("messages")
struct MessagesCommandTests {
    /// A database with the sample's real schema and `rows` rows of (text, attributedBody, message_summary_info).
    static func makeDatabase(
        at path: String,
        rows: [(text: SQLiteValue, body: SQLiteValue, summary: SQLiteValue)],
        journal: String = "DELETE"
    ) throws {
        let database = try SQLiteDatabase(path: path, create: true)
        try database.execute("PRAGMA journal_mode=\(journal)")
        try database.execute(SampleGenerator.chatSchema)
        try database.execute("INSERT INTO handle (id, service) VALUES ('+15550001111', 'iMessage')")
        let insert = try database.prepare(
            """
            INSERT INTO message (guid, text, handle_id, attributedBody, service, date, is_from_me, message_summary_info)
            VALUES (?1, ?2, 1, ?3, 'iMessage', ?4, 0, ?5)
            """
        )
        for (index, row) in rows.enumerated() {
            try insert.run([
                .text("guid-\(index)"), row.text, row.body, .integer(700_000_000_000_000_000 + Int64(index)), row.summary,
            ])
        }
    }

    static func body(_ text: String) -> SQLiteValue { .blob(SampleGenerator.attributedBody([(text, [])])) }

    /// The bytes of a file and whether side files exist beside it.
    static func state(_ path: String) throws -> (bytes: Data, sideFiles: [String]) {
        let sides = ["-wal", "-shm", "-journal"].filter { FileManager.default.fileExists(atPath: path + $0) }
        return (try Data(contentsOf: URL(fileURLWithPath: path)), sides)
    }

    // MARK: The sample chat.db

    @Test func readsTheSampleChatDatabaseInItsRealForms() throws {
        let samples = try makeSamples(count: 8, rows: 66)
        let path = samples.path("chat.db")
        let before = try Self.state(path)
        let result = try CLI.run(["messages", path])
        #expect(result.status == 0, "\(result.stderr)")
        let records = try result.records()
        try #require(records.count == 66)
        #expect(records.map { $0["rowid"] as? Int } == Array(1...66))
        #expect(records.allSatisfy { $0["error"] == nil })
        #expect(records.allSatisfy { ($0["date"] as? String)?.hasSuffix("Z") == true })
        #expect(records.allSatisfy { ($0["handle"] as? String)?.isEmpty == false })
        // Every eighth row is an SMS-era row with only the text column.
        #expect(records[7]["text_source"] as? String == "text")
        #expect(records[0]["text_source"] as? String == "attributedBody")
        // Edited (every seventh), unsent (every eleventh), attachments (every sixth, some taken by others).
        let edited = try #require(records.first { $0["edited"] as? Bool == true })
        let edits = try #require(edited["edits"] as? [[String: Any]])
        #expect(edits.count >= 2)
        #expect(edits.last?["text"] as? String == edited["text"] as? String)
        let unsent = try #require(records.first { $0["unsent"] as? Bool == true })
        #expect(unsent["unsent_parts"] as? [Int] == [0])
        #expect(unsent["text"] is NSNull)
        let attached = try #require(records.first { ($0["attachments"] as? [String])?.isEmpty == false })
        #expect((attached["attachments"] as? [String])?.first?.hasSuffix(".HEIC") == true)
        #expect(result.stderr.contains("66 messages, 0 with errors"))
        // Every ninth is a link with its preview in payload_data (a keyed archive), printed as plain JSON.
        let link = try #require(records.first { $0["payload"] != nil })
        let payload = try #require(link["payload"] as? [String: Any])
        let metadata = try #require((payload["root"] as? [String: Any])?["richLinkMetadata"] as? [String: Any])
        #expect(metadata["URL"] as? String == link["text"] as? String)
        #expect(records.filter { $0["payload"] != nil }.count >= 5)
        // Read-only: the same bytes, no side files.
        let after = try Self.state(path)
        #expect(after.bytes == before.bytes)
        #expect(after.sideFiles.isEmpty)
    }

    @Test func theSampleChatDatabaseHasTheRealForms() throws {
        let samples = try makeSamples(count: 1, rows: 40)
        let database = try SQLiteDatabase(path: samples.path("chat.db"))
        let rows = try database.prepare(
            "SELECT text, attributedBody, payload_data, message_summary_info FROM message ORDER BY ROWID"
        )
        var typedBodies = 0, keyedPayloads = 0, plainSummaries = 0, textOnly = 0
        while try rows.step() {
            if case .blob(let body) = rows.value(1) {
                #expect(Typedstream.hasSignature(body))
                #expect(rows.value(0) == .null, "text is NULL when attributedBody is set")
                typedBodies += 1
            } else if case .text = rows.value(0) {
                textOnly += 1
            }
            if case .blob(let payload) = rows.value(2) {
                let graph = try ArchiveGraph(bytes: payload)
                #expect(graph.archiver == "NSKeyedArchiver")
                keyedPayloads += 1
            }
            if case .blob(let summary) = rows.value(3) {
                let value = try ArchiveValue(propertyList: summary)
                #expect(value["ec"] != nil || value["rp"] != nil)
                #expect(value["$archiver"] == nil, "a plain property list, not a keyed archive")
                plainSummaries += 1
            }
        }
        #expect(typedBodies > 20 && keyedPayloads > 0 && plainSummaries > 0 && textOnly > 0)
        for table in ["handle", "attachment", "message_attachment_join", "chat", "chat_message_join"] {
            let count = try database.prepare("SELECT count(*) FROM \(table)")
            #expect(try count.step())
            #expect(count.value(0) != .integer(0), "\(table)")
        }
    }

    // MARK: CSV

    @Test func csvQuotesAsRFC4180() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("chat.db")
        try Self.makeDatabase(
            at: path,
            rows: [
                (.null, Self.body("plain"), .null),
                (.null, Self.body("a, \"quoted\"\nline"), .null),
                (.text("from the text column"), .null, .null),
            ]
        )
        let result = try CLI.run(["messages", "--csv", path])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.components(separatedBy: "\r\n")
        #expect(lines[0] == ChatMessage.csvHeader.joined(separator: ","))
        #expect(lines[1].contains(",plain,attributedBody,"))
        #expect(result.stdout.contains(",\"a, \"\"quoted\"\"\nline\",attributedBody,"))
        #expect(result.stdout.contains(",from the text column,text,"))
        #expect(result.stdout.hasSuffix("\r\n"))
        #expect(CSV.field("x") == "x")
        #expect(CSV.field("") == "")
        #expect(CSV.field("a\"b") == "\"a\"\"b\"")
    }

    // MARK: Hostile rows

    @Test func hostileBlobsAreTheirRowsErrorsAndTheRunGoesOn() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("chat.db")
        let good = SampleGenerator.attributedBody([("good", [])])
        // An attributedBody nested 5,000 arrays deep: not an attributed string, and no deep recursion.
        var nested = TypedObject.array([])
        for _ in 0..<5_000 { nested = TypedObject.array([.object(nested)]) }
        let deep = TypedstreamArchiver()
        deep.encodeObject(nested)
        let plist = { (value: ArchiveValue) -> SQLiteValue in .blob(value.binaryPropertyList()) }
        let rows: [(text: SQLiteValue, body: SQLiteValue, summary: SQLiteValue)] = [
            (.null, .blob(good), .null),
            (.text("fallback"), .blob(Array(good.prefix(good.count / 2))), .null),  // Cut in half.
            (.null, .blob(Array("streamtyped".utf8)), .null),  // A signature and nothing else.
            (.null, .blob([UInt8](repeating: 0xFF, count: 64)), .null),  // Not any archive.
            (.null, .integer(7), .null),  // Not a blob at all.
            (.null, .blob(deep.archivedBytes()), .null),
            (.null, .blob(good), .blob(Array("not a plist".utf8))),
            (.null, .blob(good), plist(.array([.integer(1)]))),  // A plist, not a dictionary.
            (.null, .blob(good), plist(.dictionary(["ec": .string("x")]))),
            (.null, .blob(good), plist(.dictionary(["ec": .dictionary(["0": .array([.dictionary(["t": .data([1, 2, 3])])])])]))),
            (.null, .blob(good), plist(.dictionary(["rp": .integer(1)]))),
            (.null, .blob(good), .null),
        ]
        try Self.makeDatabase(at: path, rows: rows)
        let before = try Self.state(path)
        let start = Date()
        let result = try CLI.run(["messages", path])
        #expect(Date().timeIntervalSince(start) < 30)
        #expect(result.status == 1)
        let records = try result.records()
        try #require(records.count == rows.count)
        let failed = records.map { $0["error"] != nil }
        #expect(failed == [false, true, true, true, true, true, true, true, true, true, true, false])
        let columns = records.compactMap { ($0["error"] as? [String: Any])?["column"] as? String }
        #expect(columns == Array(repeating: "attributedBody", count: 5) + Array(repeating: "message_summary_info", count: 5))
        #expect(records.allSatisfy { (($0["error"] as? [String: Any])?["reason"] as? String)?.isEmpty != true })
        #expect(records[1]["text"] as? String == "fallback", "the text column when the body cannot be read")
        #expect(records[6]["text"] as? String == "good", "a bad summary keeps the body's text")
        #expect(result.stderr.contains("12 messages, 10 with errors"))
        let after = try Self.state(path)
        #expect(after.bytes == before.bytes)
        #expect(after.sideFiles.isEmpty)
    }

    @Test func attachmentsPerMessageAreBounded() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("chat.db")
        try Self.makeDatabase(at: path, rows: [(.null, Self.body("many"), .null), (.null, Self.body("next"), .null)])
        let database = try SQLiteDatabase(path: path, create: true)
        try database.execute(
            """
            BEGIN;
            WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < \(ChatDatabase.attachmentLimit + 1))
            INSERT INTO attachment (guid, transfer_name) SELECT 'g' || x, 'file' || x FROM n;
            INSERT INTO message_attachment_join SELECT 1, ROWID FROM attachment;
            COMMIT;
            """
        )
        let output = directory.path("out.ndjson")
        let result = try CLI.run(["messages", path, "-o", output])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        let lines = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)
        let first = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect((first["attachments"] as? [String])?.count == ChatDatabase.attachmentLimit)
        #expect((first["error"] as? [String: Any])?["column"] as? String == "attachment")
        #expect(lines[1].contains("\"text\":\"next\""))
    }

    // MARK: Bad databases

    @Test(arguments: [
        ("not SQLite", "the file is not a SQLite database"),
        ("empty file", "the file is an empty file"),
        ("missing", "No such file or directory"),
        ("no message table", "there is no table message"),
        ("no column", "table message has no column service, attributedBody"),
        ("locked", "database is locked"),
        ("WAL without -shm", "no -shm file"),
    ])
    func aBadDatabaseIsOneLineExitTwoAndUntouched(problem: String, message: String) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("chat.db")
        var lock: SQLiteDatabase?
        switch problem {
        case "not SQLite":
            try Data("just text, long enough to be a header".utf8 + [UInt8](repeating: 0, count: 100))
                .write(to: URL(fileURLWithPath: path))
        case "empty file": try Data().write(to: URL(fileURLWithPath: path))
        case "missing": break
        case "no message table":
            try SQLiteDatabase(path: path, create: true).execute("CREATE TABLE handle (id TEXT)")
        case "no column":
            try SQLiteDatabase(path: path, create: true).execute(
                "CREATE TABLE message (ROWID INTEGER PRIMARY KEY, guid TEXT, text TEXT, date INTEGER, "
                    + "is_from_me INTEGER, handle_id INTEGER)"
            )
        case "WAL without -shm":
            try Self.makeDatabase(at: path, rows: [(.null, Self.body("x"), .null)], journal: "WAL")
            try Data().write(to: URL(fileURLWithPath: path + "-wal"))
        default:
            try Self.makeDatabase(at: path, rows: [(.null, Self.body("x"), .null)])
        }
        let before = try? Data(contentsOf: URL(fileURLWithPath: path))
        if problem == "locked" {
            lock = try SQLiteDatabase(path: path, create: true)
            try lock?.execute("BEGIN EXCLUSIVE; INSERT INTO handle (id, service) VALUES ('x', 'SMS')")
        }
        let result = try CLI.run(["messages", path])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("error: \(path): "))
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        try lock?.execute("ROLLBACK")
        lock = nil
        #expect((try? Data(contentsOf: URL(fileURLWithPath: path))) == before)
        #expect(!FileManager.default.fileExists(atPath: path + "-shm"))
        if problem != "WAL without -shm" {
            #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        }
    }

    /// A WAL database whose side files are gone (everything is in the main file) is read as it is.
    @Test func aWALDatabaseWithoutSideFilesIsReadWithoutCreatingThem() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("chat.db")
        try Self.makeDatabase(at: path, rows: [(.null, Self.body("one"), .null), (.text("two"), .null, .null)], journal: "WAL")
        let before = try Self.state(path)
        #expect(before.bytes[18] == 2, "WAL mode")
        #expect(before.sideFiles.isEmpty)
        let result = try CLI.run(["messages", path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.records().map { $0["text"] as? String } == ["one", "two"])
        let after = try Self.state(path)
        #expect(after.bytes == before.bytes)
        #expect(after.sideFiles.isEmpty)
    }

    // MARK: Dates and text

    @Test(arguments: [
        (Int64(0), "2001-01-01T00:00:00Z"),
        (Int64(694_224_000), "2023-01-01T00:00:00Z"),  // Seconds (older databases).
        (Int64(694_224_000_500_000_000), "2023-01-01T00:00:00.500Z"),  // Nanoseconds.
        (Int64(-978_307_200), "1970-01-01T00:00:00Z"),
    ])
    func appleDatesByMagnitude(raw: Int64, iso: String) {
        #expect(AppleDate.iso8601(raw) == iso)
    }

    @Test func appleDatesAgreeWithFoundation() {
        let formatter = ISO8601DateFormatter()
        for seconds in stride(from: Int64(-3_000_000_000), through: 3_000_000_000, by: 77_777_777) {
            #expect(AppleDate.iso8601(seconds) == formatter.string(from: Date(timeIntervalSinceReferenceDate: Double(seconds))))
        }
    }

    @Test func outOfRangeDatesAreNull() {
        #expect(AppleDate.iso8601(Int64.max) != nil, "nanoseconds: the year 2293")
        #expect(AppleDate.iso8601(999_999_999_999) == nil, "seconds past the year 9999")
        #expect(AppleDate.iso8601(seconds: .infinity) == nil)
        #expect(AppleDate.iso8601(seconds: .nan) == nil)
        #expect(AppleDate.iso8601(Int64.min) != nil, "nanoseconds: the year 1708")
    }

    @Test func terminalTextEscapesControlsAndOverrides() {
        #expect(TerminalText.escaped("a\u{1B}[31mb") == "a\\u{1B}[31mb")
        #expect(TerminalText.escaped("\u{9B}\u{202E}x") == "\\u{9B}\\u{202E}x")
        #expect(TerminalText.escaped("a\nb\u{7}", keepingNewlines: true) == "a\nb\\u{7}")
        #expect(TerminalText.escaped("plain 🙂") == "plain 🙂")
        #expect(TerminalText.jsonEscaped("{\"t\":\"a\u{9B}\u{202E}\"}") == "{\"t\":\"a\\u009b\\u202e\"}")
    }
}
#endif
