/// Strings as JSON string literals: the one escaping rule of every JSON text the package and its commands print.
///
/// Quotes, backslashes and line breaks as `\"`, `\\`, `\n`, `\r`, `\t`; other control characters, and U+2028 and
/// U+2029 (line separators that JavaScript does not allow raw in a string), as `\uXXXX`; everything else as it
/// is. A literal's length is known before it is written, so a budgeted writer refuses it before building it:
/// a string of control characters takes six times its length.
package enum JSONStringLiteral {
    /// Appends `value`'s literal, quotes included, when it takes at most `maxLength` bytes; returns whether it did.
    /// Measured before anything is written, so a refused literal costs no memory.
    @discardableResult
    package static func append(_ value: String, to buffer: JSONTextBuffer, maxLength: Int = .max) -> Bool {
        var value = value
        return value.withUTF8 { utf8 in
            let length = length(utf8)
            guard length <= maxLength else { return false }
            buffer.append(length: length) { _ = write(utf8, into: $0) }
            return true
        }
    }

    /// `value`'s literal, quotes included.
    package static func quoted(_ value: String) -> String {
        var value = value
        return value.withUTF8 { utf8 in String(unsafeUninitializedCapacity: length(utf8)) { write(utf8, into: $0) } }
    }

    /// `value`'s literal, quotes included, or nil when it would take more than `maxLength` bytes (measured before
    /// anything is written).
    package static func quoted(_ value: String, maxLength: Int) -> String? {
        var value = value
        return value.withUTF8 { utf8 in
            let length = length(utf8)
            guard length <= maxLength else { return nil }
            return String(unsafeUninitializedCapacity: length) { write(utf8, into: $0) }
        }
    }

    /// How the byte at `i` of a string's UTF-8 is written.
    private enum Escape {
        /// As it is.
        case none
        /// As a backslash and this letter.
        case letter(UInt8)
        /// As `\uXXXX`, for `width` bytes of the input.
        case unicode(UInt32, width: Int)

        init(_ utf8: UnsafeBufferPointer<UInt8>, at i: Int) {
            switch utf8[i] {
            case UInt8(ascii: "\""): self = .letter(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): self = .letter(UInt8(ascii: "\\"))
            case 0x0A: self = .letter(UInt8(ascii: "n"))
            case 0x0D: self = .letter(UInt8(ascii: "r"))
            case 0x09: self = .letter(UInt8(ascii: "t"))
            case 0..<0x20: self = .unicode(UInt32(utf8[i]), width: 1)
            // U+2028 and U+2029 are E2 80 A8 and E2 80 A9.
            case 0xE2 where i + 2 < utf8.count && utf8[i + 1] == 0x80 && (utf8[i + 2] == 0xA8 || utf8[i + 2] == 0xA9):
                self = .unicode(utf8[i + 2] == 0xA8 ? 0x2028 : 0x2029, width: 3)
            default: self = .none
            }
        }
    }

    /// Whether `byte` is written as it is, without looking further: neither a quote, a backslash, a control
    /// character nor 0xE2, the first byte of U+2028 and U+2029. (The one test both passes below make first, so
    /// that a plain byte costs four comparisons and no ``Escape``.)
    @inline(__always)
    private static func isPlain(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") && byte != 0xE2
    }

    /// The literal's length: at most six bytes per byte of a string in memory, so the additions cannot overflow
    /// (they are wrapping ones, which keep the scan free of overflow branches).
    private static func length(_ utf8: UnsafeBufferPointer<UInt8>) -> Int {
        var length = 2
        var i = 0
        while i < utf8.count {
            if isPlain(utf8[i]) {
                length &+= 1
                i &+= 1
                continue
            }
            switch Escape(utf8, at: i) {
            case .none: length &+= 1; i &+= 1
            case .letter: length &+= 2; i &+= 1
            case .unicode(_, let width): length &+= 6; i &+= width
            }
        }
        return length
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Writes the literal into `out`, which holds exactly its ``length(_:)`` bytes; returns that length.
    private static func write(_ utf8: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>) -> Int {
        // Most strings need no escape: their literal is their bytes between quotes, copied as one block.
        if out.count == utf8.count + 2, let source = utf8.baseAddress, let target = out.baseAddress {
            target[0] = UInt8(ascii: "\"")
            (target + 1).initialize(from: source, count: utf8.count)
            target[utf8.count + 1] = UInt8(ascii: "\"")
            return out.count
        }
        var o = 0
        func put(_ byte: UInt8) {
            out[o] = byte
            o += 1
        }
        put(UInt8(ascii: "\""))
        var i = 0
        while i < utf8.count {
            if isPlain(utf8[i]) {
                put(utf8[i])
                i += 1
                continue
            }
            switch Escape(utf8, at: i) {
            case .none:
                put(utf8[i])
                i += 1
            case .letter(let letter):
                put(UInt8(ascii: "\\"))
                put(letter)
                i += 1
            case .unicode(let scalar, let width):
                put(UInt8(ascii: "\\"))
                put(UInt8(ascii: "u"))
                for shift: UInt32 in [12, 8, 4, 0] { put(hexDigits[Int((scalar >> shift) & 0xF)]) }
                i += width
            }
        }
        put(UInt8(ascii: "\""))
        return o
    }
}
