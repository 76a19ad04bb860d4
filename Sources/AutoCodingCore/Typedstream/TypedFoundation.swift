import AutoCodingFast
import Foundation

/// What a Foundation (or NeXT) object of a typedstream holds, one level deep: contained objects stay
/// ``TypedValue``s, so shared and cyclic references cost nothing and nothing recurses.
///
/// ``TypedObject/foundation`` gives nil for a class it does not know and for a known class whose groups are
/// not the layout it expects (another version, say): such objects stay ``TypedObject``s, losslessly.
public enum TypedFoundation {
    /// `NSString`, `NSMutableString` (UTF-8 `+` bytes).
    case string(String)
    /// `NSAttributedString`, `NSMutableAttributedString`: the text and its attribute runs.
    case attributedString(TypedAttributedString)
    /// `NSArray`, `NSMutableArray`, NeXT `List`.
    case array([TypedValue])
    /// `NSDictionary`, `NSMutableDictionary`, NeXT `HashTable`: pairs in stream order.
    case dictionary([(key: TypedValue, value: TypedValue)])
    /// `NSSet`, `NSMutableSet`, `NSCountedSet`.
    case set([TypedValue])
    /// `NSNumber`: one scalar value.
    case number(TypedValue)
    /// `NSValue`: a value of its own type encoding (structs such as ranges, points, sizes, rects).
    case value(TypedValue, encoding: String)
    /// `NSData`, `NSMutableData`.
    case data([UInt8])
    /// `NSDate`: seconds since 2001-01-01.
    case date(Double)
    /// `NSURL`: a relative string and an optional base URL object.
    case url(relative: String, base: TypedObject?)
    /// `NSNull`.
    case null
    /// `NSColor`: its color-space code and components as stored.
    case color(space: Int64, components: [Double])
    /// `NSFont`: the name and size (the name is an old NeXT binary property list, decoded when it is one).
    case font(name: String, size: Double)
    /// NeXT `Storage`: a typed array; the element type encoding and the elements.
    case storage(elementType: String, elements: [TypedValue])
    /// NeXT `StreamTable`: keys and values, each value a nested typedstream decoded in turn.
    case streamTable([(key: TypedValue, value: TypedGraph)])
}

/// The text of an attributed string and its runs of attributes.
public struct TypedAttributedString {
    /// One run: a UTF-16 range of ``text`` and the attribute dictionary that applies to it.
    public struct Run {
        /// Start in UTF-16 units.
        public var location: Int
        /// Length in UTF-16 units.
        public var length: Int
        /// The attribute-set number the archiver gave this run's attributes; equal sets share one.
        public var attributeSet: Int64
        /// The attribute dictionary (an `NSDictionary` object), shared by all runs with the same set number.
        public var attributes: TypedObject?
    }

    /// The text.
    public var text: String
    /// The runs, in order, covering the text.
    public var runs: [Run]
}

extension TypedObject {
    /// The text of an `NSString` object; nil for any other class. Values inside others (a font's name, a URL's
    /// relative part, an attributed string's text) are read with this, not ``foundation``: an object standing in
    /// its own place (a font named by itself, in a stream with a reference cycle) would recurse without end.
    var stringText: String? {
        switch className {
        case "NSString", "NSMutableString", "NSLocalizableString":
            guard case .string(let bytes)? = groups.first(where: { !$0.isEmpty })?.first else { return nil }
            return String(decoding: bytes, as: UTF8.self)
        default:
            return nil
        }
    }

    /// The Foundation value this object holds, or nil for an unknown class or an unexpected layout.
    public var foundation: TypedFoundation? {
        // Strings, the most common objects, read their groups in place, without the array below.
        switch className {
        case "NSString", "NSMutableString", "NSLocalizableString":
            return stringText.map { .string($0) }
        case "NSAttributedString", "NSMutableAttributedString":
            return attributedString().map { .attributedString($0) }
        default:
            break
        }
        // Most objects write one group: its array is shared, not copied (a group of one value makes one).
        let values = groups.count == 1 ? groups[0].values : Array(groups.joined())
        switch className {
        case "NSArray", "NSMutableArray":
            return collection(values).map { .array($0) }
        case "List":
            // NeXT List: a count, then one `[N@]` array group.
            guard let count = values.first?.integer else { return nil }
            if count == 0 { return .array([]) }
            guard case .array(let elements, _)? = values.dropFirst().first, elements.count == count else { return nil }
            return .array(elements)
        case "NSSet", "NSMutableSet", "NSCountedSet":
            return collection(values).map { .set($0) }
        case "HashTable":
            return hashTable(values).map { .dictionary($0.pairs) }
        case "NSDictionary", "NSMutableDictionary":
            guard let count = values.first?.integer, values.count == Self.layoutCount(count, perItem: 2, plus: 1)
            else { return nil }
            return .dictionary(stride(from: 1, to: values.count, by: 2).map { (values[$0], values[$0 + 1]) })
        case "NSNumber":
            guard values.count == 2, case .cString = values[0] else { return nil }
            return .number(values[1])
        case "NSValue":
            guard values.count == 2, case .cString(let type) = values[0] else { return nil }
            return .value(values[1], encoding: type.text)
        case "NSData", "NSMutableData":
            guard values.count == 2, let count = values[0].integer, case .bytes(let bytes, _) = values[1],
                bytes.count == count
            else {
                if values.count == 1, values[0].integer == 0 { return .data([]) }
                return nil
            }
            return .data(bytes)
        case "NSDate", "NSCalendarDate":
            guard let time = values.first?.real, values.count == 1 else { return nil }
            return .date(time)
        case "NSURL":
            guard values.count >= 2, let hasBase = values[0].integer else { return nil }
            let relativeIndex = hasBase != 0 ? 2 : 1
            guard relativeIndex < values.count, let relative = values[relativeIndex].object?.stringText else { return nil }
            return .url(relative: relative, base: hasBase != 0 ? values[1].object : nil)
        case "NSNull":
            return values.isEmpty ? .null : nil
        case "NSColor":
            guard let space = values.first?.integer else { return nil }
            return .color(space: space, components: values.dropFirst().compactMap(\.real))
        case "NSFont":
            return font(values)
        case "StreamTable":
            return streamTable(values)
        case "Storage":
            // The element type as an atom, the element size, the count, then one `[N<type>]` group.
            guard values.count >= 3, case .atom(let type?) = values[0], let count = values[2].integer else {
                return nil
            }
            if count == 0, values.count == 3 {
                return .storage(elementType: String(decoding: type, as: UTF8.self), elements: [])
            }
            guard values.count == 4 else { return nil }
            switch values[3] {
            case .array(let elements, _) where elements.count == count:
                return .storage(elementType: String(decoding: type, as: UTF8.self), elements: elements)
            case .bytes(let bytes, let signed) where bytes.count == count:
                let elements = bytes.map { b -> TypedValue in
                    signed
                        ? .signed(Int64(Int8(bitPattern: b)), type: UInt8(ascii: "c"))
                        : .unsigned(UInt64(b), type: UInt8(ascii: "C"))
                }
                return .storage(elementType: String(decoding: type, as: UTF8.self), elements: elements)
            default:
                return nil
            }
        default:
            return nil
        }
    }

    /// The number of values a layout of `fixed` values and `perItem` values for each of `count` items has, or
    /// nil when `count` (read from the stream) is negative or the total overflows: no list of values has
    /// that many, so the layout is not the expected one. Every count-based layout check goes through here.
    static func layoutCount(_ count: Int64, perItem: Int, plus fixed: Int) -> Int? {
        guard count >= 0 else { return nil }
        let (items, overflow) = Int(count).multipliedReportingOverflow(by: perItem)
        let (total, overflow2) = items.addingReportingOverflow(fixed)
        return overflow || overflow2 ? nil : total
    }

    /// A count then that many `@` values.
    private func collection(_ values: [TypedValue]) -> [TypedValue]? {
        guard let count = values.first?.integer, values.count == Self.layoutCount(count, perItem: 1, plus: 1)
        else { return nil }
        return Array(values.dropFirst())
    }

    /// The string, then `iI` groups (attribute-set number, UTF-16 length), each followed by its dictionary
    /// the first time its number appears.
    private func attributedString() -> TypedAttributedString? {
        guard let text = groups.first?.first?.object?.stringText else { return nil }
        var runs: [TypedAttributedString.Run] = []
        var sets: [Int64: TypedObject?] = [:]
        var location = 0
        var index = 1
        while index < groups.count {
            let group = groups[index]
            guard group.count == 2, let set = group[0].integer, let length = group[1].integer,
                length >= 0
            else { return nil }
            index += 1
            if sets[set] == nil {
                guard index < groups.count, groups[index].encoding == "@" else { return nil }
                sets[set] = groups[index].first?.object
                index += 1
            }
            runs.append(.init(location: location, length: Int(length), attributeSet: set, attributes: sets[set] ?? nil))
            // Run lengths come from the stream: a sum past Int.max is no text's layout.
            let (end, overflow) = location.addingReportingOverflow(Int(length))
            guard !overflow else { return nil }
            location = end
        }
        return TypedAttributedString(text: text, runs: runs)
    }

    /// NSFont: a length and a byte array holding the name as an old NeXT binary property list (or, in other
    /// versions, a name object or atom), then the size.
    private func font(_ values: [TypedValue]) -> TypedFoundation? {
        for (index, value) in values.enumerated() {
            let name: String?
            switch value {
            case .bytes(let bytes, _): name = OldBinaryPlist.string(in: bytes)
            case .object(let object): name = object.stringText
            case .atom(let bytes?): name = String(decoding: bytes, as: UTF8.self)
            default: continue
            }
            guard let name, let size = values[(index + 1)...].first(where: { $0.real != nil })?.real else { return nil }
            return .font(name: name, size: size)
        }
        return nil
    }

    /// NeXT HashTable: a count, the key and value type encodings as atoms, then the pairs.
    private func hashTable(_ values: [TypedValue]) -> (count: Int, pairs: [(key: TypedValue, value: TypedValue)])? {
        guard values.count >= 3, let count = values[0].integer, case .atom = values[1],
            let needed = Self.layoutCount(count, perItem: 2, plus: 3), values.count >= needed
        else { return nil }
        let n = Int(count)
        var pairs: [(key: TypedValue, value: TypedValue)] = []
        pairs.reserveCapacity(n)
        for i in 0..<n { pairs.append((key: values[3 + 2 * i], value: values[4 + 2 * i])) }
        return (n, pairs)
    }

    /// NeXT StreamTable: a HashTable whose pairs are followed, for each key, by the key, a length and a byte
    /// array holding a typedstream; each is read as its own graph.
    private func streamTable(_ values: [TypedValue]) -> TypedFoundation? {
        guard let (count, _) = hashTable(values) else { return nil }
        var rest = values.dropFirst(3 + 2 * count)
        var pairs: [(key: TypedValue, value: TypedGraph)] = []
        while rest.count >= 3 {
            let key = rest.removeFirst()
            rest.removeFirst()
            guard case .bytes(let bytes, _) = rest.removeFirst(), let graph = try? TypedGraph(bytes: bytes) else {
                return nil
            }
            pairs.append((key, graph))
        }
        return pairs.count == count && rest.isEmpty ? .streamTable(pairs) : nil
    }
}

/// The old NeXT binary property-list form that `NSFont` archives use for their name: a type word and a byte
/// length (both little-endian 32-bit), then the string, UTF-16 after a byte-order mark or else UTF-8.
enum OldBinaryPlist {
    static func string(in bytes: [UInt8]) -> String? {
        guard bytes.count >= 8 else { return nil }
        let length = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
        guard length <= bytes.count - 8 else { return nil }
        let payload = bytes[8..<(8 + length)]
        if payload.starts(with: [0xFE, 0xFF]) || payload.starts(with: [0xFF, 0xFE]) {
            let big = payload.first == 0xFE
            var units: [UInt16] = []
            for i in stride(from: payload.startIndex + 2, to: payload.endIndex - 1, by: 2) {
                let (high, low) = big ? (payload[i], payload[i + 1]) : (payload[i + 1], payload[i])
                units.append(UInt16(high) << 8 | UInt16(low))
            }
            return String(decoding: units, as: UTF16.self)
        }
        return String(decoding: payload, as: UTF8.self)
    }
}
