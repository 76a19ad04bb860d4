import AutoCodingFast
import Foundation

/// Decoding of the Swift types that Foundation classes map to: strings, numbers, booleans, data, dates,
/// URLs and UUIDs. Each accepts the forms Apple's archivers write (a plain entry or an in-place scalar; an
/// `NSMutableString`/`NSMutableData` instance; `NS.time`, `NS.relative`/`NS.base`, `NS.uuidbytes`).
enum FoundationValues {
    /// How a mapped scalar is read from the node of a field: the shape of ``string(_:_:_:)``, ``bool(_:_:_:)``,
    /// ``double(_:_:_:)`` and ``integer(_:_:_:_:)`` with its type given, which the keyed readers take.
    typealias ScalarRead<T> = (DecodingContext.Node, DecodingContext, CodingPathNode) throws -> T

    /// Decodes `T`, one of the mapped types (``handles(_:)``). Returns `T`, not `T?`: in unspecialized generic
    /// code an optional result costs a runtime metadata lookup for `Optional<T>` on every call.
    @inline(__always)
    static func decode<T>(_ type: T.Type, node: DecodingContext.Node, context: DecodingContext, path: CodingPathNode)
        throws -> T
    {
        if T.self == String.self { return same(try string(node, context, path), T.self) }
        if T.self == Int.self { return same(try integer(Int.self, node, context, path), T.self) }
        if T.self == Double.self { return same(try double(node, context, path), T.self) }
        if T.self == Bool.self { return same(try bool(node, context, path), T.self) }
        if T.self == Int64.self { return same(try integer(Int64.self, node, context, path), T.self) }
        if T.self == Int32.self { return same(try integer(Int32.self, node, context, path), T.self) }
        if T.self == Int16.self { return same(try integer(Int16.self, node, context, path), T.self) }
        if T.self == Int8.self { return same(try integer(Int8.self, node, context, path), T.self) }
        if T.self == UInt.self { return same(try integer(UInt.self, node, context, path), T.self) }
        if T.self == UInt64.self { return same(try integer(UInt64.self, node, context, path), T.self) }
        if T.self == UInt32.self { return same(try integer(UInt32.self, node, context, path), T.self) }
        if T.self == UInt16.self { return same(try integer(UInt16.self, node, context, path), T.self) }
        if T.self == UInt8.self { return same(try integer(UInt8.self, node, context, path), T.self) }
        if T.self == Float.self { return same(FloatBits.float(try double(node, context, path)), T.self) }
        if T.self == Data.self { return same(try data(node, context, path), T.self) }
        if T.self == Date.self { return same(try date(node, context, path), T.self) }
        if T.self == URL.self { return same(try url(node, context, path), T.self) }
        if T.self == UUID.self { return same(try uuid(node, context, path), T.self) }
        if T.self == Decimal.self { return same(try decimal(node, context, path), T.self) }
        return try nsValue(node, context, path, as: T.self)
    }

    /// Whether ``decode(_:node:context:path:)`` handles `T` (the same list of types).
    static func handles<T>(_ type: T.Type) -> Bool {
        let handled: [Any.Type] = [
            String.self, Int.self, Double.self, Bool.self, Int64.self, Int32.self, Int16.self, Int8.self, UInt.self,
            UInt64.self, UInt32.self, UInt16.self, UInt8.self, Float.self, Data.self, Date.self, URL.self, UUID.self,
            ArchiveRange.self, ArchivePoint.self, ArchiveSize.self, ArchiveRect.self, ArchiveEdgeInsets.self, Decimal.self,
        ]
        return handled.contains { $0 == T.self }
    }

    /// Reinterprets a value as `T` after the caller has checked that `T` is exactly `U`.
    @inline(__always)
    private static func same<U, T>(_ value: U, _: T.Type) -> T {
        unsafeBitCast(value, to: T.self)
    }

    private static func record(_ node: DecodingContext.Node, _ context: DecodingContext, _ expected: Any.Type,
                               _ path: CodingPathNode) throws -> BPlistIndex.Record
    {
        guard !node.isNull else {
            throw DecodingError.valueNotFound(expected, .init(codingPath: path.path, debugDescription: "Found $null."))
        }
        return context.record(of: node)
    }

    static func string(_ node: DecodingContext.Node, _ context: DecodingContext, _ path: CodingPathNode) throws -> String {
        let r = try record(node, context, String.self, path)
        switch r.kind {
        case .asciiString, .utf16String: return context.string(r, object: node.object)
        case .dictionary:
            // NSMutableString archives its contents under NS.string.
            if let inner = context.field(FoundationKey.string, of: node) {
                // Nested, not plain recursion: an NS.string that refers back to its own object is a UID cycle.
                return try context.nested(path) { try string(try context.resolve(inner), context, path) }
            }
        default: break
        }
        throw DecodingError.archiveTypeMismatch(String.self, at: path, found: context.describe(node))
    }

    /// A `[String]` stored under `key` of the value at `parent`: the values and errors of the generic list decode
    /// (``DecodingContext/decode(_:node:path:)``, whose element reads are ``string(_:_:_:)``), without its type
    /// dispatch per element or a path node per list. Errors of the list are thrown at `parent`, for the caller to
    /// add `key` as for a scalar; an element's error is thrown with its full path (`key`, then its index).
    static func strings(_ node: DecodingContext.Node, _ context: DecodingContext, key: String,
                        _ parent: CodingPathNode) throws -> [String]
    {
        try context.nested(parent) {
            let elements = try context.listElements(node, path: parent)
            var strings: [String] = []
            strings.reserveCapacity(elements.count)
            for (i, element) in elements.enumerated() {
                // A damaged reference is thrown as resolve throws it, outside the element's path (as the generic
                // decode resolves an element before reading it).
                let elementNode = try context.resolve(element)
                do {
                    strings.append(try string(elementNode, context, parent))
                } catch let error as DecodingError {
                    let list = parent.appending(ArchiveCodingKey(key))
                    throw error.prefixingKey(ArchiveCodingKey(key), below: parent)
                        .prefixingKey(ArchiveCodingKey(intValue: i), below: list)
                }
            }
            return strings
        }
    }

    static func integer<I: FixedWidthInteger>(_ type: I.Type, _ node: DecodingContext.Node, _ context: DecodingContext,
                                              _ path: CodingPathNode) throws -> I
    {
        // `Int`, the usual case, through the copy specialized for it: called unspecialized (from a generic
        // container), the conversion below looks up the metadata of `I?` on every call.
        if I.self == Int.self { return unsafeBitCast(try exactInteger(Int.self, node, context, path), to: I.self) }
        return try exactInteger(I.self, node, context, path)
    }

    private static func exactInteger<I: FixedWidthInteger>(
        _ type: I.Type, _ node: DecodingContext.Node, _ context: DecodingContext, _ path: CodingPathNode
    ) throws -> I {
        let r = try record(node, context, I.self, path)
        let converted: I?
        switch r.kind {
        case .integer:
            switch context.table.integer(r) {
            case .integer(let v): converted = I(exactly: v)
            case .unsignedInteger(let v): converted = I(exactly: v)
            default: converted = nil
            }
        case .real: converted = I(exactly: context.table.double(r))
        case .trueValue: converted = 1
        case .falseValue: converted = 0
        default:
            throw DecodingError.archiveTypeMismatch(I.self, at: path, found: context.describe(node))
        }
        guard let value = converted else {
            throw DecodingError.archiveCorrupted("the number does not fit \(I.self)", at: path)
        }
        return value
    }

    static func double(_ node: DecodingContext.Node, _ context: DecodingContext, _ path: CodingPathNode) throws -> Double {
        let r = try record(node, context, Double.self, path)
        switch r.kind {
        case .real: return context.table.double(r)
        case .integer:
            switch context.table.integer(r) {
            case .integer(let v): return Double(v)
            case .unsignedInteger(let v): return Double(v)
            default: break
            }
        default: break
        }
        throw DecodingError.archiveTypeMismatch(Double.self, at: path, found: context.describe(node))
    }

    static func bool(_ node: DecodingContext.Node, _ context: DecodingContext, _ path: CodingPathNode) throws -> Bool {
        let r = try record(node, context, Bool.self, path)
        switch r.kind {
        case .trueValue: return true
        case .falseValue: return false
        case .integer:
            // NSNumber booleans written by other archivers arrive as 0 and 1.
            if case .integer(let v) = context.table.integer(r), v == 0 || v == 1 { return v == 1 }
        default: break
        }
        throw DecodingError.archiveTypeMismatch(Bool.self, at: path, found: context.describe(node))
    }

    static func data(_ node: DecodingContext.Node, _ context: DecodingContext, _ path: CodingPathNode) throws -> Data {
        let r = try record(node, context, Data.self, path)
        switch r.kind {
        case .data:
            return context.table.data(r)
        case .dictionary:
            if let inner = context.field(FoundationKey.data, of: node) ?? context.field(FoundationKey.bytes, of: node) {
                // Nested, not plain recursion: an NS.data that refers back to its own object is a UID cycle.
                return try context.nested(path) { try data(try context.resolve(inner), context, path) }
            }
        default: break
        }
        throw DecodingError.archiveTypeMismatch(Data.self, at: path, found: context.describe(node))
    }

    static func date(_ node: DecodingContext.Node, _ context: DecodingContext, _ path: CodingPathNode) throws -> Date {
        let r = try record(node, context, Date.self, path)
        switch r.kind {
        case .date: return Date(timeIntervalSinceReferenceDate: context.table.double(r))
        case .dictionary:
            if let time = context.field(FoundationKey.time, of: node) {
                return Date(timeIntervalSinceReferenceDate: try double(try context.resolve(time), context, path))
            }
        default: break
        }
        throw DecodingError.archiveTypeMismatch(Date.self, at: path, found: context.describe(node))
    }

    static func url(_ node: DecodingContext.Node, _ context: DecodingContext, _ path: CodingPathNode) throws -> URL {
        _ = try record(node, context, URL.self, path)
        guard let relativeRef = context.field(FoundationKey.relative, of: node) else {
            throw DecodingError.archiveTypeMismatch(URL.self, at: path, found: context.describe(node))
        }
        let relative = try string(try context.resolve(relativeRef), context, path)
        var base: URL?
        if let baseRef = context.field(FoundationKey.base, of: node), try !context.resolve(baseRef).isNull {
            base = try context.nested(path) { try url(try context.resolve(baseRef), context, path) }
        }
        guard let url = URL(string: relative, relativeTo: base) else {
            throw DecodingError.archiveCorrupted("NS.relative \"\(relative)\" is not a URL", at: path)
        }
        return url
    }

    /// The geometry types stored in `NSValue`: range, point, size, rect, edge insets.
    static func nsValue<T>(_ node: DecodingContext.Node, _ context: DecodingContext, _ path: CodingPathNode, as type: T.Type)
        throws -> T
    {
        let expected: Int
        if T.self == ArchiveRange.self {
            expected = NSValueCoding.range
        } else if T.self == ArchivePoint.self {
            expected = NSValueCoding.point
        } else if T.self == ArchiveSize.self {
            expected = NSValueCoding.size
        } else if T.self == ArchiveRect.self {
            expected = NSValueCoding.rect
        } else if T.self == ArchiveEdgeInsets.self {
            expected = NSValueCoding.edgeInsets
        } else {
            throw DecodingError.archiveTypeMismatch(T.self, at: path, found: "a type this decoder does not map to a Foundation class")
        }
        guard let value = try nsValue(node, context, path), Self.special(of: value) == expected, let typed = value as? T else {
            throw DecodingError.archiveTypeMismatch(T.self, at: path, found: context.describe(node))
        }
        return typed
    }

    private static func special(of value: Any) -> Int {
        switch value {
        case is ArchiveRange: NSValueCoding.range
        case is ArchivePoint: NSValueCoding.point
        case is ArchiveSize: NSValueCoding.size
        case is ArchiveRect: NSValueCoding.rect
        case is ArchiveEdgeInsets: NSValueCoding.edgeInsets
        default: -1
        }
    }

    /// The geometry value of an `NSValue` instance, or nil for another kind of `NSValue`.
    static func nsValue(_ node: DecodingContext.Node, _ context: DecodingContext, _ path: CodingPathNode) throws -> Any? {
        _ = try record(node, context, Any.self, path)
        guard let specialRef = context.field(NSValueCoding.special, of: node) else { return nil }
        let special = try integer(Int.self, try context.resolve(specialRef), context, path)
        func entry(_ key: String) throws -> DecodingContext.Node {
            guard let ref = context.field(key, of: node) else {
                throw DecodingError.keyNotFound(ArchiveCodingKey(key), .init(codingPath: path.path, debugDescription: "NSValue without \(key)"))
            }
            return try context.resolve(ref)
        }
        func number(_ key: String) throws -> Double { try double(entry(key), context, path) }
        // Ranges are read as integers: through Double, locations above 2^53 would lose their low bits.
        func integral(_ key: String) throws -> Int { try integer(Int.self, entry(key), context, path) }
        func numbers(_ key: String, _ count: Int) throws -> [Double] {
            let text = try string(entry(key), context, path)
            guard let values = NSValueCoding.parse(text, count: count) else {
                throw DecodingError.archiveCorrupted("\(key) \"\(text)\" does not hold \(count) numbers", at: path)
            }
            return values
        }
        switch special {
        case NSValueCoding.range:
            return ArchiveRange(location: try integral("NS.rangeval.location"), length: try integral("NS.rangeval.length"))
        case NSValueCoding.point:
            let v = try numbers("NS.pointval", 2)
            return ArchivePoint(x: v[0], y: v[1])
        case NSValueCoding.size:
            let v = try numbers("NS.sizeval", 2)
            return ArchiveSize(width: v[0], height: v[1])
        case NSValueCoding.rect:
            let v = try numbers("NS.rectval", 4)
            return ArchiveRect(x: v[0], y: v[1], width: v[2], height: v[3])
        case NSValueCoding.edgeInsets:
            return ArchiveEdgeInsets(
                top: try number("NS.edgeval.top"), left: try number("NS.edgeval.left"),
                bottom: try number("NS.edgeval.bottom"), right: try number("NS.edgeval.right"))
        default:
            return nil
        }
    }

    /// A `Decimal` from an `NSDecimalNumber` (Apple's keys, see ``DecimalCoding``), from a plain NSNumber, or
    /// from the keyed form `Decimal`'s own `Codable` conformance writes (archives of earlier versions).
    static func decimal(_ node: DecodingContext.Node, _ context: DecodingContext, _ path: CodingPathNode) throws -> Decimal {
        let r = try record(node, context, Decimal.self, path)
        switch r.kind {
        case .integer:
            switch context.table.integer(r) {
            case .integer(let v): return Decimal(v)
            case .unsignedInteger(let v): return Decimal(v)
            default: break
            }
        case .real: return Decimal(context.table.double(r))
        case .dictionary:
            let name = try context.className(of: node)
            guard let name, DecimalCoding.classNames.contains(name) else {
                // Decimal's own keyed form.
                if context.field("mantissa", of: node) != nil {
                    return try context.nested(path) { try Decimal(from: _ArchiveDecoder(context: context, node: node, codingPathNode: path)) }
                }
                break
            }
            func required(_ key: String) throws -> DecodingContext.Node {
                guard let ref = context.field(key, of: node) else {
                    throw DecodingError.keyNotFound(
                        ArchiveCodingKey(key), .init(codingPath: path.path, debugDescription: "\(name) has no \(key)"))
                }
                return try context.resolve(ref)
            }
            let byteOrder = try context.field("NS.mantissa.bo", of: node).map { try integer(Int.self, context.resolve($0), context, path) } ?? 1
            let result = DecimalCoding.decimal(
                exponent: try integer(Int.self, required("NS.exponent"), context, path),
                length: try integer(Int.self, required("NS.length"), context, path),
                negative: try bool(required("NS.negative"), context, path),
                byteOrder: byteOrder,
                mantissa: [UInt8](try data(required("NS.mantissa"), context, path)))
            switch result {
            case .success(let value): return value
            case .failure(let error): throw DecodingError.archiveCorrupted("\(name): \(error.reason)", at: path)
            }
        default: break
        }
        throw DecodingError.archiveTypeMismatch(Decimal.self, at: path, found: context.describe(node))
    }

    static func uuid(_ node: DecodingContext.Node, _ context: DecodingContext, _ path: CodingPathNode) throws -> UUID {
        _ = try record(node, context, UUID.self, path)
        guard let bytesRef = context.field(FoundationKey.uuidBytes, of: node) else {
            throw DecodingError.archiveTypeMismatch(UUID.self, at: path, found: context.describe(node))
        }
        let bytes = try data(try context.resolve(bytesRef), context, path)
        guard bytes.count == 16 else {
            throw DecodingError.archiveCorrupted("NS.uuidbytes holds \(bytes.count) bytes, not 16", at: path)
        }
        var uuid = UUID().uuid
        withUnsafeMutableBytes(of: &uuid) { $0.copyBytes(from: bytes) }
        return UUID(uuid: uuid)
    }
}
