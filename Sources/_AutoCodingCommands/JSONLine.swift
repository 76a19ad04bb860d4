import AutoCodingCore
import Foundation

/// Builds one JSON object as text, keys in the order they are added: the records `batch` and
/// `validate --json` print, one per line (NDJSON).
///
/// Writing the text directly keeps the key order stable and costs a fraction of `JSONSerialization`, which
/// matters at tens of thousands of records per second.
struct JSONLine {
    private(set) var text = "{"
    private var isFirst = true

    /// Adds `"key": value` where value is already JSON text.
    mutating func raw(_ key: String, _ json: String) {
        if !isFirst { text += "," }
        isFirst = false
        text += JSONStringLiteral.quoted(key)
        text += ":"
        text += json
    }

    mutating func string(_ key: String, _ value: String?) {
        raw(key, value.map { JSONStringLiteral.quoted($0) } ?? "null")
    }

    mutating func int(_ key: String, _ value: Int?) { raw(key, value.map(String.init) ?? "null") }

    mutating func bool(_ key: String, _ value: Bool) { raw(key, value ? "true" : "false") }

    /// A number with three decimals (milliseconds).
    mutating func milliseconds(_ key: String, _ value: Double) {
        raw(key, String(format: "%.3f", value))
    }

    /// The object's text with its closing brace.
    var finished: String { text + "}" }
}

/// The stable code and human reason of any error the commands report, for NDJSON `error` objects and the
/// summary's failures-by-code table.
struct ErrorReport: Hashable {
    var code: String
    var reason: String

    init(code: String, reason: String) {
        self.code = code
        self.reason = reason
    }

    /// `ArchiveError`s give their stable code (`invalidUID`, `truncated` …); other failures get a code for
    /// their kind (`fileError`, `invalidJSON`, `sqliteError`, `roundTripMismatch`, `decodingError`).
    ///
    /// The NDJSON codes and reasons predate the library errors' codes and are kept as they were: a file
    /// failure is `fileError` (not `fileAccess`), and a path, JSON or typedstream error's reason is its
    /// located text without the library code.
    init(_ error: any Error) {
        switch error {
        case let error as ArchiveError where error.code == .fileAccess:
            self.init(code: "fileError", reason: error.reason)
        case let error as ArchiveError:
            self.init(code: error.code.description, reason: error.reason)
        case let error as ArchiveJSONError:
            self.init(code: "invalidJSON", reason: error.message)
        case let error as ArchivePathError:
            self.init(code: "error", reason: error.message)
        case let error as TypedstreamDecodingError:
            self.init(code: "error", reason: error.reason)
        case let error as SQLiteError:
            self.init(code: "sqliteError", reason: error.description)
        case let error as FileCheck.RoundTripMismatch:
            self.init(code: "roundTripMismatch", reason: error.description)
        case let error as FileCheck.StrictViolation:
            self.init(code: "notStrict", reason: error.description)
        case let error as DecodingError:
            self.init(code: "decodingError", reason: String(describing: error))
        default:
            self.init(code: "error", reason: String(describing: error))
        }
    }

    /// The text a command prints after `error: ` (or `FAIL path: `): an ``ArchiveError`` as `code: reason`, a
    /// file failure as its reason alone (it names the call, the path and the errno), any other error as its
    /// reason above. These are the messages the commands printed before every library error had a code.
    static func text(_ error: any Error) -> String {
        if let error = error as? ArchiveError, error.code != .fileAccess { return error.description }
        return ErrorReport(error).reason
    }

    /// Whether `error` is one of the library's errors, which ``text(_:)`` knows how to print.
    static func isLibraryError(_ error: any Error) -> Bool {
        error is ArchiveError || error is ArchivePathError || error is ArchiveJSONError
            || error is TypedstreamDecodingError
    }

    /// An error that describes itself as ``text(_:)`` prints it.
    struct Printed: Error, CustomStringConvertible {
        let description: String
        init(_ error: any Error) { description = ErrorReport.text(error) }
    }

    /// `{"code": …, "reason": …}`.
    var json: String {
        var line = JSONLine()
        line.string("code", code)
        line.string("reason", reason)
        return line.finished
    }
}
