import AutoCodingFast

/// A JSON scalar token.
enum JSONScalar {
    case string(String)
    /// An integer (`integer`/`unsignedInteger`) or a real, as the text spelled it.
    case number(ArchiveValue)
    case bool(Bool)
    case null
}

/// An iterative JSON parser (RFC 8259) that reports structure to a ``GraphJSONBuilder``; nesting costs heap,
/// not stack.
enum JSONParser {
    static func parse(_ bytes: [UInt8], into builder: inout GraphJSONBuilder) throws {
        var scanner = Scanner(bytes: bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { scanner.i = 3 }
        // Open containers: `true` for an object, `false` for an array.
        var open: [Bool] = []
        do {
            parsing: while true {
                // A value is expected here.
                scanner.skipWhitespace()
                guard let byte = scanner.peek() else {
                    throw scanner.error("unexpected end of input, expected a value")
                }
                var finishedValue = true
                switch byte {
                case UInt8(ascii: "{"):
                    scanner.i += 1
                    try builder.beginObject()
                    scanner.skipWhitespace()
                    if scanner.peek() == UInt8(ascii: "}") {
                        scanner.i += 1
                        try builder.endObject()
                    } else {
                        open.append(true)
                        try builder.key(scanner.readKey())
                        finishedValue = false
                    }
                case UInt8(ascii: "["):
                    scanner.i += 1
                    try builder.beginArray()
                    scanner.skipWhitespace()
                    if scanner.peek() == UInt8(ascii: "]") {
                        scanner.i += 1
                        try builder.endArray()
                    } else {
                        open.append(false)
                        finishedValue = false
                    }
                case UInt8(ascii: "\""):
                    try builder.scalar(.string(scanner.readString()))
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    try builder.scalar(.number(scanner.readNumber()))
                case UInt8(ascii: "t"):
                    try scanner.readLiteral("true")
                    try builder.scalar(.bool(true))
                case UInt8(ascii: "f"):
                    try scanner.readLiteral("false")
                    try builder.scalar(.bool(false))
                case UInt8(ascii: "n"):
                    try scanner.readLiteral("null")
                    try builder.scalar(.null)
                default:
                    throw scanner.error("unexpected character \(Scanner.describe(byte)), expected a value")
                }
                guard finishedValue else { continue parsing }
                // After a value: a separator, a closing bracket, or the end of the document.
                while true {
                    scanner.skipWhitespace()
                    guard let isObject = open.last else {
                        guard scanner.peek() == nil else {
                            throw scanner.error("unexpected data after the end of the JSON value")
                        }
                        return
                    }
                    guard let next = scanner.peek() else {
                        throw scanner.error("unexpected end of input, expected ',' or '\(isObject ? "}" : "]")'")
                    }
                    scanner.i += 1
                    if next == UInt8(ascii: ",") {
                        if isObject { try builder.key(scanner.readKey()) }
                        continue parsing
                    } else if isObject && next == UInt8(ascii: "}") {
                        open.removeLast()
                        try builder.endObject()
                    } else if !isObject && next == UInt8(ascii: "]") {
                        open.removeLast()
                        try builder.endArray()
                    } else {
                        scanner.i -= 1
                        throw scanner.error(
                            "unexpected character \(Scanner.describe(next)), expected ',' or '\(isObject ? "}" : "]")'")
                    }
                }
            }
        } catch var error as ArchiveJSONError {
            // Builder errors know what is wrong but not where; the scanner knows where.
            if error.offset == nil { error.offset = scanner.i }
            throw error
        }
    }

    struct Scanner {
        let bytes: [UInt8]
        var i = 0

        func peek() -> UInt8? { i < bytes.count ? bytes[i] : nil }

        func error(_ reason: String) -> ArchiveJSONError { ArchiveJSONError(.invalidSyntax, reason, offset: i) }

        static func describe(_ byte: UInt8) -> String {
            (0x21..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
        }

        mutating func skipWhitespace() {
            while i < bytes.count {
                switch bytes[i] {
                case 0x20, 0x09, 0x0A, 0x0D: i += 1
                default: return
                }
            }
        }

        /// A key and its colon.
        mutating func readKey() throws -> String {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let key = try readString()
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else { throw error("expected ':' after the key") }
            i += 1
            return key
        }

        mutating func readLiteral(_ word: String) throws {
            let utf8 = Array(word.utf8)
            guard bytes.count - i >= utf8.count, bytes[i..<(i + utf8.count)].elementsEqual(utf8) else {
                throw error("invalid literal, expected '\(word)'")
            }
            i += utf8.count
        }

        mutating func readString() throws -> String {
            i += 1  // the opening quote
            var buffer: [UInt8] = []
            var runStart = i
            while true {
                guard i < bytes.count else { throw error("unterminated string") }
                let byte = bytes[i]
                if byte == UInt8(ascii: "\"") {
                    buffer.append(contentsOf: bytes[runStart..<i])
                    i += 1
                    break
                }
                if byte < 0x20 { throw error("control character \(Scanner.describe(byte)) in a string") }
                guard byte == UInt8(ascii: "\\") else {
                    i += 1
                    continue
                }
                buffer.append(contentsOf: bytes[runStart..<i])
                i += 1
                guard i < bytes.count else { throw error("unterminated escape") }
                let escaped = bytes[i]
                i += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(escaped)
                case UInt8(ascii: "b"): buffer.append(0x08)
                case UInt8(ascii: "f"): buffer.append(0x0C)
                case UInt8(ascii: "n"): buffer.append(0x0A)
                case UInt8(ascii: "r"): buffer.append(0x0D)
                case UInt8(ascii: "t"): buffer.append(0x09)
                case UInt8(ascii: "u"):
                    var code = try readHex4()
                    if (0xD800..<0xDC00).contains(code) {
                        guard bytes.count - i >= 6, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u")
                        else { throw error("unpaired UTF-16 surrogate in \\u escape") }
                        i += 2
                        let low = try readHex4()
                        guard (0xDC00..<0xE000).contains(low) else {
                            throw error("unpaired UTF-16 surrogate in \\u escape")
                        }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else {
                        throw error("unpaired UTF-16 surrogate in \\u escape")
                    }
                    buffer.append(contentsOf: String(Character(scalar)).utf8)
                default:
                    i -= 1
                    throw error("invalid escape \\\(Character(Unicode.Scalar(escaped)))")
                }
                runStart = i
            }
            guard let string = String(validating: buffer, as: UTF8.self) else {
                throw error("invalid UTF-8 in a string")
            }
            return string
        }

        private mutating func readHex4() throws -> UInt32 {
            guard bytes.count - i >= 4 else { throw error("truncated \\u escape") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let c = bytes[i]
                let digit: UInt8
                switch c {
                case 0x30...0x39: digit = c - 0x30
                case 0x41...0x46: digit = c - 0x41 + 10
                case 0x61...0x66: digit = c - 0x61 + 10
                default: throw error("invalid hex digit in \\u escape")
                }
                value = value << 4 | UInt32(digit)
                i += 1
            }
            return value
        }

        /// A number per the JSON grammar: integers stay integers (signed, then unsigned), anything with a
        /// fraction or exponent is a real.
        mutating func readNumber() throws -> ArchiveValue {
            let start = i
            func digits() -> Int {
                let from = i
                while i < bytes.count, (0x30...0x39).contains(bytes[i]) { i += 1 }
                return i - from
            }
            if peek() == UInt8(ascii: "-") { i += 1 }
            let intStart = i
            guard digits() > 0 else { throw error("invalid number") }
            if bytes[intStart] == UInt8(ascii: "0") && i - intStart > 1 {
                throw ArchiveJSONError(.invalidSyntax, "invalid number: leading zero", offset: intStart)
            }
            var isReal = false
            if peek() == UInt8(ascii: ".") {
                i += 1
                isReal = true
                guard digits() > 0 else { throw error("invalid number: no digits after '.'") }
            }
            if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
                i += 1
                isReal = true
                if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { i += 1 }
                guard digits() > 0 else { throw error("invalid number: no digits in the exponent") }
            }
            let text = String(decoding: bytes[start..<i], as: UTF8.self)
            if !isReal {
                if let value = Int64(text) { return .integer(value) }
                if let value = UInt64(text) { return .unsignedInteger(value) }
            }
            guard let value = Double(text) else {
                throw ArchiveJSONError(.invalidSyntax, "invalid number \(text)", offset: start)
            }
            return .real(value)
        }
    }
}
