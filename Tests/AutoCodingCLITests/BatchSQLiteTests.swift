// The commands are the `_AutoCodingCommands` library; until the package declares it, these tests build empty.
#if canImport(_AutoCodingCommands)
import AutoCoding
import Foundation
import Testing
import _AutoCodingTestSupport

@testable import _AutoCodingCommands

/// `batch --sqlite` on databases that are not what they should be: read-only and bounded.
@Suite("batch --sqlite, bad databases")
struct BatchSQLiteTests {
    /// A `message` table of two archives and a NULL, in a database of `journal` mode, closed again.
    static func makeDatabase(at path: String, journal: String = "DELETE") throws {
        let database = try SQLiteDatabase(path: path, create: true)
        try database.execute("PRAGMA journal_mode=\(journal)")
        try database.execute("CREATE TABLE message (ROWID INTEGER PRIMARY KEY, attributedBody BLOB)")
        let insert = try database.prepare("INSERT INTO message VALUES (?1, ?2)")
        for i in 1...2 {
            try insert.run([.integer(Int64(i)), .blob([UInt8](try KeyedArchiver.archivedData(withRootObject: [i])))])
        }
        try insert.run([.integer(3), .null])
        // A view that never ends: ordering it (as --table does) never returns a first row.
        try database.execute(
            """
            CREATE VIEW endless AS WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n)
            SELECT x AS ROWID, x AS attributedBody FROM n
            """)
    }

    static func table(_ database: String, _ table: String, _ column: String = "attributedBody") -> [String] {
        ["batch", "--sqlite", database, "--table", table, "--column", column]
    }

    @Test func aRecursiveViewEndsAtTheTimeLimit() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("chat.db")
        try Self.makeDatabase(at: path)
        let start = Date()
        let result = try CLI.run(Self.table(path, "endless") + ["--sqlite-timeout", "0.5"])
        #expect(Date().timeIntervalSince(start) < 5)
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("more than 0.5 s without returning a row"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test(arguments: [
        ("not SQLite", "the file is not a SQLite database"),
        ("empty file", "the file is an empty file"),
        ("no table", "there is no table or view named nope"),
        ("no column", "table message has no column body (it has ROWID, attributedBody)"),
        ("locked", "database is locked"),
    ])
    func aBadDatabaseIsOneLineAndExitTwo(problem: String, message: String) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("chat.db")
        var arguments = Self.table(path, "message")
        var lock: SQLiteDatabase?
        switch problem {
        case "not SQLite": try Data("just text, long enough to look like a header of something".utf8 + [UInt8](repeating: 0, count: 100)).write(to: URL(fileURLWithPath: path))
        case "empty file": try Data().write(to: URL(fileURLWithPath: path))
        case "no table":
            try Self.makeDatabase(at: path)
            arguments = Self.table(path, "nope")
        case "no column":
            try Self.makeDatabase(at: path)
            arguments = Self.table(path, "message", "body")
        default:
            try Self.makeDatabase(at: path)
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        if problem == "locked" {
            // After the read above: closing any descriptor of the file drops this process's POSIX locks.
            lock = try SQLiteDatabase(path: path, create: true)
            try lock?.execute("BEGIN EXCLUSIVE; INSERT INTO message VALUES (9, NULL)")
        }
        let result = try CLI.run(arguments)
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("error: "))
        #expect(result.stderr.contains(path))
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        try lock?.execute("ROLLBACK")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    /// A WAL database whose side files are gone (everything is in the main file) is read without creating
    /// `-wal` or `-shm` and without changing a byte.
    @Test func aWALDatabaseIsReadWithoutSideFiles() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("chat.db")
        try Self.makeDatabase(at: path, journal: "WAL")
        let manager = FileManager.default
        #expect(!manager.fileExists(atPath: path + "-wal"), "closing the last connection removes them")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(before[18] == 2, "WAL mode")
        let result = try CLI.run(Self.table(path, "message") + ["--isolate"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.records().count == 2)
        #expect(result.stderr.contains("NULL cells skipped: 1"))
        #expect(!manager.fileExists(atPath: path + "-wal"))
        #expect(!manager.fileExists(atPath: path + "-shm"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)

        // With a -wal file but no -shm, reading would create the -shm: refused.
        try Data().write(to: URL(fileURLWithPath: path + "-wal"))
        let refused = try CLI.run(Self.table(path, "message"))
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("no -shm file"))
        #expect(!manager.fileExists(atPath: path + "-shm"))
    }

    /// Hostile blobs in rows are those rows' records; the run reads every row.
    @Test func hostileBlobsAreTheirRowsRecords() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("chat.db")
        let database = try SQLiteDatabase(path: path, create: true)
        try database.execute("CREATE TABLE message (ROWID INTEGER PRIMARY KEY, attributedBody BLOB)")
        let insert = try database.prepare("INSERT INTO message VALUES (?1, ?2)")
        let good = [UInt8](try KeyedArchiver.archivedData(withRootObject: ["good"]))
        let blobs: [SQLiteValue] = [
            .blob(good),
            .blob(Array("bplist00".utf8) + [UInt8](repeating: 0xFF, count: 40)),  // A trailer of nonsense.
            .blob(Array(good.prefix(good.count / 2))),  // Cut in half.
            .blob(Array("streamtyped".utf8)),  // A typedstream signature and nothing else.
            .integer(7),
            .blob(good),
        ]
        for (i, blob) in blobs.enumerated() { try insert.run([.integer(Int64(i + 1)), blob]) }
        for isolate in [false, true] {
            let result = try CLI.run(Self.table(path, "message") + (isolate ? ["--isolate"] : []))
            #expect(result.status == 1)
            let records = try result.records()
            #expect(records.map { $0["ok"] as? Bool } == [true, false, false, false, false, true])
            #expect(records.dropFirst().dropLast().allSatisfy {
                (($0["error"] as? [String: Any])?["reason"] as? String)?.isEmpty == false
            })
        }
    }
}
#endif
