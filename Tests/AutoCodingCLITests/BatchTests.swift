// The commands are the `_AutoCodingCommands` library; until the package declares it, these tests build empty.
#if canImport(_AutoCodingCommands)
import AutoCoding
import Foundation
import Testing
import _AutoCodingTestSupport

@testable import _AutoCodingCommands

/// End-to-end runs of `autocoding batch`, through the built executable.
@Suite("batch")
struct BatchTests {
    static let recordKeys: Set<String> = [
        "path", "ok", "format", "archiver", "root_class", "objects", "bytes", "ms", "error",
    ]

    // MARK: Files

    @Test func decodesEveryArchiveAndExitsZero() throws {
        let samples = try makeSamples()
        let result = try CLI.run(["batch", samples.path("archives"), "--jobs", "2"])
        #expect(result.status == 0, "\(result.stderr)")
        let records = try result.records()
        try #require(records.count == 24)
        for record in records {
            #expect(Set(record.keys) == Self.recordKeys)
            #expect(record["ok"] as? Bool == true)
            #expect(record["error"] is NSNull)
            #expect((record["objects"] as? Int ?? 0) > 1)
            #expect((record["bytes"] as? Int ?? 0) > 0)
            #expect(record["ms"] is Double || record["ms"] is Int)
            #expect(record["root_class"] is String)
        }
        // Records come in input order (sorted paths), whatever order the workers finish in.
        let paths = records.compactMap { $0["path"] as? String }
        #expect(paths == paths.sorted())
        #expect(
            Set(records.compactMap { $0["root_class"] as? String }).isSuperset(of: [
                "NSArray", "Sample.Folder", "Sample.Ring",
            ])
        )
    }

    @Test func reportsInputsThatAreNotArchivesAndExitsOne() throws {
        let samples = try makeSamples(count: 0, rows: 0)
        let result = try CLI.run(["batch", samples.path("other")])
        #expect(result.status == 1)
        let records = try result.records()
        try #require(records.count == 9)
        var codes: [String: String] = [:]
        for record in records {
            #expect(Set(record.keys) == Self.recordKeys)
            #expect(record["ok"] as? Bool == false)
            let error = try #require(record["error"] as? [String: Any])
            #expect(error["reason"] is String)
            codes[URL(fileURLWithPath: record["path"] as! String).lastPathComponent] = error["code"] as? String
        }
        #expect(codes["notes.txt"] == "notPropertyList")
        #expect(codes["empty.dat"] == "notPropertyList")
        #expect(codes["settings.plist"] == "notKeyedArchive")
        #expect(codes["settings.xml.plist"] == "notKeyedArchive")
        #expect(codes["bad-uid.plist"] == "invalidUID")
        #expect(result.stderr.contains("failures by code:"))
        #expect(result.stderr.contains("notPropertyList"))
    }

    @Test func readsPathsFromStandardInput() throws {
        let samples = try makeSamples(count: 8, rows: 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: samples.path("archives")).sorted()
        let input =
            names.map { samples.path("archives/" + $0) }.joined(separator: "\n") + "\n\n"
            + samples.path("missing.plist")
        let result = try CLI.run(["batch", "--stdin", "--jobs", "2"], input: input)
        #expect(result.status == 1)
        let records = try result.records()
        try #require(records.count == 9)
        #expect(records.prefix(8).allSatisfy { $0["ok"] as? Bool == true })
        let missing = try #require(records.last?["error"] as? [String: Any])
        #expect(missing["code"] as? String == "fileError")
    }

    @Test func writesToAFileAndAddsGraphsWithJSON() throws {
        let samples = try makeSamples(count: 8, rows: 0)
        let output = samples.path("out.ndjson")
        let result = try CLI.run(["batch", samples.path("archives"), "--with-json", "-o", output, "--quiet"])
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.isEmpty, "--quiet prints no summary: \(result.stderr)")
        let lines = String(decoding: try Data(contentsOf: URL(fileURLWithPath: output)), as: UTF8.self)
            .split(separator: "\n").map(String.init)
        #expect(lines.count == 8)
        for line in lines {
            // "graph" is the last key; it nests as deeply as the archive (a chain is ~1,000 levels, more than
            // JSONSerialization accepts), so it is cut out as text and rebuilt with the package's own parser.
            let marker = try #require(line.range(of: ",\"graph\":"))
            let graphText = String(line[marker.upperBound...].dropLast())
            let record = try #require(
                try JSONSerialization.jsonObject(with: Data((line[..<marker.lowerBound] + "}").utf8)) as? [String: Any]
            )
            #expect(Set(record.keys) == Self.recordKeys)
            let path = try #require(record["path"] as? String)
            #expect(graphText.hasPrefix(#"{"$archiver":"NSKeyedArchiver""#))
            // The embedded graph is the `json` form: it rebuilds a graph equivalent to the file's.
            let rebuilt = try ArchiveGraph(json: graphText)
            #expect(rebuilt.isEquivalent(to: try ArchiveGraph(contentsOf: path)), "\(path)")
        }
    }

    @Test func printsNoProgressWhenStandardErrorIsNotATerminal() throws {
        let samples = try makeSamples(count: 16, rows: 0)
        let result = try CLI.run(["batch", samples.path("archives")])
        #expect(result.status == 0)
        #expect(!result.stderr.contains("\r"))
        #expect(!result.stderr.contains("\u{1B}"))
        #expect(!result.stderr.contains("ETA"))
        // Only the summary, one line.
        #expect(result.stderr.hasPrefix("batch: 16 inputs, 16 decoded, 0 failed"))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
    func drawsProgressOnATerminal() throws {
        // `script` gives the command a pseudo-terminal, so standard error is a TTY.
        let samples = try makeSamples(count: 16, rows: 0)
        let executable = try #require(CLI.executable)
        let log = samples.path("typescript")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = [
            "-qec", "\(executable.path) batch \(samples.path("archives")) -o \(samples.path("out.ndjson"))", log,
        ]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let screen = String(decoding: try Data(contentsOf: URL(fileURLWithPath: log)), as: UTF8.self)
        #expect(screen.contains("16/16 files"))
        #expect(screen.contains("files/s"))
        #expect(screen.contains("batch: 16 inputs, 16 decoded, 0 failed"))
    }

    @Test func usageErrorsExitTwo() throws {
        #expect(try CLI.run(["batch"]).status == 2)
        #expect(try CLI.run(["batch", "x", "--jobs", "0"]).status == 2)
        #expect(try CLI.run(["batch", "--sqlite", "/nonexistent/db.sqlite", "--query", "SELECT 1"]).status == 2)
        #expect(try CLI.run(["batch", "x", "-o", "/nonexistent/dir/out.ndjson"]).status == 2)
    }

    @Test(.enabled(if: SharedCorpus.isAvailable, "needs ../shared/corpus"))
    func decodesTheAppleCorpus() throws {
        let result = try CLI.run(["batch", SharedCorpus.directory.appendingPathComponent("apple").path, "--jobs", "2"])
        #expect(result.status == 0, "\(result.stderr)")
        let records = try result.records()
        try #require(records.count == 100)
        #expect(records.allSatisfy { $0["ok"] as? Bool == true })
    }

    // MARK: SQLite

    /// A database made here: archives, a NULL, a damaged blob and a plain plist in an `attributedBody` column.
    static func makeDatabase(in directory: TemporaryDirectory) throws -> (path: String, archives: [[UInt8]]) {
        let path = directory.path("chat.db")
        let database = try SQLiteDatabase(path: path, create: true)
        try database.execute(
            """
            CREATE TABLE message (
                ROWID INTEGER PRIMARY KEY, guid TEXT, is_from_me INTEGER, score REAL, attributedBody BLOB)
            """)
        let insert = try database.prepare("INSERT INTO message VALUES (?1, ?2, ?3, ?4, ?5)")
        var archives: [[UInt8]] = []
        for i in 1...5 {
            let archive = try KeyedArchiver.archivedData(withRootObject: ["text \(i)", "more"])
            archives.append([UInt8](archive))
            try insert.run([
                .integer(Int64(i)), .text("guid-\(i)"), .integer(Int64(i % 2)), .real(Double(i) / 2),
                .blob([UInt8](archive)),
            ])
        }
        try insert.run([.integer(6), .text("guid-6"), .integer(0), .null, .null])
        try insert.run([.integer(7), .text("guid-7"), .integer(1), .real(0), .blob(Array(archives[0].prefix(40)))])
        try insert.run([
            .integer(8), .text("guid-8"), .integer(1), .real(0),
            .blob(ArchiveValue.string("plain").binaryPropertyList()),
        ])
        return (path, archives)
    }

    @Test func decodesBlobsOfASQLiteQueryKeepingTheRowsColumns() throws {
        let directory = try TemporaryDirectory()
        let (database, archives) = try Self.makeDatabase(in: directory)
        let result = try CLI.run([
            "batch", "--sqlite", database, "--query",
            "SELECT ROWID, guid, is_from_me, score, attributedBody FROM message ORDER BY ROWID", "--jobs", "2",
        ])
        #expect(result.status == 1, "row 7 is a damaged archive")
        let records = try result.records()
        // Row 6's blob is NULL: no record, counted in the summary.
        try #require(records.count == 7)
        #expect(result.stderr.contains("NULL cells skipped: 1"))
        for (record, rowID) in zip(records, [1, 2, 3, 4, 5, 7, 8]) {
            #expect(Set(record.keys) == Self.recordKeys.union(["row", "column"]))
            #expect(record["path"] as? String == database)
            #expect(record["column"] as? String == "attributedBody")
            let row = try #require(record["row"] as? [String: Any])
            #expect(Set(row.keys) == ["ROWID", "guid", "is_from_me", "score"])
            #expect(row["ROWID"] as? Int == rowID)
            #expect(row["guid"] as? String == "guid-\(rowID)")
        }
        for record in records.prefix(5) {
            #expect(record["ok"] as? Bool == true)
            #expect(record["root_class"] as? String == "NSArray")
            #expect(record["bytes"] as? Int == archives[0].count || (record["bytes"] as? Int ?? 0) > 0)
        }
        #expect(records[5]["ok"] as? Bool == false)
        // A plain property list is content, not a failure.
        #expect(records[6]["ok"] as? Bool == true)
        #expect(records[6]["format"] as? String == "plain")
        #expect(records[6]["root_class"] as? String == "NSString")
    }

    @Test func picksTheBlobColumnByName() throws {
        let directory = try TemporaryDirectory()
        let (database, _) = try Self.makeDatabase(in: directory)
        let result = try CLI.run([
            "batch", "--sqlite", database, "--query", "SELECT attributedBody, guid FROM message WHERE ROWID <= 5",
            "--column", "attributedBody", "--with-json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let records = try result.records()
        try #require(records.count == 5)
        #expect(records.allSatisfy { ($0["row"] as? [String: Any]).map { Array($0.keys) } == ["guid"] })
        #expect(records.allSatisfy { $0["graph"] is [String: Any] })
        let wrongColumn = try CLI.run([
            "batch", "--sqlite", database, "--query", "SELECT guid FROM message", "--column", "nope",
        ])
        #expect(wrongColumn.status == 2)
        #expect(wrongColumn.stderr.contains("no column nope"))
        let badSQL = try CLI.run(["batch", "--sqlite", database, "--query", "SELEKT 1"])
        #expect(badSQL.status == 2)
    }

    @Test func decodesTheGeneratedMessagesDatabase() throws {
        let samples = try makeSamples(count: 0, rows: 20)
        let bodies = try CLI.run([
            "batch", "--sqlite", samples.path("messages.db"), "--query",
            "SELECT ROWID, guid, attributedBody FROM message",
        ])
        #expect(bodies.status == 0, "\(bodies.stderr)")
        let records = try bodies.records()
        try #require(records.count == 20)
        #expect(
            records.allSatisfy {
                ["NSAttributedString", "NSMutableAttributedString"].contains($0["root_class"] as? String)
            }
        )
        let payloads = try CLI.run([
            "batch", "--sqlite", samples.path("messages.db"), "--query",
            "SELECT ROWID, payload_data FROM message WHERE payload_data IS NOT NULL",
        ])
        #expect(payloads.status == 0)
        #expect(try payloads.records().count == 4)
    }
}
#endif
