/// A scan of an XML plist that follows libplist's tokenizer (src/xplist.c: `node_from_xml`, `get_text_parts`,
/// `find_str`, `find_next`), so that what it counts is what libplist will build.
///
/// Before libplist runs it checks the nesting depth, the element count and the text of each `<integer>`,
/// `<real>`, `<date>` and `<data>`; it records each dictionary's number of keys for the repeated-key check
/// after parsing. Comments, CDATA sections, processing instructions and the DOCTYPE are skipped as libplist
/// skips them (quoted text inside tags, `<?...?>` and the DOCTYPE included), so a `</dict>` hidden in any of
/// them cannot lower the count. A closing tag with no open container is rejected: libplist rejects it too.
struct XMLScan {
    /// A `<dict>` (or `<dict/>`) of the document: where it starts and how many keys it holds.
    struct Dictionary {
        let offset: Int
        var keys: Int
    }

    /// An open container; in a dictionary, whether the last `<key>` still waits for its value.
    private struct Frame {
        let dictionary: Int?
        var awaitingValue = false
    }

    private enum Scalar: String, CaseIterable {
        case integer, real, date, data

        /// The element's name.
        var name: StaticString {
            switch self {
            case .integer: "integer"
            case .real: "real"
            case .date: "date"
            case .data: "data"
            }
        }
    }

    private let bytes: UnsafeRawBufferPointer
    private let options: ArchiveReadingOptions
    private var i = 0
    private var frames: [Frame] = []
    private var elements = 0
    private var dictionaries: [Dictionary] = []
    /// The elements open at `i`, innermost last: where each name lies in `bytes`, and the offset of its start tag.
    private var openTags: [(name: Range<Int>, start: Int)] = []

    /// Scans `bytes` and returns every dictionary in document order, or throws what libplist must not see.
    static func scan(
        _ bytes: UnsafeRawBufferPointer,
        options: ArchiveReadingOptions
    ) throws(ArchiveError)
        -> [Dictionary]
    {
        var scan = XMLScan(bytes: bytes, options: options)
        try scan.run()
        return scan.dictionaries
    }

    private init(bytes: UnsafeRawBufferPointer, options: ArchiveReadingOptions) {
        self.bytes = bytes
        self.options = options
    }

    private mutating func run() throws(ArchiveError) {
        while i < bytes.count {
            guard bytes[i] == Self.ascii("<") else {
                i += 1
                continue
            }
            let start = i
            i += 1
            guard i < bytes.count else { return }  // libplist reports the truncated tag
            switch bytes[i] {
            case Self.ascii("?"):
                i = try skip(past: "?>", from: i + 1, quotes: true, what: "processing instruction", start)
            case Self.ascii("!"):
                try skipSpecial(start)
            default:
                try tag(start)
            }
        }
    }

    /// Skips `<!--...-->`, `<![CDATA[...]]>` or `<!DOCTYPE ...>` starting at `start`; `i` is at the `!`.
    private mutating func skipSpecial(_ start: Int) throws(ArchiveError) {
        if matches("!--", at: i) {
            i = try skip(past: "-->", from: i + 3, quotes: false, what: "comment", start)
        } else if matches("![CDATA[", at: i) {
            i = try skip(past: "]]>", from: i + 8, quotes: false, what: "CDATA section", start)
        } else if matches("!DOCTYPE", at: i) {
            i += 8
            while i < bytes.count {
                switch bytes[i] {
                case Self.ascii(">"):
                    i += 1
                    return
                case Self.ascii("["):
                    i = try skip(past: "]>", from: i + 1, quotes: true, what: "DOCTYPE", start)
                    return
                case Self.ascii("\""):
                    i = try skipQuoted(from: i, start)
                default:
                    i += 1
                }
            }
            throw Self.malformed("unterminated DOCTYPE at \(position(start))")
        } else {
            throw Self.malformed("unknown markup \"<!\" at \(position(start))")
        }
    }

    /// Reads the tag starting at `start` (`i` is just after its `<`) and updates the nesting.
    private mutating func tag(_ start: Int) throws(ArchiveError) {
        // The name runs to white space, '<' or '>'; then quoted attribute values are skipped up to '>'.
        let nameStart = i
        while i < bytes.count, !Self.isNameEnd(bytes[i]) { i += 1 }
        var nameEnd = i
        while i < bytes.count, bytes[i] != Self.ascii(">"), bytes[i] != Self.ascii("<") {
            if bytes[i] == Self.ascii("\"") { i = try skipQuoted(from: i, start) } else { i += 1 }
        }
        guard i < bytes.count, bytes[i] == Self.ascii(">") else {
            throw Self.malformed("the tag at \(position(start)) has no closing '>'")
        }
        let isEmpty = bytes[i - 1] == Self.ascii("/")
        i += 1
        if isEmpty, nameEnd > nameStart, bytes[nameEnd - 1] == Self.ascii("/") { nameEnd -= 1 }
        // The name is compared in place, byte for byte (no string is made per tag).
        let name = nameStart..<nameEnd

        if !name.isEmpty, bytes[nameStart] == Self.ascii("/") {
            // Every closing tag must close the element open last: libplist refuses a mismatch without saying
            // where, so the scan finds it first and names the line and column of both tags.
            let closed = nameStart + 1..<nameEnd
            guard let open = openTags.popLast() else {
                // libplist ignores a stray closing tag after the document (`</plist>` once a DOCTYPE swallowed
                // the start tag), but not one of a container.
                guard !nameIs("array", closed) && !nameIs("dict", closed) else {
                    throw Self.malformed(
                        "closing tag </\(text(closed))> at \(position(start)) has no open <array> or <dict>")
                }
                return
            }
            guard open.name.count == closed.count,
                BPlistBytes.equal(bytes, at: open.name.lowerBound, bytes, at: closed.lowerBound, count: closed.count)
            else {
                throw Self.malformed(
                    "closing tag </\(text(closed))> at \(position(start)) does not match <\(text(open.name))> at \(position(open.start))")
            }
            if nameIs("array", closed) || nameIs("dict", closed) { frames.removeLast() }
            return
        }
        if !isEmpty { openTags.append((name, start)) }
        if nameIs("plist", name) { return }

        elements += 1
        guard elements <= options.maxObjectCount else {
            throw ArchiveError(
                .limitExceeded,
                "XML plist has more than \(options.maxObjectCount) elements (maxObjectCount) at \(position(start))"
            )
        }
        // In a dictionary, libplist takes a <key> as a key only when no key waits for its value (and it is not
        // the empty <key/>, which it reads as a string value).
        if let top = frames.indices.last, let dictionary = frames[top].dictionary {
            if nameIs("key", name) && !isEmpty && !frames[top].awaitingValue {
                dictionaries[dictionary].keys += 1
                frames[top].awaitingValue = true
                return
            }
            frames[top].awaitingValue = false
        }
        if nameIs("array", name) || nameIs("dict", name) {
            var dictionary: Int? = nil
            if nameIs("dict", name) {
                dictionary = dictionaries.count
                dictionaries.append(Dictionary(offset: start, keys: 0))
            }
            guard !isEmpty else { return }
            frames.append(Frame(dictionary: dictionary))
            guard frames.count <= max(options.depthLimit, 1) else {
                throw ArchiveError(
                    .depthLimitExceeded,
                    "XML containers nest deeper than the depth limit \(max(options.depthLimit, 1)) at \(position(start))"
                )
            }
            return
        }
        guard let scalar = Scalar.allCases.first(where: { nameIs($0.name, name) }) else { return }
        guard !isEmpty else {
            // libplist reads <integer/>, <real/> and <date/> as 0; CoreFoundation rejects them.
            if scalar != .data { throw Self.badText(scalar, at: position(start), "nothing") }
            return
        }
        try checkText(of: scalar, start)
    }

    /// Whether the tag name at `range` of `bytes` is `name`.
    @inline(__always)
    private func nameIs(_ name: StaticString, _ range: Range<Int>) -> Bool {
        range.count == name.utf8CodeUnitCount && matches(name, at: range.lowerBound)
    }

    /// The text at `range` of `bytes`, for a message.
    private func text(_ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// Checks the text of a scalar element whose start tag ends just before `i`, leaving `i` at the `<` of the
    /// closing tag. Comments are skipped and CDATA sections are text, as in libplist's `get_text_parts`.
    private mutating func checkText(of scalar: Scalar, _ start: Int) throws(ArchiveError) {
        var text: [UInt8] = []  // integer, real and date text, at most `cap` bytes
        let cap = 1024
        var base64 = Base64Check()
        func take(_ segment: UnsafeRawBufferPointer) {
            if scalar == .data {
                base64.feed(segment)
            } else if text.count + segment.count <= cap {
                text.append(contentsOf: segment)
            } else {
                text.append(contentsOf: segment.prefix(cap + 1 - text.count))
            }
        }
        while true {
            let segmentStart = i
            while i < bytes.count, bytes[i] != Self.ascii("<") { i += 1 }
            take(UnsafeRawBufferPointer(rebasing: bytes[segmentStart..<i]))
            guard i < bytes.count else { throw Self.malformed("unterminated <\(scalar)> at \(position(start))") }
            if matches("<!--", at: i) {
                i = try skip(past: "-->", from: i + 4, quotes: false, what: "comment", i)
            } else if matches("<![CDATA[", at: i) {
                let contentStart = i + 9
                let end = try skip(past: "]]>", from: contentStart, quotes: false, what: "CDATA section", i)
                take(UnsafeRawBufferPointer(rebasing: bytes[contentStart..<end - 3]))
                i = end
            } else {
                break
            }
        }
        let trimmed = Self.trimmingWhiteSpace(text)
        let valid: Bool
        switch scalar {
        case .integer: valid = text.count <= cap && Self.isInteger(trimmed)
        case .real: valid = text.count <= cap && Double(String(decoding: trimmed, as: UTF8.self)) != nil
        case .date: valid = text.count <= cap && Self.isDate(trimmed)
        case .data: valid = base64.isValid
        }
        guard valid else {
            let shown =
                scalar == .data ? "invalid base64" : "\"\(String(decoding: trimmed.prefix(40), as: UTF8.self))\""
            throw Self.badText(scalar, at: position(start), shown)
        }
    }

    // MARK: Lexical helpers

    @inline(__always)
    private static func ascii(_ c: Unicode.Scalar) -> UInt8 { UInt8(ascii: c) }

    private static func isWhiteSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func isNameEnd(_ byte: UInt8) -> Bool {
        isWhiteSpace(byte) || byte == ascii("<") || byte == ascii(">")
    }

    private func matches(_ literal: StaticString, at offset: Int) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard count <= bytes.count - offset else { return false }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
            .elementsEqual(UnsafeRawBufferPointer(start: literal.utf8Start, count: count))
    }

    /// The offset just past the closing quote of the quoted text starting at `offset`.
    private func skipQuoted(from offset: Int, _ start: Int) throws(ArchiveError) -> Int {
        var j = offset + 1
        while j < bytes.count, bytes[j] != Self.ascii("\"") { j += 1 }
        guard j < bytes.count else { throw Self.malformed("unterminated quote in the markup at \(position(start))") }
        return j + 1
    }

    /// The offset just past the first `terminator` at or after `offset`, skipping quoted text if `quotes`.
    private func skip(
        past terminator: StaticString,
        from offset: Int,
        quotes: Bool,
        what: String,
        _ start: Int
    ) throws(ArchiveError) -> Int {
        var j = offset
        while j < bytes.count {
            if matches(terminator, at: j) { return j + terminator.utf8CodeUnitCount }
            if quotes, bytes[j] == Self.ascii("\"") { j = try skipQuoted(from: j, start) } else { j += 1 }
        }
        throw Self.malformed("unterminated \(what) at \(position(start))")
    }

    private static func trimmingWhiteSpace(_ text: [UInt8]) -> ArraySlice<UInt8> {
        guard let first = text.firstIndex(where: { !isWhiteSpace($0) }),
            let last = text.lastIndex(where: { !isWhiteSpace($0) })
        else { return [] }
        return text[first...last]
    }

    // MARK: Scalar text

    /// A decimal or `0x` hexadecimal integer with an optional sign, in `Int64.min...UInt64.max`.
    ///
    /// libplist reads integers with `strtoull(text, NULL, 0)`, which also takes octal after a leading 0 and
    /// stops at the first bad character; CoreFoundation reads decimal. Leading zeros are refused, since the
    /// two would disagree on them.
    private static func isInteger(_ text: ArraySlice<UInt8>) -> Bool {
        var digits = text
        var negative = false
        if let sign = digits.first, sign == ascii("-") || sign == ascii("+") {
            negative = sign == ascii("-")
            digits = digits.dropFirst()
        }
        var radix: UInt64 = 10
        if digits.count > 2, digits.first == ascii("0"), digits.dropFirst().first.map({ $0 | 0x20 }) == ascii("x") {
            radix = 16
            digits = digits.dropFirst(2)
        } else if digits.count > 1, digits.first == ascii("0") {
            return false
        }
        guard !digits.isEmpty else { return false }
        var value: UInt64 = 0
        for byte in digits {
            let digit: UInt64
            switch byte {
            case ascii("0")...ascii("9"): digit = UInt64(byte - ascii("0"))
            case ascii("a")...ascii("f") where radix == 16: digit = UInt64(byte - ascii("a") + 10)
            case ascii("A")...ascii("F") where radix == 16: digit = UInt64(byte - ascii("A") + 10)
            default: return false
            }
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: radix)
            let (next, overflow2) = shifted.addingReportingOverflow(digit)
            guard !overflow1, !overflow2 else { return false }
            value = next
        }
        return !negative || value <= UInt64(Int64.max) + 1
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`, the only form Apple writes and libplist's `strptime` format.
    private static func isDate(_ text: ArraySlice<UInt8>) -> Bool {
        let form = Array("0000-00-00T00:00:00Z".utf8)
        guard text.count == form.count else { return false }
        var fields: [Int] = []
        var field = 0
        for (byte, expected) in zip(text, form) {
            if expected == ascii("0") {
                guard byte >= ascii("0"), byte <= ascii("9") else { return false }
                field = field * 10 + Int(byte - ascii("0"))
            } else {
                guard byte == expected else { return false }
                fields.append(field)
                field = 0
            }
        }
        // fields: year, month, day, hour, minute, second
        return (1...12).contains(fields[1]) && (1...31).contains(fields[2]) && fields[3] <= 23 && fields[4] <= 59
            && fields[5] <= 60
    }

    /// Base64 as libplist decodes it: groups of four, `=` padding only at the end, white space anywhere.
    /// libplist drops an incomplete last group and skips bad characters, so both are refused here.
    private struct Base64Check {
        private var count = 0
        private var padding = 0
        private var bad = false

        var isValid: Bool { !bad && count % 4 == 0 }

        mutating func feed(_ segment: UnsafeRawBufferPointer) {
            for byte in segment where !XMLScan.isWhiteSpace(byte) {
                switch byte {
                case UInt8(ascii: "="):
                    padding += 1
                    if padding > 2 { bad = true }
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"):
                    if padding > 0 { bad = true }
                default:
                    bad = true
                }
                count += 1
            }
        }
    }

    /// `line L, column C` (1-based, columns in bytes) of a byte offset, for messages: counted only when an
    /// error is thrown, so scanning stays one pass.
    private func position(_ offset: Int) -> String {
        var line = 1
        var lineStart = 0
        for index in 0..<min(offset, bytes.count) where bytes[index] == 0x0A {
            line += 1
            lineStart = index + 1
        }
        return "line \(line), column \(offset - lineStart + 1)"
    }

    private static func malformed(_ reason: String) -> ArchiveError {
        ArchiveError(.notPropertyList, "malformed XML plist: \(reason)")
    }

    private static func badText(_ scalar: Scalar, at position: String, _ shown: String) -> ArchiveError {
        ArchiveError(
            .invalidObject,
            "XML <\(scalar.rawValue)> at \(position) holds \(shown), not a valid \(scalar.rawValue)"
        )
    }
}
