import Foundation

/// The token that selects the allocation-only initializer `@AutoCoding` generates.
public struct AutoCodingShell: Sendable {
    /// Creates the token.
    public init() {}
}

/// A class archived by `AutoCoding(identityEquality:equatable:)`: `Codable`, with a property table and a two-phase
/// decode (allocate, then fill), so that decoding keeps identity through cycles.
///
/// The hooks play the parts of the seeds' tips and of NSCoding's `awakeAfterUsingCoder:`; their defaults do
/// nothing. They run when this package's coders archive the object.
public protocol AutoCodingObject: AnyObject, Codable {
    /// This class's own archived properties (not inherited ones): names and declared types, in order.
    static var codableProperties: [(name: String, type: Any.Type)] { get }
    /// Allocates an instance whose properties hold their default values, to be filled by decoding.
    init(autoCodingShell: AutoCodingShell)
    /// Reads the properties present in `decoder`'s object into `self` (superclass properties first).
    func decodeProperties(from decoder: any Decoder) throws
    /// Called before the automatic fields are encoded.
    func autoCodingWillEncode(to encoder: any Encoder) throws
    /// Called after the automatic fields: write extra keys here with `encoder.container(keyedBy:)`.
    func autoCodingDidEncode(to encoder: any Encoder) throws
    /// Called before the automatic fields are decoded.
    func autoCodingWillDecode(from decoder: any Decoder) throws
    /// Called after the automatic fields: read extra keys here.
    func autoCodingDidDecode(from decoder: any Decoder) throws
    /// The object to hand out in place of this one once it is decoded. Default: `self`. References decoded
    /// before the substitution (through a cycle) keep the original.
    func autoCodingReplacement() -> AnyObject
}

extension AutoCodingObject {
    /// Does nothing.
    public func autoCodingWillEncode(to encoder: any Encoder) throws {}
    /// Does nothing.
    public func autoCodingDidEncode(to encoder: any Encoder) throws {}
    /// Does nothing.
    public func autoCodingWillDecode(from decoder: any Decoder) throws {}
    /// Does nothing.
    public func autoCodingDidDecode(from decoder: any Decoder) throws {}
    /// Keeps `self`.
    public func autoCodingReplacement() -> AnyObject { self }

    /// The archived properties of this object's class and all its `@AutoCoding` superclasses, root first.
    public var codableProperties: [(name: String, type: Any.Type)] {
        var levels: [[(name: String, type: Any.Type)]] = []
        var current: AnyClass? = Swift.type(of: self)
        while let cls = current, let level = cls as? any AutoCodingObject.Type {
            let own = level.codableProperties
            let superLevel = _getSuperclass(cls) as? any AutoCodingObject.Type
            // A subclass without `@AutoCoding` inherits its superclass's table: count that table once.
            if superLevel?.codableProperties.map(\.name) != own.map(\.name) { levels.append(own) }
            current = _getSuperclass(cls)
        }
        return levels.reversed().flatMap { $0 }
    }

    /// The archived properties and their current values, by property name (the seeds' `dictionaryRepresentation`);
    /// nil optionals are left out.
    public var dictionaryRepresentation: [String: Any] {
        let names = Set(codableProperties.map(\.name))
        var result: [String: Any] = [:]
        var mirror: Mirror? = Mirror(reflecting: self)
        while let current = mirror {
            for child in current.children {
                guard let label = child.label else { continue }
                let name = label.hasPrefix("_") && !names.contains(label) ? String(label.dropFirst()) : label
                // A nil optional is left out, as AutoCoding 2.1's dictionaryRepresentation leaves out nil values.
                if names.contains(name), result[name] == nil, !Self.isNil(child.value) { result[name] = child.value }
            }
            mirror = current.superclassMirror
        }
        return result
    }

    private static func isNil(_ value: Any) -> Bool {
        let mirror = Mirror(reflecting: value)
        return mirror.displayStyle == .optional && mirror.children.isEmpty
    }

    /// Decodes the root object of `data` into this existing instance: keys present in the archive replace the
    /// property values, keys missing leave them (calling it with several archives merges them; the seeds'
    /// `setWithCoder:`).
    public func setValues(fromArchive data: Data, decoder: KeyedArchiveDecoder = .init()) throws {
        try decoder.decodeProperties(into: self, from: [UInt8](data))
    }

    /// A deep copy made by archiving and unarchiving this object (shared references and cycles inside it are
    /// kept; nothing is shared with the original).
    public func autoCodingCopy() throws -> Self {
        try KeyedArchiveDecoder().decode(Self.self, from: KeyedArchiveEncoder().encode(self))
    }

    /// Reads an object of this class from a file (the seeds' `objectWithContentsOfFile:`): a keyed archive,
    /// whose root must be of this class (or a registered subclass; another class is a `DecodingError` naming
    /// both), else a plain property list whose root dictionary holds the properties by key. Raw data cannot
    /// hold an object of this class: it is a `DecodingError` too.
    public static func read(contentsOfFile path: String, decoder: KeyedArchiveDecoder = .init()) throws -> Self {
        let bytes = try ArchiveFile.readBytes(path, limit: decoder.options.maxInputBytes)
        do {
            return try decoder.decode(Self.self, from: bytes)
        } catch let archiveError {
            switch try? ArchiveFile.contents(of: bytes, options: decoder.options) {
            case .propertyList?:
                let plist = PropertyListDecoder()
                plist.userInfo = decoder.userInfo.reduce(into: [:]) { $0[$1.key] = $1.value }
                return try plist.decode(Self.self, from: Data(bytes))
            case .data?:
                throw DecodingError.dataCorrupted(.init(
                    codingPath: [], debugDescription: "\(path) is neither a keyed archive nor a property list: "
                        + "its \(bytes.count) bytes of data cannot be a \(Self.self)"))
            default:
                throw archiveError
            }
        }
    }

    /// Writes this object as an archive file, atomically by default (temporary file, fsync, rename).
    public func write(toFile path: String, atomically: Bool = true, encoder: KeyedArchiveEncoder = .init()) throws {
        try ArchiveFile.write(try encoder.encode(self), to: path, atomically: atomically)
    }
}

/// A struct archived by `AutoCoding(identityEquality:equatable:)`: `Codable` with a property table.
public protocol AutoCodingValue: Codable {
    /// The archived properties: names and declared types, in order.
    static var codableProperties: [(name: String, type: Any.Type)] { get }
}

extension AutoCodingObject {
    /// Encodes `value`, an instance whose dynamic type is this one, with the hooks around its `encode(to:)`. Called
    /// through the metatype the encoder keeps per type (and has checked), so that an object costs no cast to the
    /// protocol.
    static func encodeWithHooks(_ value: any Encodable, to encoder: _ArchiveEncoder) throws {
        // Opened, the value's type is usually this very class: a comparison of metatypes, where `as? Self` is a
        // runtime cast (about 260 instructions, once per object).
        func exactly<V: Encodable>(_ value: V) -> Self? {
            // Once the types are equal, the value is a reference of this class: taken as one, unchecked (reading
            // it through `withUnsafePointer`, unspecialized here, cost 140 instructions an object).
            guard V.self == Self.self else { return value as? Self }
            return unsafeDowncast(ClassReferences.object(value), to: Self.self)
        }
        guard let object = exactly(value) else { return try value.encode(to: encoder) }
        try object.autoCodingWillEncode(to: encoder)
        try object.encode(to: encoder)
        try object.autoCodingDidEncode(to: encoder)
    }
}
