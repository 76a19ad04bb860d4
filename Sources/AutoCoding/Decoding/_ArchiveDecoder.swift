import AutoCodingFast

/// The `Decoder` handed to `init(from:)`, positioned on one value of the archive.
struct _ArchiveDecoder: Decoder {
    let context: DecodingContext
    let node: DecodingContext.Node
    let codingPathNode: CodingPathNode
    var codingPath: [any CodingKey] { codingPathNode.path }
    var userInfo: [CodingUserInfoKey: Any] { context.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard !node.isNull else {
            throw DecodingError.valueNotFound(
                KeyedDecodingContainer<Key>.self, .init(codingPath: codingPathNode.path, debugDescription: "Found $null."))
        }
        guard context.index.records[node.object].kind == .dictionary else {
            throw DecodingError.archiveTypeMismatch(
                [String: Any].self, at: codingPathNode, found: context.describe(node))
        }
        return KeyedDecodingContainer(ArchiveKeyedDecodingContainer<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        ArchiveUnkeyedDecodingContainer(decoder: self, elements: try context.listElements(node, path: codingPathNode))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }
}

extension _ArchiveDecoder: SingleValueDecodingContainer {
    /// `$null`, and an `NSNull` instance, read as nil (so `NSNull` in an optional property is `nil`).
    func decodeNil() -> Bool { node.isNull || context.className(of: node) == "NSNull" }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try context.decode(type, node: node, path: codingPathNode)
    }
}
