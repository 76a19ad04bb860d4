/// Number spellings shared by the writer and the reader.
enum JSONNumberText {
    /// A finite `Double` as JSON: Swift's shortest round-trip spelling, which always has a `.` or an exponent,
    /// so the reader can tell a real `1.0` from an integer `1`.
    static func real(_ value: Double) -> String {
        let text = value.description
        // Scanned as bytes: the spelling is ASCII, and a scan by `Character` pays for grapheme breaking.
        return text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") })
            ? text : text + ".0"
    }

    /// `nan`, `inf` or `-inf`, for the values JSON numbers cannot spell.
    static func nonFinite(_ value: Double) -> String {
        value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf")
    }

    /// The value of a non-finite spelling.
    static func nonFinite(_ text: String) -> Double? {
        switch text {
        case "nan": .nan
        case "inf", "+inf": .infinity
        case "-inf": -.infinity
        default: nil
        }
    }
}
