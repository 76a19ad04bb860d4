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
        JSONLine.appendString(key, to: &text)
        text += ":"
        text += json
    }

    mutating func string(_ key: String, _ value: String?) {
        guard let value else { return raw(key, "null") }
        var quoted = ""
        JSONLine.appendString(value, to: &quoted)
        raw(key, quoted)
    }

    mutating func int(_ key: String, _ value: Int?) { raw(key, value.map(String.init) ?? "null") }

    mutating func bool(_ key: String, _ value: Bool) { raw(key, value ? "true" : "false") }

    /// A number with three decimals (milliseconds).
    mutating func milliseconds(_ key: String, _ value: Double) {
        raw(key, String(format: "%.3f", value))
    }

    /// The object's text with its closing brace.
    var finished: String { text + "}" }

    /// Appends `value` as a JSON string literal (quotes, backslash escapes, control characters as `\u00XX`).
    static func appendString(_ value: String, to out: inout String) {
        // Byte by byte into one buffer, appended once: every character to escape is ASCII, or U+2028/U+2029
        // (E2 80 A8/A9). Appending pieces through `unicodeScalars` made long strings of control characters cost
        // seconds.
        var bytes: [UInt8] = [UInt8(ascii: "\"")]
        bytes.reserveCapacity(value.utf8.count + 2)
        let utf8 = Array(value.utf8)
        var i = 0
        while i < utf8.count {
            let byte = utf8[i]
            switch byte {
            case UInt8(ascii: "\""): bytes.append(0x5C); bytes.append(byte)
            case UInt8(ascii: "\\"): bytes.append(0x5C); bytes.append(UInt8(ascii: "\\"))
            case 0x0A: bytes.append(0x5C); bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(0x5C); bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(0x5C); bytes.append(UInt8(ascii: "t"))
            case 0..<0x20: appendUnicodeEscape(UInt32(byte), to: &bytes)
            case 0xE2 where i + 2 < utf8.count && utf8[i + 1] == 0x80 && (utf8[i + 2] == 0xA8 || utf8[i + 2] == 0xA9):
                appendUnicodeEscape(utf8[i + 2] == 0xA8 ? 0x2028 : 0x2029, to: &bytes)
                i += 2
            default: bytes.append(byte)
            }
            i += 1
        }
        bytes.append(UInt8(ascii: "\""))
        out += String(decoding: bytes, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// `\uXXXX` for a scalar below 0x10000.
    private static func appendUnicodeEscape(_ value: UInt32, to bytes: inout [UInt8]) {
        bytes.append(0x5C)
        bytes.append(UInt8(ascii: "u"))
        bytes.append(hexDigits[Int((value >> 12) & 0xF)])
        bytes.append(hexDigits[Int((value >> 8) & 0xF)])
        bytes.append(hexDigits[Int((value >> 4) & 0xF)])
        bytes.append(hexDigits[Int(value & 0xF)])
    }

    /// `value` as a JSON string literal.
    static func quoted(_ value: String) -> String {
        var out = ""
        appendString(value, to: &out)
        return out
    }
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
