/// Text with attribute runs, as `NSAttributedString` archives it (`NSString`, `NSAttributes`,
/// `NSAttributeInfo`).
///
/// Ranges count UTF-16 code units, as Foundation's do. Attribute values are whatever
/// ``KeyedUnarchiver/decodeObject(forKey:)`` makes of them: Swift values for Foundation classes, registered
/// types, or ``ArchivedObject`` for classes such as `NSFont` and `NSColor`.
public struct ArchiveAttributedString {
    /// One run of text sharing the same attributes.
    public struct Run {
        /// The run's range in UTF-16 code units.
        public var range: Range<Int>
        /// The attributes, by name (`NSFont`, `NSColor`, `NSLink` …).
        public var attributes: [String: Any]
        /// Creates a run.
        public init(range: Range<Int>, attributes: [String: Any]) {
            self.range = range
            self.attributes = attributes
        }
    }

    /// The text.
    public var string: String
    /// The runs, in order, covering the text.
    public var runs: [Run]
    /// Whether the archive named the mutable class.
    public var isMutable: Bool

    /// Creates an attributed string.
    public init(string: String, runs: [Run] = [], isMutable: Bool = false) {
        self.string = string
        self.runs = runs
        self.isMutable = isMutable
    }
}

/// `NSAttributeInfo`: unsigned LEB128 pairs (run length, attribute-dictionary index).
enum AttributeInfo {
    static func decode(_ bytes: [UInt8]) -> [(length: Int, index: Int)]? {
        var numbers: [Int] = []
        var value = 0
        var shift = 0
        for byte in bytes {
            guard shift < 63 else { return nil }
            value |= Int(byte & 0x7F) << shift
            if byte & 0x80 == 0 {
                numbers.append(value)
                value = 0
                shift = 0
            } else {
                shift += 7
            }
        }
        guard shift == 0, numbers.count % 2 == 0 else { return nil }
        return stride(from: 0, to: numbers.count, by: 2).map { (numbers[$0], numbers[$0 + 1]) }
    }

    static func encode(_ runs: [(length: Int, index: Int)]) -> [UInt8] {
        var bytes: [UInt8] = []
        for number in runs.flatMap({ [$0.length, $0.index] }) {
            var v = UInt(number)
            repeat {
                let low = UInt8(v & 0x7F)
                v >>= 7
                bytes.append(v == 0 ? low : low | 0x80)
            } while v != 0
        }
        return bytes
    }
}
