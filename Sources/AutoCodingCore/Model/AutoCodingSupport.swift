import AutoCodingFast
import Foundation

/// A coding key made from any string: `@AutoCoding` keys are property names, `@ArchiveKey` names and
/// fallbacks, which no single enum lists.
public struct AutoCodingKey: CodingKey, Hashable, Sendable {
    /// The key.
    public var stringValue: String
    /// Always nil.
    public var intValue: Int? { nil }
    /// Creates a key.
    public init(_ stringValue: String) { self.stringValue = stringValue }
    /// Creates a key.
    public init?(stringValue: String) { self.stringValue = stringValue }
    /// Integer keys are not used.
    public init?(intValue: Int) { nil }
}

/// Optionals, recognized whatever they wrap.
protocol _AutoCodingOptional {}
extension Optional: _AutoCodingOptional {}

/// The calls `@AutoCoding`'s generated code makes. Not meant to be called directly.
public enum AutoCodingSupport {
    /// The declared type of a property, from its key path.
    public static func type<Root, Value>(of keyPath: KeyPath<Root, Value>) -> Any.Type { Value.self }

    /// The writer `@AutoCoding`'s generated encoding uses (see ``AutoCodingWriter``).
    public static func writer(_ encoder: any Encoder) -> AutoCodingWriter { AutoCodingWriter(encoder) }

    /// Writes a property.
    public static func encode<T: Encodable>(_ value: T, to writer: inout AutoCodingWriter, key: String) throws {
        try writer.write(value, key: key)
    }

    /// Writes a `String` property (chosen over the generic overload by type): a referenced string entry, as the
    /// generic one writes it, without its tests of the value's type.
    public static func encode(_ value: String, to writer: inout AutoCodingWriter, key: String) throws {
        try writer.write(value, key: key)
    }

    /// Writes an `Int` property in place, as the generic overload would.
    public static func encode(_ value: Int, to writer: inout AutoCodingWriter, key: String) throws {
        try writer.write(value, key: key)
    }

    /// Writes a `Double` property in place, as the generic overload would.
    public static func encode(_ value: Double, to writer: inout AutoCodingWriter, key: String) throws {
        try writer.write(value, key: key)
    }

    /// Writes a `Bool` property in place, as the generic overload would.
    public static func encode(_ value: Bool, to writer: inout AutoCodingWriter, key: String) throws {
        try writer.write(value, key: key)
    }

    /// Writes a `Date` property as an `NSDate`, as the generic overload would.
    public static func encode(_ value: Date, to writer: inout AutoCodingWriter, key: String) throws {
        try writer.write(value, key: key)
    }

    /// Writes an optional property; `nil` writes `$null`, as Apple's `encodeObject:nil forKey:` does (so that
    /// Foundation's `decodeObject(forKey:)` finds the key). ``ArchiveForm/omitWhenNil`` leaves the key out.
    public static func encode<T: Encodable>(_ value: T?, to writer: inout AutoCodingWriter, key: String) throws {
        guard let value else {
            if !nilIsAbsent(T.self) { try writer.writeNil(key: key) }
            return
        }
        try writer.write(value, key: key)
    }

    /// Whether `nil` of a `T?` stands for an absent key: when `T` holds `$null` itself (a `T??` holds it as
    /// `.some(nil)`, an `ArchivedValue?` as `.null`), the outer `nil` is the missing key, as decoding reads it.
    static func nilIsAbsent<T>(_: T.Type) -> Bool {
        T.self == ArchivedValue.self || T.self is any _AutoCodingOptional.Type
    }

    /// Writes a property with the forms of its `ArchiveAs(_:)` attribute. Other encoders than this
    /// package's get the plain value.
    public static func encode<T: Encodable>(_ value: T, to writer: inout AutoCodingWriter, key: String,
                                            as forms: [ArchiveForm]) throws
    {
        try writer.write(value, key: key, as: forms)
    }

    /// Writes an optional property with the forms of its `ArchiveAs(_:)` attribute: `nil` writes `$null`,
    /// or nothing with ``ArchiveForm/omitWhenNil``.
    public static func encode<T: Encodable>(_ value: T?, to writer: inout AutoCodingWriter, key: String,
                                            as forms: [ArchiveForm]) throws
    {
        guard let value else {
            if !forms.contains(.omitWhenNil), forms.contains(.nullWhenNil) || !nilIsAbsent(T.self) {
                try writer.writeNil(key: key)
            }
            return
        }
        try writer.write(value, key: key, as: forms)
    }

    /// The reader `@AutoCoding`'s generated decoding uses (see ``AutoCodingReader``).
    public static func reader(_ decoder: any Decoder) throws -> AutoCodingReader { try AutoCodingReader(decoder) }

    /// Reads a property from the first of `keys` present; leaves it unchanged when none is. A value of
    /// another type is an error naming the owner, the key, the expected and the found type.
    public static func decode<T: Decodable>(_ property: inout T, from reader: AutoCodingReader, keys: [String],
                                            in owner: Any.Type) throws
    {
        try reader.read(&property, keys: keys, in: owner)
    }

    /// Reads an optional property: `$null` and `NSNull` read as nil.
    public static func decode<T: Decodable>(_ property: inout T?, from reader: AutoCodingReader, keys: [String],
                                            in owner: Any.Type) throws
    {
        try reader.read(&property, keys: keys, in: owner)
    }

    /// Reads a struct property that has no default value: the first of `keys` must be present.
    public static func decodeRequired<T: Decodable>(_ type: T.Type, from reader: AutoCodingReader, keys: [String],
                                                    in owner: Any.Type) throws -> T
    {
        try reader.readRequired(type, keys: keys, in: owner)
    }

    /// The same error, with a description that names the class and the key.
    static func describe(_ error: DecodingError, owner: Any.Type, key: String) -> DecodingError {
        switch error {
        case .typeMismatch(let type, let context):
            return .typeMismatch(type, .init(
                codingPath: context.codingPath,
                debugDescription: "\(owner).\(key): \(context.debugDescription)", underlyingError: context.underlyingError))
        case .valueNotFound(let type, let context):
            return .valueNotFound(type, .init(
                codingPath: context.codingPath,
                debugDescription: "\(owner).\(key): \(context.debugDescription)", underlyingError: context.underlyingError))
        default:
            return error
        }
    }

    /// `==` for `@AutoCoding` classes: the same class and equivalent archived graphs (cycles and sharing
    /// included), so equality follows the properties and terminates on cyclic graphs.
    public static func isEqual<T: AutoCodingObject>(_ lhs: T, _ rhs: T) -> Bool {
        if lhs === rhs { return true }
        guard Swift.type(of: lhs) == Swift.type(of: rhs),
            let left = try? KeyedArchiveEncoder().encodeArchive(lhs), let right = try? KeyedArchiveEncoder().encodeArchive(rhs),
            let a = try? ArchiveGraph(archive: left), let b = try? ArchiveGraph(archive: right)
        else { return false }
        // The graphs of cyclic models are cyclic, and would outlive every comparison.
        defer { a.breakReferenceCycles(); b.breakReferenceCycles() }
        return a.isEquivalent(to: b)
    }

    /// `==` for `@AutoCoding` structs: equivalent archived graphs (the properties, sharing of objects included).
    public static func isEqualValue<T: AutoCodingValue>(_ lhs: T, _ rhs: T) -> Bool {
        guard let left = try? KeyedArchiveEncoder().encodeArchive(lhs), let right = try? KeyedArchiveEncoder().encodeArchive(rhs),
            let a = try? ArchiveGraph(archive: left), let b = try? ArchiveGraph(archive: right)
        else { return false }
        // The graphs of cyclic models are cyclic, and would outlive every comparison.
        defer { a.breakReferenceCycles(); b.breakReferenceCycles() }
        return a.isEquivalent(to: b)
    }

    /// `hash(into:)` for `@AutoCoding` structs: the scalar properties, which `==` compares too.
    public static func hashValue<T: AutoCodingValue>(_ value: T, into hasher: inout Hasher) {
        hashScalars(of: value, into: &hasher)
    }

    /// `hash(into:)` for `@AutoCoding` classes: the class and its scalar properties, which `==` compares too.
    public static func hash<T: AutoCodingObject>(_ value: T, into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(Swift.type(of: value)))
        hashScalars(of: value, into: &hasher)
    }

    private static func hashScalars<T: Encodable>(of value: T, into hasher: inout Hasher) {
        guard let archive = try? KeyedArchiveEncoder().encodeArchive(value), let root = archive.rootUID,
            case .dictionary(let fields)? = archive[root]
        else { return }
        for (key, field) in fields where key != ArchiveKey.class {
            switch field {
            case .uid(let uid):
                if case .string(let s)? = archive[uid] { hasher.combine(key); hasher.combine(s) }
            case .array, .dictionary: break
            default: hasher.combine(key); hasher.combine(field)
            }
        }
    }
}
