#if canImport(CSQLite)
internal import CSQLite
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One SQLite connection, closed when the value goes away (the owning-wrapper shape of GRDB's `Database`).
///
/// Not thread-safe: one thread uses a connection and its statements at a time.
final class SQLiteDatabase {
    private let handle: OpaquePointer
    /// The most time one step of a statement may take, in seconds (nil: no limit); past it the step fails
    /// with an error that says so. Enforced by a progress handler, so it also ends a query that never
    /// returns a row, such as a sort over a recursive view.
    var timeLimit: Double?
    /// When the running step must end (monotonic nanoseconds), 0 between steps. Read by the progress handler.
    fileprivate var deadline: UInt64 = 0

    /// Opens the database at `path`: read-only by default, so that decoding a live `chat.db` never writes to
    /// it; with `create`, read-write and created if missing.
    ///
    /// Read-only opening leaves no file behind: a WAL database whose `-wal` file is absent (everything is in
    /// the main file) is opened `immutable`, so SQLite creates no `-wal` or `-shm` beside it; one with a
    /// `-wal` but no `-shm` is refused (reading it would create the `-shm`); a file that is not SQLite is
    /// refused before SQLite sees it. A locked database is waited for up to one second.
    init(path: String, create: Bool = false) throws {
        var raw: OpaquePointer?
        var filename = path
        var flags = create ? (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) : SQLITE_OPEN_READONLY
        if !create, try Self.needsImmutable(path) {
            filename = "file:" + Self.uriEscaped(path) + "?immutable=1"
            flags |= SQLITE_OPEN_URI
        }
        let code = sqlite3_open_v2(filename, &raw, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let raw else {
            let message = raw.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            if let raw { sqlite3_close_v2(raw) }
            throw SQLiteError(operation: "open \(path)", code: code, message: message)
        }
        handle = raw
        if !create { sqlite3_busy_timeout(raw, 1000) }
        sqlite3_progress_handler(
            raw,
            1000,
            { context in
                guard let context else { return 0 }
                let database = Unmanaged<SQLiteDatabase>.fromOpaque(context).takeUnretainedValue()
                return database.deadline != 0 && Monotonic.nanoseconds() > database.deadline ? 1 : 0
            },
            Unmanaged.passUnretained(self).toOpaque()
        )
    }

    /// Checks the header of the file to be opened read-only: throws if it is not a SQLite database or is a
    /// WAL database that cannot be read without creating a side file; returns whether to open it immutable.
    private static func needsImmutable(_ path: String) throws -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            throw SQLiteError(operation: "open \(path)", code: SQLITE_CANTOPEN, message: reason)
        }
        var header = [UInt8](repeating: 0, count: 100)
        let count = header.withUnsafeMutableBytes { read(fd, $0.baseAddress, 100) }
        close(fd)
        guard count == 100, header.starts(with: Array("SQLite format 3\0".utf8)) else {
            let what = count == 0 ? "an empty file" : "not a SQLite database"
            throw SQLiteError(operation: "open \(path)", code: SQLITE_NOTADB, message: "the file is \(what)")
        }
        // Bytes 18 and 19: the write and read format versions, 2 in WAL mode.
        guard header[18] == 2 || header[19] == 2 else { return false }
        let hasWAL = access(path + "-wal", F_OK) == 0
        let hasSHM = access(path + "-shm", F_OK) == 0
        if hasWAL && !hasSHM {
            throw SQLiteError(
                operation: "open \(path)",
                code: SQLITE_CANTOPEN,
                message: "a WAL database with a -wal file but no -shm file; reading it would create the -shm file "
                    + "(copy the database with all its side files, or checkpoint it with sqlite3)"
            )
        }
        return !hasWAL
    }

    /// `path` for a `file:` URI: every byte but unreserved characters and `/` percent-encoded.
    private static func uriEscaped(_ path: String) -> String {
        var out = ""
        for byte in path.utf8 {
            let scalar = Unicode.Scalar(byte)
            if scalar.properties.isASCIIHexDigit || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
                || "-._~/".unicodeScalars.contains(scalar)
            {
                out.unicodeScalars.append(scalar)
            } else {
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    deinit { sqlite3_close_v2(handle) }

    /// Runs one or more statements that return no rows.
    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        guard code == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? lastMessage
            sqlite3_free(message)
            throw SQLiteError(operation: "execute", code: code, message: text)
        }
    }

    /// Compiles one statement.
    func prepare(_ sql: String) throws -> SQLiteStatement {
        var raw: OpaquePointer?
        let code = sqlite3_prepare_v2(handle, sql, -1, &raw, nil)
        guard code == SQLITE_OK, let raw else {
            throw SQLiteError(
                operation: "prepare",
                code: code,
                message: code == SQLITE_OK ? "no statement in the SQL" : lastMessage
            )
        }
        return SQLiteStatement(raw, database: self)
    }

    var lastMessage: String { String(cString: sqlite3_errmsg(handle)) }
}

/// A compiled statement, finalized when the value goes away. It keeps its database open.
final class SQLiteStatement {
    private let handle: OpaquePointer
    private let database: SQLiteDatabase

    fileprivate init(_ handle: OpaquePointer, database: SQLiteDatabase) {
        self.handle = handle
        self.database = database
    }

    deinit { sqlite3_finalize(handle) }

    /// The number of columns of each result row.
    var columnCount: Int { Int(sqlite3_column_count(handle)) }

    /// The name of result column `index`.
    func columnName(_ index: Int) -> String {
        sqlite3_column_name(handle, Int32(index)).map { String(cString: $0) } ?? "column\(index)"
    }

    /// Whether the statement only reads (SQLite's own judgement, `sqlite3_stmt_readonly`).
    var isReadOnly: Bool { sqlite3_stmt_readonly(handle) != 0 }

    /// Binds `values` to the parameters `?1…?n`.
    func bind(_ values: [SQLiteValue]) throws {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .null: code = sqlite3_bind_null(handle, index)
            case .integer(let v): code = sqlite3_bind_int64(handle, index, v)
            case .real(let v): code = sqlite3_bind_double(handle, index, v)
            case .text(let v):
                code = v.utf8CString.withUnsafeBufferPointer {
                    CSQLite_bindTransientText(handle, index, $0.baseAddress, Int32($0.count - 1))
                }
            case .blob(let v):
                code = v.withUnsafeBytes {
                    CSQLite_bindTransientBlob(
                        handle,
                        index,
                        $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
                        Int32($0.count)
                    )
                }
            }
            guard code == SQLITE_OK else {
                throw SQLiteError(operation: "bind parameter \(index)", code: code, message: database.lastMessage)
            }
        }
    }

    /// Advances to the next row; false when there is none left. Fails when the step takes longer than the
    /// database's ``SQLiteDatabase/timeLimit``.
    func step() throws -> Bool {
        if let limit = database.timeLimit {
            database.deadline = Monotonic.nanoseconds() + UInt64(max(0, limit) * 1e9)
        }
        let code = sqlite3_step(handle)
        let interrupted = database.deadline != 0 && code == SQLITE_INTERRUPT
        database.deadline = 0
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case _ where interrupted:
            let seconds = database.timeLimit.map { WorkerFailure.seconds($0) } ?? "?"
            throw SQLiteError(
                operation: "step",
                code: code,
                message: "the query ran for more than \(seconds) s without returning a row (time limit; a recursive "
                    + "view or a sort of a huge table?)"
            )
        default: throw SQLiteError(operation: "step", code: code, message: database.lastMessage)
        }
    }

    /// Makes the statement ready to run again with new bindings.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Runs the statement once with `values`, for statements that return no rows.
    func run(_ values: [SQLiteValue]) throws {
        reset()
        try bind(values)
        while try step() {}
    }

    /// The value of column `index` of the current row.
    func value(_ index: Int) -> SQLiteValue {
        let column = Int32(index)
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(handle, column) else { return .text("") }
            let count = Int(sqlite3_column_bytes(handle, column))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return .blob([]) }
            return .blob([UInt8](UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }
}

#else

// Without the CSQLite system library (a build of these sources whose package does not declare it yet), the
// commands build and every database operation reports that SQLite is missing.

/// Stands in for the SQLite connection when the package is built without the CSQLite target.
final class SQLiteDatabase {
    var timeLimit: Double?
    init(path: String, create: Bool = false) throws { throw SQLiteDatabase.missing }
    func execute(_ sql: String) throws { throw SQLiteDatabase.missing }
    func prepare(_ sql: String) throws -> SQLiteStatement { throw SQLiteDatabase.missing }
    static var missing: SQLiteError {
        SQLiteError(operation: "open", code: 1, message: "this build of autocoding has no SQLite (the CSQLite target)")
    }
}

/// Stands in for a compiled statement when the package is built without the CSQLite target.
final class SQLiteStatement {
    private init() {}
    var columnCount: Int { 0 }
    func columnName(_ index: Int) -> String { "" }
    var isReadOnly: Bool { true }
    func bind(_ values: [SQLiteValue]) throws { throw SQLiteDatabase.missing }
    func step() throws -> Bool { throw SQLiteDatabase.missing }
    func reset() {}
    func run(_ values: [SQLiteValue]) throws { throw SQLiteDatabase.missing }
    func value(_ index: Int) -> SQLiteValue { .null }
}
#endif
