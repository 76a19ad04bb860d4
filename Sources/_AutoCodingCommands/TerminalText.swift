/// Text from archives made safe for a terminal: class names, keys and strings are input, and an escape sequence
/// in one (`ESC ] 52` writes the clipboard, `ESC [ 2 J` clears the screen) must print as text, not act.
///
/// Every human-readable printer (`inspect`, `validate`, `events`, error messages) passes its lines through
/// ``escaped(_:keepingNewlines:)``. JSON output escapes C0 controls itself (`\u001b`).
enum TerminalText {
    /// `text` with C0 controls, DEL and C1 controls (U+0080…U+009F) spelled as `\u{1B}`; tabs are kept, and
    /// newlines too when `keepingNewlines` (for multi-line text whose lines the printer made).
    static func escaped(_ text: String, keepingNewlines: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0, keepingNewlines) }) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if needsEscape(scalar, keepingNewlines) {
                out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    private static func needsEscape(_ scalar: Unicode.Scalar, _ keepingNewlines: Bool) -> Bool {
        switch scalar.value {
        case 0x09: false
        case 0x0A: !keepingNewlines
        case 0x00..<0x20, 0x7F..<0xA0: true
        default: false
        }
    }
}
