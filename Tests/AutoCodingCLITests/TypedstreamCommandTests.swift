// The commands are the `_AutoCodingCommands` library; until the package declares it, these tests build empty.
#if canImport(_AutoCodingCommands)
import AutoCoding
import Foundation
import Testing
import _AutoCodingTestSupport

@testable import _AutoCodingCommands

/// Typedstreams through the commands: events, validate, json, inspect and batch over a Messages-shaped table.
@Suite("typedstream commands")
struct TypedstreamCommandTests {
    /// An iMessage-style body: "Hi Bob" with a message part on each run and a mention on "Bob".
    static func attributedBody(_ text: String = "Hi Bob") -> [UInt8] {
        let part = TypedObject.dictionary([
            (key: .object(.string("__kIMMessagePartAttributeName")), value: .object(.number(Int64(0))))
        ])
        let mention = TypedObject.dictionary([
            (key: .object(.string("__kIMMessagePartAttributeName")), value: .object(.number(Int64(0)))),
            (key: .object(.string("__kIMMentionConfirmedMention")), value: .object(.string("+15550100"))),
        ])
        let body = TypedObject.attributedString(
            text,
            runs: [(length: 3, attributes: part), (length: text.utf16.count - 3, attributes: mention)],
            mutable: true
        )
        let archiver = TypedstreamArchiver()
        archiver.encodeObject(body)
        return archiver.archivedBytes()
    }

    @Test func eventsPrintsTheEventLayer() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("body.typedstream")
        try Data(Self.attributedBody()).write(to: URL(fileURLWithPath: path))
        let result = try CLI.run(["events", path])
        #expect(result.status == 0)
        #expect(result.lines.first == "streamer version 4, byte order little, system version 1000")
        #expect(result.stdout.contains("class NSMutableAttributedString v0 (#1)"))
        #expect(result.stdout.contains("b'Hi Bob'"))
        let bad = try CLI.run(["events", Fixtures.directory.appendingPathComponent("keyed-person-graph.bplist").path])
        #expect(bad.status == 1)
    }

    @Test func jsonPrintsAnIMessageBody() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("body.typedstream")
        try Data(Self.attributedBody()).write(to: URL(fileURLWithPath: path))
        let result = try CLI.run(["json", path])
        #expect(result.status == 0, "\(result.stderr)")
        let record = try #require(try result.records().first)
        #expect(record["text"] as? String == "Hi Bob")
        let runs = try #require(record["runs"] as? [[String: Any]])
        #expect(runs.map { $0["text"] as? String } == ["Hi ", "Bob"])
        let attributes = try #require(runs[1]["attributes"] as? [String: Any])
        #expect(attributes["__kIMMentionConfirmedMention"] as? String == "+15550100")
        #expect(attributes["__kIMMessagePartAttributeName"] as? Int == 0)
        let inspect = try CLI.run(["inspect", path])
        // The Foundation-aware tree (the event layer is `events`).
        #expect(inspect.status == 0 && inspect.stdout.contains("\"Hi Bob\", 2 runs"), "\(inspect.stdout)")
    }

    @Test func convertWritesAKeyedArchive() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("body.typedstream")
        try Data(Self.attributedBody()).write(to: URL(fileURLWithPath: path))
        let out = directory.path("body.archive")
        let result = try CLI.run(["convert", "--to", "keyed", path, "-o", out])
        #expect(result.status == 0, "\(result.stderr)")
        let graph = try ArchiveGraph(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: out))))
        let root = try #require(graph.root?.object)
        #expect(root.className == "NSMutableAttributedString")
        #expect(root["NSString"]?.string == "Hi Bob")
        #expect(root["NSAttributes"]?.object?["NS.objects"]?.elements?.count == 2)
    }

    @Test func validateReadsWritesAndRejectsTypedstreams() throws {
        let directory = try TemporaryDirectory()
        let good = directory.path("good.typedstream")
        let bytes = Self.attributedBody()
        try Data(bytes).write(to: URL(fileURLWithPath: good))
        let damaged = directory.path("damaged.typedstream")
        try Data(bytes.prefix(bytes.count - 5)).write(to: URL(fileURLWithPath: damaged))
        let result = try CLI.run(["validate", "--roundtrip", good, damaged])
        #expect(result.status == 1)
        #expect(result.stdout.contains("ok \(good) typedstream little-endian v1000"))
        #expect(result.stdout.contains("(identical)"))
        #expect(result.stdout.contains("FAIL \(damaged): truncated:"))
        #expect(result.lines.last == "1 passed, 1 failed")
    }

    @Test(.enabled(if: SharedCorpus.isAvailable, "../shared/corpus is not beside the package"))
    func validateRoundTripsTheSharedSamples() throws {
        let result = try CLI.run(["validate", "--roundtrip", SharedCorpus.directory.appendingPathComponent("typedstream").path])
        #expect(result.status == 0)
        #expect(result.lines.last == "35 passed, 0 failed")
        let malformed = try CLI.run([
            "validate", SharedCorpus.directory.appendingPathComponent("malformed/crabstep_ExtraData.typedstream").path,
        ])
        #expect(malformed.status == 1)
        #expect(malformed.stdout.contains("truncated: string of 157 bytes"))
    }

    /// `batch --sqlite chat.db --table message --column attributedBody` on the Messages table layout.
    @Test func batchDecodesTheMessagesTable() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("chat.db")
        let database = try SQLiteDatabase(path: path, create: true)
        try database.execute(
            """
            CREATE TABLE message (ROWID INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT UNIQUE NOT NULL, text TEXT, \
            handle_id INTEGER DEFAULT 0, date INTEGER, is_from_me INTEGER DEFAULT 0, attributedBody BLOB, \
            message_summary_info BLOB, payload_data BLOB)
            """
        )
        let insert = try database.prepare(
            "INSERT INTO message (guid, text, date, attributedBody) VALUES (?1, ?2, ?3, ?4)"
        )
        for i in 1...4 {
            try insert.run([
                .text("G\(i)"), .text("Hi Bob \(i)"), .integer(Int64(i)), .blob(Self.attributedBody("Hi Bob \(i)")),
            ])
        }
        try insert.run([.text("G5"), .text(""), .integer(5), .blob(Array(Self.attributedBody().prefix(30)))])
        let result = try CLI.run([
            "batch", "--sqlite", path, "--table", "message", "--column", "attributedBody", "--jobs", "2",
        ])
        #expect(result.status == 1, "row 5 is damaged")
        let records = try result.records()
        try #require(records.count == 5)
        for record in records.prefix(4) {
            #expect(record["ok"] as? Bool == true)
            #expect(record["format"] as? String == "typedstream")
            #expect(record["root_class"] as? String == "NSMutableAttributedString")
        }
        #expect((records[4]["error"] as? [String: Any])?["code"] as? String == "truncated")
        #expect(try CLI.run(["batch", "--sqlite", path, "--table", "message"]).status == 2)
    }
}
#endif
