/// The parser behind ``ArchivePath/init(parsing:)``: one pass over the UTF-8 bytes, no backtracking.
struct ArchivePathParser {
    /// The start of the `$top` syntax.
    static let top = Array("$top".utf8)

    let text: String
    let bytes: [UInt8]
    var i = 0

    init(text: String) {
        self.text = text
        bytes = Array(text.utf8)
    }

    /// `$top` then `.key`, `[…]` steps.
    mutating func parsePath() throws(ArchivePathError) -> [ArchivePath.Step] {
        guard bytes.starts(with: Self.top) else { throw error("a path starts with $top") }
        i = Self.top.count
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

    /// Keys separated by `.`; `\` before `.` or `\` makes it part of the key.
    mutating func parseKeyPath() throws(ArchivePathError) -> [ArchivePath.Step] {
        guard !bytes.isEmpty else {
            throw error("empty path: write a key path such as root.name, or a path such as $top.root")
        }
        var steps: [ArchivePath.Step] = []
        var key: [UInt8] = []
        while true {
            if i == bytes.count || bytes[i] == UInt8(ascii: ".") {
                guard !key.isEmpty else {
                    throw error("expected a key (a key path has no empty keys; write $top[\"\"] for one)")
                }
                steps.append(.key(String(decoding: key, as: UTF8.self)))
                key = []
                if i == bytes.count { return steps }
                i += 1
                continue
            }
            if bytes[i] == UInt8(ascii: "\\") {
                i += 1
                guard i < bytes.count, bytes[i] == UInt8(ascii: ".") || bytes[i] == UInt8(ascii: "\\") else {
                    throw error("only \\. and \\\\ may follow a backslash in a key path")
                }
            }
            key.append(bytes[i])
            i += 1
        }
    }

    /// After `[`: `*]`, an integer (`-` for from the end) then `]`, or a quoted key then `]`.
    private mutating func bracket() throws(ArchivePathError) -> ArchivePath.Step {
        guard i < bytes.count else { throw error("expected *, an index or a quoted key after '['") }
        let step: ArchivePath.Step
        switch bytes[i] {
        case UInt8(ascii: "*"):
            i += 1
            step = .all
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            step = .index(try integer())
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
            step = .key(String(decoding: key, as: UTF8.self))
        default:
            throw error("expected *, an index or a quoted key after '['")
        }
        guard i < bytes.count, bytes[i] == UInt8(ascii: "]") else { throw error("expected ']'") }
        i += 1
        return step
    }

    /// An optional `-` and decimal digits, accumulated toward the sign so that `Int.min` fits.
    private mutating func integer() throws(ArchivePathError) -> Int {
        let negative = bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        guard i < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) else {
            throw error("expected digits after '-'")
        }
        var value = 0
        while i < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) {
            let digit = Int(bytes[i] - UInt8(ascii: "0"))
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
            guard !o1, !o2 else { throw error("index too large") }
            value = sum
            i += 1
        }
        return value
    }

    private func error(_ reason: String) -> ArchivePathError {
        ArchivePathError(.invalidSyntax, path: text, step: nil, reason: reason, offset: i)
    }
}
