import Foundation

/// Objects of Foundation classes laid out as Apple's `NSArchiver` writes them (the layouts
/// ``TypedObject/foundation`` reads).
extension TypedObject {
    static let nsObject = TypedClass("NSObject", version: 0)

    /// An `NSString` (or `NSMutableString`): its UTF-8 bytes in one `+` group.
    public static func string(_ text: String, mutable: Bool = false) -> TypedObject {
        let base = [TypedClass("NSString", version: 1), nsObject]
        return TypedObject(
            classes: mutable ? [TypedClass("NSMutableString", version: 1)] + base : base,
            groups: [TypedGroup(encoding: "+", value: .string(Array(text.utf8)))]
        )
    }

    // NSNumber's type strings are `@encode` constants, one address per type, so archives share them.
    static let longLongType = TypedCString("q")
    static let doubleType = TypedCString("d")

    /// An `NSNumber` of a signed integer (`q`).
    public static func number(_ value: Int64) -> TypedObject {
        number(type: longLongType, .signed(value, type: UInt8(ascii: "q")))
    }

    /// An `NSNumber` of a double (`d`).
    public static func number(_ value: Double) -> TypedObject {
        number(type: doubleType, .double(value))
    }

    private static func number(type: TypedCString, _ value: TypedValue) -> TypedObject {
        TypedObject(
            classes: [TypedClass("NSNumber", version: 0), TypedClass("NSValue", version: 0), nsObject],
            groups: [
                TypedGroup(encoding: "*", value: .cString(type)),
                TypedGroup(encoding: type.text, value: value),
            ]
        )
    }

    /// An `NSArray` (or `NSMutableArray`): a count, then one `@` group per element.
    public static func array(_ elements: [TypedValue], mutable: Bool = false) -> TypedObject {
        let base = [TypedClass("NSArray", version: 0), nsObject]
        return TypedObject(
            classes: mutable ? [TypedClass("NSMutableArray", version: 0)] + base : base,
            groups: [TypedGroup(encoding: "i", value: .signed(Int64(elements.count), type: UInt8(ascii: "i")))]
                + elements.map { TypedGroup(encoding: "@", value: $0) }
        )
    }

    /// An `NSDictionary`: a count, then a key group and a value group per entry.
    public static func dictionary(_ pairs: [(key: TypedValue, value: TypedValue)]) -> TypedObject {
        TypedObject(
            classes: [TypedClass("NSDictionary", version: 0), nsObject],
            groups: [TypedGroup(encoding: "i", value: .signed(Int64(pairs.count), type: UInt8(ascii: "i")))]
                + pairs.flatMap {
                    [TypedGroup(encoding: "@", value: $0.key), TypedGroup(encoding: "@", value: $0.value)]
                }
        )
    }

    /// An `NSData`: a length, then a `[Nc]` byte array.
    public static func data(_ bytes: [UInt8]) -> TypedObject {
        TypedObject(
            classes: [TypedClass("NSData", version: 0), nsObject],
            groups: [
                TypedGroup(encoding: "i", value: .signed(Int64(bytes.count), type: UInt8(ascii: "i"))),
                TypedGroup(encoding: "[\(bytes.count)c]", value: .bytes(bytes, signed: true)),
            ]
        )
    }

    /// An `NSDate`: seconds since 2001-01-01.
    public static func date(_ secondsSince2001: Double) -> TypedObject {
        TypedObject(
            classes: [TypedClass("NSDate", version: 0), nsObject],
            groups: [TypedGroup(encoding: "d", value: .double(secondsSince2001))]
        )
    }

    /// An `NSAttributedString`: the string, then per run its attribute-set number and UTF-16 length (`iI`),
    /// followed by the attribute dictionary only the first time the set appears (runs with the identical
    /// dictionary object share a set).
    public static func attributedString(
        _ text: String,
        runs: [(length: Int, attributes: TypedObject)],
        mutable: Bool = false
    ) -> TypedObject {
        let base = [TypedClass("NSAttributedString", version: 0), nsObject]
        var groups = [TypedGroup(encoding: "@", value: .object(.string(text, mutable: mutable)))]
        var sets: [ObjectIdentifier: Int64] = [:]
        for run in runs {
            let known = sets[ObjectIdentifier(run.attributes)]
            let set = known ?? Int64(sets.count + 1)
            groups.append(
                TypedGroup(
                    encoding: "iI",
                    values: [
                        .signed(set, type: UInt8(ascii: "i")), .unsigned(UInt64(run.length), type: UInt8(ascii: "I")),
                    ]
                )
            )
            if known == nil {
                sets[ObjectIdentifier(run.attributes)] = set
                groups.append(TypedGroup(encoding: "@", value: .object(run.attributes)))
            }
        }
        return TypedObject(
            classes: mutable ? [TypedClass("NSMutableAttributedString", version: 0)] + base : base,
            groups: groups
        )
    }
}

/// Swift values given to ``TypedstreamArchiver`` as objects: strings, integers, doubles, data and dates.
enum TypedstreamFoundationEncoding {
    static func node(for object: AnyObject, archiver: TypedstreamArchiver) -> TypedObject {
        switch object {
        case let text as String: return .string(text)
        case let number as Int: return .number(Int64(number))
        case let number as Int64: return .number(number)
        case let number as Double: return .number(number)
        case let data as Data: return .data([UInt8](data))
        case let date as Date: return .date(date.timeIntervalSinceReferenceDate)
        default:
            preconditionFailure(
                "\(type(of: object)) is neither TypedstreamEncodable, a TypedObject nor a mapped Foundation value"
            )
        }
    }
}
