import AutoCodingFast

/// What `@AutoCoding`'s generated decoding reads properties from. Not meant to be used directly.
///
/// Over this package's decoder it reads the archive's table directly: one key lookup per property, scalars
/// without a coding-path node, and no `KeyedDecodingContainer` box (whose generic calls cost a runtime metadata
/// lookup per property). Over any other `Decoder` it is a `KeyedDecodingContainer<AutoCodingKey>`.
public struct AutoCodingReader {
    private let archive: _ArchiveDecoder?
    private let container: KeyedDecodingContainer<AutoCodingKey>?
    /// Where the keys of the object's class are (over this package's decoder).
    private let slots: ArchiveKeySlots?

    /// A reader of the object `decoder` is positioned on.
    public init(_ decoder: any Decoder) throws {
        if let archive = decoder as? _ArchiveDecoder {
            try archive.checkKeyedObject()
            self.archive = archive
            container = nil
            slots = archive.context.keySlots(of: archive.node)
        } else {
            archive = nil
            slots = nil
            container = try decoder.container(keyedBy: AutoCodingKey.self)
        }
    }

    /// Reads the first of `keys` present into `property`; leaves it unchanged when none is.
    func read<T: Decodable>(_ property: inout T, keys: [String], in owner: Any.Type) throws {
        guard let archive else {
            guard let container, let key = keys.lazy.map(AutoCodingKey.init).first(where: container.contains) else { return }
            try Self.describing(owner, key.stringValue) { property = try container.decode(T.self, forKey: key) }
            return
        }
        let context = archive.context
        for key in keys {
            guard let object = context.field(key, of: archive.node, slots: slots) else { continue }
            try Self.describing(owner, key) {
                property = try context.decodeField(T.self, node: try context.resolve(object), key: key, below: archive.codingPathNode)
            }
            return
        }
    }

    /// Reads an optional property: absent keys leave it unchanged, `$null` and `NSNull` read as nil (except
    /// into an `ArchivedValue?`, which reads them as the archived value, and into a `T??`, which reads them as
    /// `.some(nil)`).
    func read<T: Decodable>(_ property: inout T?, keys: [String], in owner: Any.Type) throws {
        guard let archive else {
            guard let container, let key = keys.lazy.map(AutoCodingKey.init).first(where: container.contains) else { return }
            try Self.describing(owner, key.stringValue) {
                property = try container.decodeNil(forKey: key) ? nil : container.decode(T.self, forKey: key)
            }
            return
        }
        let context = archive.context
        for key in keys {
            guard let object = context.field(key, of: archive.node) else { continue }
            let node = try context.resolve(object)
            // An optional ArchivedValue keeps `$null` as `.null`, and a double optional (`T??`) as `.some(nil)`: nil
            // is for an absent key, so both re-encode as read.
            if T.self != ArchivedValue.self, try node.isNull || context.className(of: node) == "NSNull" {
                property = (T.self as? any ExpressibleByNilLiteral.Type).flatMap { $0.init(nilLiteral: ()) as? T }
                return
            }
            try Self.describing(owner, key) {
                property = try context.decodeField(T.self, node: node, key: key, below: archive.codingPathNode)
            }
            return
        }
    }

    /// Reads a property that has no default value: one of `keys` must be present.
    func readRequired<T: Decodable>(_ type: T.Type, keys: [String], in owner: Any.Type) throws -> T {
        var value: T?
        try read(&value, keys: keys, in: owner)
        guard let value else {
            let path = archive.map { $0.codingPathNode.path } ?? container?.codingPath ?? []
            throw DecodingError.keyNotFound(
                AutoCodingKey(keys[0]), .init(codingPath: path, debugDescription: "\(owner).\(keys[0]) is missing"))
        }
        return value
    }

    /// Runs `body`, naming the owner and the key in a decoding error it throws.
    @inline(__always)
    private static func describing(_ owner: Any.Type, _ key: String, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as DecodingError {
            throw AutoCodingSupport.describe(error, owner: owner, key: key)
        }
    }
}
