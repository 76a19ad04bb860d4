import AutoCodingFast

/// Reads an object's fields by key, exactly as stored.
struct ArchiveKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: _ArchiveDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }
    var codingPathNode: CodingPathNode { decoder.codingPathNode }
    private var context: DecodingContext { decoder.context }

    var allKeys: [Key] {
        let object = decoder.node.object
        let index = context.index
        let n = Int(index.records[object].count)
        return (0..<n).compactMap { i in
            let name = index.makeString(index.records[index.ref(object, i, in: context.raw)], in: context.raw)
            return name == ArchiveKey.class ? nil : Key(stringValue: name)
        }
    }

    func contains(_ key: Key) -> Bool { context.field(key.stringValue, of: decoder.node) != nil }

    private func entry(_ key: Key) throws -> Int {
        guard let object = context.field(key.stringValue, of: decoder.node) else {
            throw DecodingError.keyNotFound(
                key, .init(codingPath: codingPathNode.path, debugDescription: "No value for key \"\(key.stringValue)\"."))
        }
        return object
    }

    func decodeNil(forKey key: Key) throws -> Bool { context.resolve(try entry(key)).isNull }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try context.decode(type, at: try entry(key), path: codingPathNode.appending(ArchiveCodingKey(key)))
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let object = context.field(key.stringValue, of: decoder.node) else { return nil }
        let node = context.resolve(object)
        if node.isNull { return nil }
        return try context.decode(type, node: node, path: codingPathNode.appending(ArchiveCodingKey(key)))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try nestedDecoder(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try nestedDecoder(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { try nestedDecoder(ArchiveCodingKey("super"), required: false) }

    func superDecoder(forKey key: Key) throws -> any Decoder { try nestedDecoder(key, required: false) }

    private func nestedDecoder(_ key: any CodingKey, required: Bool = true) throws -> _ArchiveDecoder {
        guard let object = context.field(key.stringValue, of: decoder.node) else {
            if !required {
                return _ArchiveDecoder(context: context, node: .null, codingPathNode: codingPathNode.appending(ArchiveCodingKey(key)))
            }
            throw DecodingError.keyNotFound(
                key, .init(codingPath: codingPathNode.path, debugDescription: "No value for key \"\(key.stringValue)\"."))
        }
        return _ArchiveDecoder(context: context, node: context.resolve(object), codingPathNode: codingPathNode.appending(ArchiveCodingKey(key)))
    }
}
