import AutoCodingFast
import OrderedCollections

extension TypedGraph {
    /// The graph as an equivalent `NSKeyedArchiver` object graph, with identity and cycles kept.
    ///
    /// Foundation classes take their keyed forms: strings, numbers and data become `$objects` scalars; arrays,
    /// sets and dictionaries `NS.objects`/`NS.keys`; dates `NS.time`; URLs `NS.base`/`NS.relative`; attributed
    /// strings `NSString`, `NSAttributes` and `NSAttributeInfo`. Other classes (and Foundation classes whose
    /// layout is not the expected one) keep their class chain and store their typed values in order under
    /// `$0`, `$1`, …, as keyed coders store sequential values. The root is the first top-level value; further
    /// top-level values are the roots `$1`, `$2`, ….
    public func keyedArchiveGraph() -> ArchiveGraph {
        var converter = TypedKeyedConverter()
        var roots: OrderedDictionary<String, ArchivedValue> = [:]
        for (index, value) in groups.joined().enumerated() {
            var converted = converter.convert(value)
            if case .array(let elements) = converted {
                // `$top` holds only UIDs (left in place, every keyed reader refuses the archive). A C array becomes
                // what `encodeArrayOfObjCType:count:at:` writes; a struct, which NSKeyedArchiver refuses to encode,
                // becomes an NSArray of its members.
                if case .array(_, let encoding) = value, let array = Self.oldStyleArray(elements, encoding: encoding) {
                    converted = .object(array)
                } else {
                    converted = .object(
                        ArchivedObject(
                            archiveClass: ArchiveClass(name: "NSArray", chain: ["NSArray", "NSObject"]),
                            fields: [FoundationKey.objects: converted]))
                }
            }
            roots[index == 0 ? "root" : "$\(index)"] = converted
        }
        converter.drain()
        return ArchiveGraph(roots: roots)
    }
}

extension TypedGraph {
    /// Element sizes of the one-character Objective-C types, as `NS.size` records them (64-bit).
    private static let elementSizes: [UInt8: Int64] = [
        UInt8(ascii: "c"): 1, UInt8(ascii: "C"): 1, UInt8(ascii: "B"): 1, UInt8(ascii: "s"): 2, UInt8(ascii: "S"): 2,
        UInt8(ascii: "i"): 4, UInt8(ascii: "I"): 4, UInt8(ascii: "l"): 4, UInt8(ascii: "L"): 4, UInt8(ascii: "f"): 4,
        UInt8(ascii: "q"): 8, UInt8(ascii: "Q"): 8, UInt8(ascii: "d"): 8, UInt8(ascii: "@"): 8, UInt8(ascii: "*"): 8,
        UInt8(ascii: "#"): 8, UInt8(ascii: ":"): 8,
    ]

    /// `_NSKeyedCoderOldStyleArray` as Apple's keyed archiver writes it: the elements under `$0`, `$1` …, then
    /// `NS.count`, `NS.size` (the element size) and `NS.type` (the element type's character). Nil for an
    /// encoding such as `[2{…}]`, whose elements are not of a one-character type.
    static func oldStyleArray(_ elements: [ArchivedValue], encoding: String) -> ArchivedObject? {
        let body = encoding.utf8.dropFirst().drop { (0x30...0x39).contains($0) }
        guard encoding.utf8.first == UInt8(ascii: "["), body.count == 2, body.last == UInt8(ascii: "]"),
            let type = body.first, let size = elementSizes[type]
        else { return nil }
        let array = ArchivedObject(className: "_NSKeyedCoderOldStyleArray", chain: ["_NSKeyedCoderOldStyleArray", "NSObject"])
        for (index, element) in elements.enumerated() { array["$\(index)"] = element }
        array["NS.count"] = .inline(.integer(Int64(elements.count)))
        array["NS.size"] = .inline(.integer(size))
        array["NS.type"] = .inline(.integer(Int64(type)))
        return array
    }
}

/// Converts objects with a memo (identity) and a queue (no recursion through objects).
struct TypedKeyedConverter {
    private var memo: [ObjectIdentifier: ArchivedValue] = [:]
    private var pending: [(TypedObject, ArchivedObject)] = []

    /// Fills the fields of every object converted so far, and of those they reach.
    mutating func drain() {
        while let (source, target) = pending.popLast() { fill(target, from: source) }
    }

    mutating func convert(_ value: TypedValue) -> ArchivedValue {
        switch value {
        case .signed(let v, _): return .inline(.integer(v))
        // A binary plist stores integers below 2⁶³ as signed ones; only larger ones stay unsigned.
        case .unsigned(let v, _): return .inline(Int64(exactly: v).map { .integer($0) } ?? .unsignedInteger(v))
        case .float(let v): return .inline(.real(Double(v)))
        case .double(let v): return .inline(.real(v))
        case .nil, .ignored: return .null
        case .cString(let s): return .reference(.string(s.text))
        case .atom(let b), .selector(let b):
            return b.map { .reference(.string(String(decoding: $0, as: UTF8.self))) } ?? .null
        case .string(let b): return .reference(.data(b))
        case .class(let chain): return .reference(.string(chain.first?.name ?? ""))
        case .bytes(let b, _): return .reference(.data(b))
        case .array(let values, _), .structure(let values, _): return .array(values.map { convert($0) })
        case .object(let object): return convert(object)
        }
    }

    private mutating func convert(_ object: TypedObject) -> ArchivedValue {
        if let done = memo[ObjectIdentifier(object)] { return done }
        let scalar: ArchiveValue? =
            switch object.foundation {
            case .string(let s)?: .string(s)
            case .number(let n)?:
                switch n {
                case .signed(let v, _): .integer(v)
                case .unsigned(let v, _): Int64(exactly: v).map { .integer($0) } ?? .unsignedInteger(v)
                default: n.real.map { .real($0) }
                }
            case .data(let bytes)?: .data(bytes)
            default: nil
            }
        if let scalar {
            memo[ObjectIdentifier(object)] = .reference(scalar)
            return .reference(scalar)
        }
        let chain = object.classes.map(\.name)
        let target = ArchivedObject(className: object.className, chain: chain)
        memo[ObjectIdentifier(object)] = .object(target)
        pending.append((object, target))
        return .object(target)
    }

    private mutating func fill(_ target: ArchivedObject, from source: TypedObject) {
        switch source.foundation {
        case .array(let values)?, .set(let values)?:
            target["NS.objects"] = .array(values.map { convert($0) })
        case .dictionary(let pairs)?:
            target["NS.keys"] = .array(pairs.map { convert($0.key) })
            target["NS.objects"] = .array(pairs.map { convert($0.value) })
        case .date(let time)?:
            target["NS.time"] = .inline(.real(time))
        case .url(let relative, let base)?:
            target["NS.base"] = base.map { convert(.object($0)) } ?? .null
            target["NS.relative"] = .reference(.string(relative))
        case .null?:
            break
        case .attributedString(let text)?:
            target["NSString"] = .reference(.string(text.text))
            var sets: [Int64: Int] = [:]
            var dictionaries: [ArchivedValue] = []
            var runs: [(length: Int, index: Int)] = []
            for run in text.runs {
                let index = sets[run.attributeSet] ?? dictionaries.count
                if index == dictionaries.count {
                    sets[run.attributeSet] = index
                    dictionaries.append(run.attributes.map { convert(.object($0)) } ?? .null)
                }
                runs.append((run.length, index))
            }
            if dictionaries.count == 1 {
                target["NSAttributes"] = dictionaries[0]
            } else if dictionaries.count > 1 {
                let array = ArchivedObject(className: "NSArray", chain: ["NSArray", "NSObject"])
                array["NS.objects"] = .array(dictionaries)
                target["NSAttributes"] = .object(array)
                target["NSAttributeInfo"] = .reference(.data(AttributeInfo.encode(runs)))
            }
        default:
            // Unknown class or layout: the typed values in order.
            for (index, value) in source.groups.joined().enumerated() {
                target["$\(index)"] = convert(value)
            }
        }
    }
}
