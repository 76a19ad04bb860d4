import AutoCodingCore
import Foundation

/// The SQLite input of `batch --sqlite`: the database opened read-only, the query checked and started.
enum BatchSQLite {
    /// `SELECT ROWID, "column" FROM "table" ORDER BY ROWID`, with identifiers quoted for SQL.
    static func tableQuery(table: String, column: String) -> String {
        func quoted(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        return "SELECT ROWID, \(quoted(column)) FROM \(quoted(table)) ORDER BY ROWID"
    }

    /// Opens the database read-only, checks `table` and `column` when given (`--table`), compiles the query
    /// and steps to its first row, so that every problem with the database (not SQLite, locked, no such
    /// table or column, a query past `timeLimit` seconds per row) is one error before any record. The blob
    /// column is `column` or the query's last one.
    static func source(
        database: String,
        query: String,
        table: String?,
        column: String?,
        timeLimit: Double,
        count: Bool
    ) throws -> SQLiteRowSource {
        do {
            return try makeSource(database, query, table, column, timeLimit, count)
        } catch let error as SQLiteError {
            // SQLite's messages do not say which file; a one-line error that does.
            let operation = error.operation.hasPrefix("open ") ? error.operation : "\(database): \(error.operation)"
            let interrupted = error.code == 9  // SQLITE_INTERRUPT: the time limit ended the step.
            throw SQLiteError(
                operation: operation,
                code: error.code,
                message: error.message + (interrupted ? " (--sqlite-timeout \(WorkerFailure.seconds(timeLimit)))" : "")
            )
        }
    }

    private static func makeSource(
        _ database: String,
        _ query: String,
        _ table: String?,
        _ column: String?,
        _ timeLimit: Double,
        _ count: Bool
    ) throws -> SQLiteRowSource {
        let connection = try SQLiteDatabase(path: database)
        connection.timeLimit = timeLimit
        if let table, let column { try check(connection, table: table, column: column) }
        let statement = try connection.prepare(query)
        guard statement.columnCount > 0 else {
            throw SQLiteError(operation: "prepare", code: 1, message: "the query returns no columns")
        }
        let names = (0..<statement.columnCount).map(statement.columnName)
        let blobColumn: Int
        if let column {
            guard let index = names.firstIndex(of: column) else {
                throw SQLiteError(
                    operation: "--column",
                    code: 1,
                    message: "the query has no column \(column) (it has \(names.joined(separator: ", ")))"
                )
            }
            blobColumn = index
        } else {
            blobColumn = names.count - 1
        }
        var total: Int?
        if count {
            // For the progress bar's ETA only, with a shorter time limit: a query SQLite cannot wrap, or cannot
            // count quickly, runs without a total.
            connection.timeLimit = min(timeLimit, 2)
            let trimmed = query.trimmingCharacters(in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: ";")))
            if let counter = try? connection.prepare("SELECT count(*) FROM (\(trimmed))"),
                (try? counter.step()) == true,
                case .integer(let n) = counter.value(0)
            {
                total = Int(n)
            }
            connection.timeLimit = timeLimit
        }
        return try SQLiteRowSource(statement: statement, database: database, blobColumn: blobColumn, total: total)
    }

    /// Throws a clear error when the database has no table or view `table`, or it has no column `column`.
    private static func check(_ connection: SQLiteDatabase, table: String, column: String) throws {
        let info = try connection.prepare("SELECT name FROM pragma_table_info(?1)")
        try info.bind([.text(table)])
        var names: [String] = []
        while try info.step() {
            if case .text(let name) = info.value(0) { names.append(name) }
        }
        guard !names.isEmpty else {
            throw SQLiteError(operation: "--table", code: 1, message: "there is no table or view named \(table)")
        }
        guard names.contains(column) else {
            throw SQLiteError(
                operation: "--column",
                code: 1,
                message: "table \(table) has no column \(column) (it has \(names.joined(separator: ", ")))"
            )
        }
    }
}
