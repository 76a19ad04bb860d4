extension Typedstream {
    /// The events as stable text, one per line, indented by nesting, in the form python-typedstream's
    /// `python -m typedstream read` prints (bytes as Python `b'…'` literals, reals as Python `repr`), so that
    /// the two can be compared line for line. Classes, objects and C strings show their reference number.
    public func eventText() -> String {
        var out =
            "streamer version \(streamerVersion), byte order \(byteOrder.rawValue), system version \(systemVersion)\n\n"
        out.reserveCapacity(events.count * 24)
        var indent = 0
        var number = 0
        for event in events {
            switch event {
            case .endGroup, .endObject, .endArray, .endStruct: indent -= 1
            default: break
            }
            for _ in 0..<max(indent, 0) { out += "\t" }
            out += line(event)
            switch event {
            case .cString, .classInfo, .beginObject:
                out += " (#\(number))"
                number += 1
            case .beginGroup, .beginArray, .beginStruct: indent += 1
            default: break
            }
            if case .beginObject = event { indent += 1 }
            out += "\n"
        }
        return out
    }

    private func line(_ event: TypedstreamEvent) -> String {
        switch event {
        case .beginGroup(let types):
            let list = Self.splitEncodings(bytes(of: types)).map { Self.pythonBytes($0) }
            return "begin typed values (types [\(list.joined(separator: ", "))])"
        case .endGroup: return "end typed values"
        case .signed(let value, _): return String(value)
        case .unsigned(let value, let type):
            if type == UInt8(ascii: "B"), value <= 1 { return value == 1 ? "True" : "False" }
            return String(value)
        case .float(let value): return Self.pythonRepr(Double(value))
        case .double(let value): return Self.pythonRepr(value)
        case .nil, .ignored: return "None"
        case .cString(let s): return "C string: \(Self.pythonBytes(bytes(of: s)))"
        case .reference(let number, let kind):
            let name =
                switch kind {
                case .object: "object"
                case .class: "class"
                case .cString: "C string"
                }
            return "<reference to \(name) #\(number)>"
        case .atom(let s): return "atom: \(s.map { Self.pythonBytes(bytes(of: $0)) } ?? "None")"
        case .selector(let s): return "selector: \(s.map { Self.pythonBytes(bytes(of: $0)) } ?? "None")"
        case .string(let s): return Self.pythonBytes(bytes(of: s))
        case .classInfo(let name, let version):
            return "class \(Self.asciiEscaped(bytes(of: name))) v\(version)"
        case .beginObject: return "begin literal object"
        case .endObject: return "end literal object"
        case .byteArray(let s, let signed):
            return "byte array (element type \(signed ? "b'c'" : "b'C'")): \(Self.pythonBytes(bytes(of: s)))"
        case .beginArray(let encoding, let count):
            let text = bytes(of: encoding)
            let element = text.dropFirst().drop { $0 >= 0x30 && $0 <= 0x39 }.dropLast()
            return "begin array (element type \(Self.pythonBytes(element)), length \(count))"
        case .endArray: return "end array"
        case .beginStruct(let encoding):
            let text = bytes(of: encoding).dropFirst().dropLast()
            var name: ArraySlice<UInt8>?
            var fields = text
            let nested = text.firstIndex(of: UInt8(ascii: "{")) ?? text.endIndex
            if let equals = text[..<nested].firstIndex(of: UInt8(ascii: "=")) {
                name = text[..<equals]
                fields = text[(equals + 1)...]
            }
            let list = Self.splitEncodings(fields).map { Self.pythonBytes($0) }
            return
                "begin struct \(name.map { Self.asciiEscaped($0) } ?? "(no name)") (field types [\(list.joined(separator: ", "))])"
        case .endStruct: return "end struct"
        }
    }

    /// Splits a type-encoding string into its top-level types by bracket depth.
    static func splitEncodings(_ text: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var result: [ArraySlice<UInt8>] = []
        var start = text.startIndex
        var depth = 0
        for i in text.indices {
            let c = text[i]
            if c == UInt8(ascii: "[") || c == UInt8(ascii: "{") || c == UInt8(ascii: "(") {
                depth += 1
            } else if c == UInt8(ascii: "]") || c == UInt8(ascii: "}") || c == UInt8(ascii: ")") {
                depth -= 1
            }
            // A pointer belongs to the type after it.
            if depth == 0, c != UInt8(ascii: "^") {
                result.append(text[start...i])
                start = i + 1
            }
        }
        if start < text.endIndex { result.append(text[start...]) }
        return result
    }

    /// Bytes as Python's `repr` of a `bytes` object.
    static func pythonBytes(_ bytes: some Collection<UInt8>) -> String {
        let quote: UInt8 = bytes.contains(UInt8(ascii: "'")) && !bytes.contains(UInt8(ascii: "\"")) ? 0x22 : 0x27
        var out = "b" + String(UnicodeScalar(quote))
        for b in bytes {
            switch b {
            case UInt8(ascii: "\\"): out += "\\\\"
            case quote: out += "\\" + String(UnicodeScalar(quote))
            case 0x09: out += "\\t"
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x20..<0x7F: out.unicodeScalars.append(UnicodeScalar(b))
            default: out += "\\x" + (b < 16 ? "0" : "") + String(b, radix: 16)
            }
        }
        return out + String(UnicodeScalar(quote))
    }

    /// ASCII as is, other bytes as `\xNN` (Python's `decode("ascii", errors="backslashreplace")`).
    static func asciiEscaped(_ bytes: some Collection<UInt8>) -> String {
        var out = ""
        for b in bytes {
            if b < 0x80 { out.unicodeScalars.append(UnicodeScalar(b)) } else { out += "\\x" + String(b, radix: 16) }
        }
        return out
    }

    /// A double as Python's `repr`: the shortest round-tripping digits, fixed notation for decimal exponents
    /// from -4 to 15, scientific (`1e-05`, `1e+16`) outside.
    static func pythonRepr(_ value: Double) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value < 0 ? "-inf" : "inf" }
        if value == 0 { return value.sign == .minus ? "-0.0" : "0.0" }
        // Swift's description has the same shortest digits; take them and the exponent, then lay them out.
        var text = value.magnitude.description
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponent = Int(text[text.index(after: e)...]) ?? 0
            text = String(text[..<e])
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        let whole = String(parts[0])
        let fraction = parts.count > 1 ? String(parts[1]) : ""
        var digits = whole + fraction
        // The decimal point sits after `point` digits.
        var point = whole.count + exponent
        while digits.hasPrefix("0"), digits.count > 1 {
            digits.removeFirst()
            point -= 1
        }
        while digits.hasSuffix("0"), digits.count > 1 { digits.removeLast() }
        let sign = value < 0 ? "-" : ""
        if point > -4, point <= 16 {
            if point <= 0 { return sign + "0." + String(repeating: "0", count: -point) + digits }
            if point >= digits.count {
                return sign + digits + String(repeating: "0", count: point - digits.count) + ".0"
            }
            let cut = digits.index(digits.startIndex, offsetBy: point)
            return sign + digits[..<cut] + "." + digits[cut...]
        }
        let e = point - 1
        let mantissa = digits.count > 1 ? digits.prefix(1) + "." + digits.dropFirst() : digits
        return sign + mantissa + "e" + (e < 0 ? "-" : "+") + (abs(e) < 10 ? "0" : "") + String(abs(e))
    }
}
