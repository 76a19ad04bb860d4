import AutoCodingFast

/// The `Decoder` handed to `init(from:)`, positioned on one value of the archive.
struct _ArchiveDecoder: Decoder {
    let context: DecodingContext
    let node: DecodingContext.Node
    let codingPathNode: CodingPathNode
    var codingPath: [any CodingKey] { codingPathNode.path }
    var userInfo: [CodingUserInfoKey: Any] { context.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try checkKeyedObject()
        return KeyedDecodingContainer(ArchiveKeyedDecodingContainer<Key>(decoder: self))
    }

    /// Throws unless this value is an object (a dictionary entry) whose fields can be read by key.
    func checkKeyedObject() throws {
        guard !node.isNull else {
            throw DecodingError.valueNotFound(
                [String: Any].self, .init(codingPath: codingPathNode.path, debugDescription: "Found $null."))
        }
        guard context.kind(node) == .dictionary else {
            throw DecodingError.archiveTypeMismatch(
                [String: Any].self, at: codingPathNode, found: context.describe(node))
        }
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        ArchiveUnkeyedDecodingContainer(decoder: self, elements: try context.listElements(node, path: codingPathNode))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    /// `decoder` when it is this package's decoder: a comparison of its type, where `as?` is a runtime cast
    /// (about 340 instructions, once per object decoded).
    static func opened(_ decoder: any Decoder) -> _ArchiveDecoder? {
        func open<D: Decoder>(_ decoder: D) -> _ArchiveDecoder? {
            D.self == _ArchiveDecoder.self ? unsafeBitCast(decoder, to: _ArchiveDecoder.self) : nil
        }
        return open(decoder)
    }
}

extension _ArchiveDecoder: SingleValueDecodingContainer {
    /// `$null`, and an `NSNull` instance, read as nil (so `NSNull` in an optional property is `nil`). Damage met
    /// while reading the class reads as "not nil": the decode that follows reaches it again and throws.
    func decodeNil() -> Bool { node.isNull || context.isNSNull(node) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try context.decode(type, node: node, path: codingPathNode)
    }
}
