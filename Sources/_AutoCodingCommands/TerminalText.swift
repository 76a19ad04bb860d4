/// Text from archives and databases made safe for a terminal: class names, keys and strings are input, and an
/// escape sequence in one (`ESC ] 52` writes the clipboard, `ESC [ 2 J` clears the screen) or a bidirectional
/// override (which reorders what the reader sees) must print as text, not act.
///
/// Every human-readable printer (`inspect`, `validate`, `events`, `messages`, error messages) passes its lines
/// through ``escaped(_:keepingNewlines:)``; JSON bound for a terminal goes through ``jsonEscaped(_:)``.
enum TerminalText {
    /// `text` with C0 controls, DEL, C1 controls (U+0080…U+009F) and bidirectional overrides spelled as
    /// `\u{1B}`; tabs are kept, and newlines and carriage returns too when `keepingNewlines` (multi-line text
    /// whose lines the printer made, quoted CSV fields).
    static func escaped(_ text: String, keepingNewlines: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0, keepingNewlines: keepingNewlines) }) else {
            return text
        }
        // UTF-8 out, with no String made per escaped scalar: a class name of 58,000 ESC characters printed at
        // every reference must still cost milliseconds.
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 16)
        let hex = Array("0123456789ABCDEF".utf8)
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar, keepingNewlines: keepingNewlines) else {
                out.append(contentsOf: UTF8.encode(scalar)!)
                continue
            }
            out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "{")])
            var digits: [UInt8] = []
            var value = scalar.value
            repeat {
                digits.append(hex[Int(value & 0xF)])
                value >>= 4
            } while value != 0
            out.append(contentsOf: digits.reversed())
            out.append(UInt8(ascii: "}"))
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// JSON text with the characters ``needsEscape(_:keepingNewlines:)`` names written as `\uXXXX` escapes
    /// (JSON itself escapes only C0): the same JSON value, safe on a terminal.
    static func jsonEscaped(_ json: String) -> String {
        guard json.unicodeScalars.contains(where: { needsEscape($0) }) else { return json }
        var out = String.UnicodeScalarView()
        for scalar in json.unicodeScalars {
            if needsEscape(scalar) {
                out.append(contentsOf: String(format: "\\u%04x", scalar.value).unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// Whether `scalar` must not reach a terminal as itself. Keeping newlines keeps the line feed only: a carriage
    /// return sends the cursor back to the start of the line, so archive text after it would print over what
    /// the line showed before.
    static func needsEscape(_ scalar: Unicode.Scalar, keepingNewlines: Bool = false) -> Bool {
        switch scalar.value {
        case 0x09: false
        case 0x0A: !keepingNewlines
        case 0x00..<0x20, 0x7F..<0xA0, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
