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
        for (index, value) in groups.flatMap(\.values).enumerated() {
            var converted = converter.convert(value)
            if case .array = converted {
                // A top-level C array or struct: `$top` holds only UIDs, so it becomes an NSArray of its values
                // (left in place, every keyed reader refuses the archive).
                let array = ArchivedObject(
                    archiveClass: ArchiveClass(name: "NSArray", chain: ["NSArray", "NSObject"]),
                    fields: [FoundationKey.objects: converted])
                converted = .object(array)
            }
            roots[index == 0 ? "root" : "$\(index)"] = converted
        }
        converter.drain()
        return ArchiveGraph(roots: roots)
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
            for (index, value) in source.groups.flatMap(\.values).enumerated() {
                target["$\(index)"] = convert(value)
            }
        }
    }
}
