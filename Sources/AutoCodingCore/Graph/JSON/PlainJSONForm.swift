import AutoCodingFast
import Foundation
import OrderedCollections

/// What an archived object prints as in the plain JSON form: the Foundation value it holds, or its fields.
///
/// Each rule reads the keys Apple's classes archive with (and the `$0`, `$1` … layout that
/// ``TypedGraph/keyedArchiveGraph()`` gives typedstream values). A Foundation object whose layout is not the
/// expected one prints as its fields, like an object of an unknown class. Every rule costs what its object holds
/// (one look-up per key, one pass over a run table), never what its values expand to.
enum PlainJSONForm {
    /// Print this value in the object's place: a scalar (`NSDate` as its date), `null` (`NSNull`), or a
    /// dictionary made for the occasion (`NSValue` geometry, attributed-string runs).
    case value(ArchivedValue)
    /// A JSON array (`NSArray`, `NSSet`, `NSOrderedSet`).
    case list([ArchivedValue])
    /// A JSON object (`NSDictionary` whose keys are all strings or numbers, each text once).
    case entries(keys: [String], values: [ArchivedValue])
    /// A JSON array of `{"key": k, "value": v}` (`NSDictionary` with other keys, or keys whose texts collide).
    case pairs(keys: [ArchivedValue], values: [ArchivedValue])
    /// A JSON object of the object's fields (a class without a Foundation mapping).
    case fields

    /// The form of `object`; `runs` asks for attributed strings with their attribute runs.
    init(_ object: ArchivedObject, runs: Bool) {
        self = Self.foundation(object, runs: runs) ?? .fields
    }

    private static func foundation(_ object: ArchivedObject, runs: Bool) -> PlainJSONForm? {
        switch object.className {
        case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSCountedSet", "NSOrderedSet",
            "NSMutableOrderedSet":
            return list(object).map { .list($0) }
        case "NSDictionary", "NSMutableDictionary":
            return dictionary(object)
        case "NSString", "NSMutableString":
            return object[FoundationKey.string].flatMap { $0.string != nil ? .value($0) : nil }
        case "NSDate", "NSCalendarDate":
            return (object[FoundationKey.time]?.double ?? object["$0"]?.double).map {
                .value(.inline(.date(Date(timeIntervalSinceReferenceDate: $0))))
            }
        case "NSData", "NSMutableData":
            return object[FoundationKey.bytes]?.bytes.map { .value(.inline(.data($0))) }
        case "NSUUID":
            return object[FoundationKey.uuidBytes]?.bytes.flatMap(uuidText).map { .value(.inline(.string($0))) }
        case "NSURL":
            return url(object).map { .value(.inline(.string($0))) }
        case "NSNull":
            return .value(.null)
        case "NSValue":
            return geometry(object).map { .value($0) }
        case "NSAttributedString", "NSMutableAttributedString":
            guard let text = object["NSString"] else { return nil }
            return .value(runs ? .dictionary(["text": text, "runs": .array(attributeRuns(object, text: text))]) : text)
        default:
            return nil
        }
    }

    // MARK: Collections

    /// `NS.objects`, or `NS.object.0`, `NS.object.1` … as `NSOrderedSet` archives its elements.
    private static func list(_ object: ArchivedObject) -> [ArchivedValue]? {
        if let elements = object[FoundationKey.objects]?.elements { return elements }
        var elements: [ArchivedValue] = []
        // Stops at the first missing index: the loop costs what the object holds.
        while let element = object["NS.object.\(elements.count)"] { elements.append(element) }
        return elements.isEmpty && !object.fields.isEmpty ? nil : elements
    }

    private static func dictionary(_ object: ArchivedObject) -> PlainJSONForm? {
        guard let keys = object[FoundationKey.keys]?.elements ?? (object.fields.isEmpty ? [] : nil),
            let values = object[FoundationKey.objects]?.elements ?? (object.fields.isEmpty ? [] : nil),
            keys.count == values.count
        else { return nil }
        var texts: [String] = []
        var seen = Set<String>()
        texts.reserveCapacity(keys.count)
        for key in keys {
            guard let text = keyText(key), seen.insert(text).inserted else {
                return .pairs(keys: keys, values: values)
            }
            texts.append(text)
        }
        return .entries(keys: texts, values: values)
    }

    /// A key's text: a string as it is, a number or boolean as its JSON spelling; nil for other keys.
    private static func keyText(_ key: ArchivedValue) -> String? {
        if let object = key.object {
            guard ["NSString", "NSMutableString"].contains(object.className) else { return nil }
            return object[FoundationKey.string]?.string
        }
        switch key.scalar {
        case .string(let s)?: return s
        case .integer(let i)?: return String(i)
        case .unsignedInteger(let u)?: return String(u)
        case .real(let d)?: return d.isFinite ? JSONNumberText.real(d) : JSONNumberText.nonFinite(d)
        case .bool(let b)?: return b ? "true" : "false"
        default: return nil
        }
    }

    // MARK: Values

    /// `8-4-4-4-12` upper-case hex, as `NSUUID.uuidString` writes it.
    private static func uuidText(_ bytes: [UInt8]) -> String? {
        guard bytes.count == 16 else { return nil }
        let hex = bytes.map { String($0, radix: 16, uppercase: true) }.map { $0.count == 1 ? "0" + $0 : $0 }
        return [0..<4, 4..<6, 6..<8, 8..<10, 10..<16].map { hex[$0].joined() }.joined(separator: "-")
    }

    /// Base URLs are followed at most this many levels (each one is an `NSURL` object of its own).
    private static let maxURLBases = 16

    /// `NS.relative` resolved against the chain of `NS.base` URLs, as `absoluteString` gives it.
    private static func url(_ object: ArchivedObject) -> String? {
        var parts: [String] = []
        var current: ArchivedObject? = object
        while let url = current {
            guard parts.count < maxURLBases, url.className == "NSURL",
                let relative = url[FoundationKey.relative].flatMap(stringValue)
            else { return nil }
            parts.append(relative)
            current = url[FoundationKey.base]?.object
        }
        var resolved: URL? = nil
        for part in parts.reversed() {
            guard let next = URL(string: part, relativeTo: resolved) else { return nil }
            resolved = next
        }
        return resolved?.absoluteString
    }

    /// A string scalar, or the text of an `NSString` object.
    private static func stringValue(_ value: ArchivedValue) -> String? {
        value.string ?? value.object.flatMap { $0[FoundationKey.string]?.string }
    }

    /// `NSValue` ranges and geometry as objects: keyed (`NS.special` and its keys) or from a typedstream
    /// (`$0` the Objective-C type, `$1` the structure's members).
    private static func geometry(_ object: ArchivedObject) -> ArchivedValue? {
        if let special = object[NSValueCoding.special]?.int {
            func integer(_ key: String) -> ArchivedValue? { object[key]?.int.map { .inline(.integer(Int64($0))) } }
            func numbers(_ key: String, _ count: Int) -> [Double]? {
                object[key].flatMap(stringValue).flatMap { NSValueCoding.parse($0, count: count) }
            }
            switch special {
            case NSValueCoding.range:
                guard let location = integer("NS.rangeval.location"), let length = integer("NS.rangeval.length")
                else { return nil }
                return .dictionary(["location": location, "length": length])
            case NSValueCoding.point: return numbers("NS.pointval", 2).map { reals(["x", "y"], $0) }
            case NSValueCoding.size: return numbers("NS.sizeval", 2).map { reals(["width", "height"], $0) }
            case NSValueCoding.rect: return numbers("NS.rectval", 4).map { reals(["x", "y", "width", "height"], $0) }
            case NSValueCoding.edgeInsets:
                let keys = ["top", "left", "bottom", "right"]
                let values = keys.compactMap { object["NS.edgeval.\($0)"]?.double }
                return values.count == 4 ? reals(keys, values) : nil
            default: return nil
            }
        }
        guard let type = object["$0"]?.string, let members = object["$1"]?.elements else { return nil }
        let flat = members.flatMap { $0.elements ?? [$0] }
        let numbers = flat.compactMap(\.double)
        guard numbers.count == flat.count else { return nil }
        let name = type.dropFirst().prefix { $0 != "=" }
        switch (name, numbers.count) {
        case ("_NSRange", 2):
            guard let location = flat[0].int, let length = flat[1].int else { return nil }
            return .dictionary(["location": .inline(.integer(Int64(location))), "length": .inline(.integer(Int64(length)))])
        case ("_NSPoint", 2), ("CGPoint", 2): return reals(["x", "y"], numbers)
        case ("_NSSize", 2), ("CGSize", 2): return reals(["width", "height"], numbers)
        case ("_NSRect", 4), ("CGRect", 4): return reals(["x", "y", "width", "height"], numbers)
        default: return nil
        }
    }

    private static func reals(_ keys: [String], _ values: [Double]) -> ArchivedValue {
        .dictionary(OrderedDictionary(uniqueKeysWithValues: zip(keys, values.map { .inline(.real($0)) })))
    }

    // MARK: Attributed strings

    /// The runs of an attributed string: `NSAttributeInfo` (run length, attribute-set index pairs) over
    /// `NSAttributes` (one dictionary, or an array of them), or one run over the whole text.
    private static func attributeRuns(_ object: ArchivedObject, text: ArchivedValue) -> [ArchivedValue] {
        let attributes = object["NSAttributes"] ?? .null
        let sets: [ArchivedValue]
        if let array = attributes.object, array.className == "NSArray" || array.className == "NSMutableArray" {
            sets = list(array) ?? []
        } else {
            sets = [attributes]
        }
        guard let info = object["NSAttributeInfo"]?.bytes, let table = AttributeInfo.decode(info) else {
            let length = stringValue(text)?.utf16.count ?? 0
            return [run(location: 0, length: length, attributes: sets.first ?? .null)]
        }
        var runs: [ArchivedValue] = []
        runs.reserveCapacity(min(table.count, 1 << 16))
        var location = 0
        for entry in table {
            runs.append(run(location: location, length: entry.length, attributes: sets.indices.contains(entry.index) ? sets[entry.index] : .null))
            let (next, overflow) = location.addingReportingOverflow(entry.length)
            // Run lengths that sum past Int.max describe no text; the runs before them are still true.
            guard !overflow else { break }
            location = next
        }
        return runs
    }

    private static func run(location: Int, length: Int, attributes: ArchivedValue) -> ArchivedValue {
        .dictionary([
            "location": .inline(.integer(Int64(location))), "length": .inline(.integer(Int64(length))),
            "attributes": attributes,
        ])
    }
}
