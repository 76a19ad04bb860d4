/// A path into an archived object graph, with keys exactly as stored: `$top.root["NS.objects"][3].name`.
///
/// | step       | on `$top`, an instance or an in-place dictionary | on an array | on an `NSArray`/`NSDictionary`-like instance |
/// |------------|--------------------------------------------------|-------------|----------------------------------------------|
/// | `.key`     | the value stored under `key`                     | error       | the field `key` (`.NS.count` is not valid: use `["NS.count"]`) |
/// | `["key"]`  | the same, for any key (with `.`, `[`, spaces)   | error       | the field, else the element whose key is `key` |
/// | `[i]`      | error                                            | element `i` | element `i` of `NS.objects`                  |
/// | `[*]`      | every value of an in-place dictionary            | every element | every element of `NS.objects`              |
///
/// UIDs are followed before every step, so `.root.name` reads the `name` field of the object `root` refers to.
/// A path always starts at `$top`; `$top[*]` gives every `$top` entry. Inside `["…"]`, `\"` and `\\` stand for `"` and `\`.
public struct ArchivePath: Sendable, Hashable, CustomStringConvertible {
    /// One step after `$top`.
    public enum Step: Sendable, Hashable, CustomStringConvertible {
        /// `.key`: a key of `$top`, an instance or an in-place dictionary.
        case key(String)
        /// `["key"]`: like ``key(_:)``, and also an element of an `NSDictionary`-like instance.
        case subscriptKey(String)
        /// `[i]`: an element of an array or of an `NSArray`-like instance.
        case index(Int)
        /// `[*]`: every element.
        case all

        /// The step as written in a path.
        public var description: String {
            switch self {
            case .key(let key): return "." + key
            case .subscriptKey(let key):
                return "[\"" + key.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"]"
            case .index(let i): return "[\(i)]"
            case .all: return "[*]"
            }
        }
    }

    /// The steps after `$top`.
    public var steps: [Step]

    /// The path's text as it would be parsed back.
    public var description: String { "$top" + steps.map(\.description).joined() }

    /// How many values a path may reach in an archive of `inputBytes` bytes: one per byte, and at least 4,096.
    ///
    /// Values reached along distinct references cost at least a byte of reference each, so a path over a tree
    /// stays within it; only `[*]` fanning out again over shared references (an array holding one array a
    /// thousand times, twice over) passes it, and would otherwise multiply its results at every step.
    public static func fanOutBudget(forInputBytes inputBytes: Int) -> Int { max(inputBytes, 4096) }

    /// The error for a fan-out past `limit` values at `step`.
    static func fanOutExceeded(_ path: ArchivePath, step: Int, limit: Int) -> ArchivePathError {
        ArchivePathError(
            .limitExceeded, path: path.description, step: step,
            reason: "\(path.steps[step - 1]): the path reaches more than \(limit) values, its fan-out budget "
                + "(one per input byte): [*] repeats shared references")
    }

    /// Whether a step fans out, so the path can give any number of values.
    public var fansOut: Bool { steps.contains(.all) }

    /// Creates a path from steps.
    public init(steps: [Step]) { self.steps = steps }

    /// Parses a path such as `$top.root["NS.objects"][*].name`. Throws ``ArchivePathError`` with the byte
    /// offset of the first character that does not fit.
    public init(parsing text: String) throws(ArchivePathError) {
        var parser = ArchivePathParser(text: text)
        steps = try parser.parse()
    }
}

/// The parser behind ``ArchivePath/init(parsing:)``: one pass over the UTF-8 bytes, no backtracking.
private struct ArchivePathParser {
    let text: String
    let bytes: [UInt8]
    var i = 0

    init(text: String) {
        self.text = text
        bytes = Array(text.utf8)
    }

    mutating func parse() throws(ArchivePathError) -> [ArchivePath.Step] {
        let start = Array("$top".utf8)
        guard bytes.starts(with: start) else { throw error("a path starts with $top") }
        i = start.count
        var steps: [ArchivePath.Step] = []
        while i < bytes.count {
            switch bytes[i] {
            case UInt8(ascii: "."):
                i += 1
                let begin = i
                while i < bytes.count, bytes[i] != UInt8(ascii: "."), bytes[i] != UInt8(ascii: "[") { i += 1 }
                guard i > begin else { throw error("expected a key after '.'") }
                steps.append(.key(String(decoding: bytes[begin..<i], as: UTF8.self)))
            case UInt8(ascii: "["):
                i += 1
                steps.append(try bracket())
            default:
                throw error("expected '.' or '['")
            }
        }
        return steps
    }

    /// After `[`: `*]`, digits then `]`, or a quoted key then `]`.
    private mutating func bracket() throws(ArchivePathError) -> ArchivePath.Step {
        guard i < bytes.count else { throw error("expected *, an index or a quoted key after '['") }
        let step: ArchivePath.Step
        switch bytes[i] {
        case UInt8(ascii: "*"):
            i += 1
            step = .all
        case UInt8(ascii: "0")...UInt8(ascii: "9"):
            var value = 0
            while i < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) {
                let (times, o1) = value.multipliedReportingOverflow(by: 10)
                let (sum, o2) = times.addingReportingOverflow(Int(bytes[i] - UInt8(ascii: "0")))
                guard !o1, !o2 else { throw error("index too large") }
                value = sum
                i += 1
            }
            step = .index(value)
        case UInt8(ascii: "\""):
            i += 1
            var key: [UInt8] = []
            while true {
                guard i < bytes.count else { throw error("unterminated quoted key") }
                let c = bytes[i]
                i += 1
                if c == UInt8(ascii: "\"") { break }
                if c == UInt8(ascii: "\\") {
                    guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") || bytes[i] == UInt8(ascii: "\\") else {
                        throw error("only \\\" and \\\\ may follow a backslash")
                    }
                    key.append(bytes[i])
                    i += 1
                } else {
                    key.append(c)
                }
            }
            step = .subscriptKey(String(decoding: key, as: UTF8.self))
        default:
            throw error("expected *, an index or a quoted key after '['")
        }
        guard i < bytes.count, bytes[i] == UInt8(ascii: "]") else { throw error("expected ']'") }
        i += 1
        return step
    }

    private func error(_ reason: String) -> ArchivePathError {
        ArchivePathError(.invalidSyntax, path: text, step: nil, reason: reason, offset: i)
    }
}
