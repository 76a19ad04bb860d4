/// A value of one column of one SQLite row.
enum SQLiteValue: Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// A failure reported by SQLite: the call that failed, the result code and SQLite's message.
struct SQLiteError: Error, CustomStringConvertible {
    var operation: String
    var code: Int32
    var message: String

    var description: String { "\(operation): \(message) (SQLite code \(code))" }
}
