import AutoCodingFast

/// Reads an object's fields by key, exactly as stored.
struct ArchiveKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: _ArchiveDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }
    var codingPathNode: CodingPathNode { decoder.codingPathNode }
    private var context: DecodingContext { decoder.context }

    var allKeys: [Key] {
        let object = decoder.node.object
        let table = context.table
        // The node's dictionary is validated, and with it its keys.
        let n = Int(context.record(of: decoder.node).count)
        return (0..<n).compactMap { i in
            let name = table.string(table.validated(table.ref(object, i)))
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

    func decodeNil(forKey key: Key) throws -> Bool {
        let node = try context.resolve(try entry(key))
        return try node.isNull || context.className(of: node) == "NSNull"
    }

    // MARK: Scalars: no coding-path node is built unless there is an error.

    /// Runs `read` on the value for `key`, adding the key to the path of an error it throws.
    @inline(__always)
    private func scalar<T>(_ key: Key, _ read: (DecodingContext.Node, CodingPathNode) throws -> T) throws -> T {
        let node = try context.resolve(try entry(key))
        do {
            return try read(node, decoder.codingPathNode)
        } catch let error as DecodingError {
            throw error.prefixingKey(key, below: decoder.codingPathNode)
        }
    }

    @inline(__always)
    private func optionalScalar<T>(_ key: Key, _ read: (DecodingContext.Node, CodingPathNode) throws -> T) throws -> T? {
        guard let object = context.field(key.stringValue, of: decoder.node) else { return nil }
        let node = try context.resolve(object)
        if node.isNull { return nil }
        do {
            return try read(node, decoder.codingPathNode)
        } catch let error as DecodingError {
            throw error.prefixingKey(key, below: decoder.codingPathNode)
        }
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String { try scalar(key) { try FoundationValues.string($0, context, $1) } }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try scalar(key) { try FoundationValues.bool($0, context, $1) } }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try scalar(key) { try FoundationValues.double($0, context, $1) } }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { FloatBits.float(try decode(Double.self, forKey: key)) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(key) }

    private func integer<I: FixedWidthInteger>(_ key: Key) throws -> I {
        try scalar(key) { try FoundationValues.integer(I.self, $0, context, $1) }
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try optionalScalar(key) { try FoundationValues.string($0, context, $1) }
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try optionalScalar(key) { try FoundationValues.integer(Int.self, $0, context, $1) }
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try optionalScalar(key) { try FoundationValues.double($0, context, $1) }
    }
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try optionalScalar(key) { try FoundationValues.bool($0, context, $1) }
    }

    // MARK: Everything else

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try context.decodeChild(type, at: try entry(key), key: ArchiveCodingKey(key), below: codingPathNode)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let object = context.field(key.stringValue, of: decoder.node) else { return nil }
        let node = try context.resolve(object)
        if node.isNull { return nil }
        return try context.decodeChild(type, node: node, key: ArchiveCodingKey(key), below: codingPathNode)
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
        return _ArchiveDecoder(context: context, node: try context.resolve(object), codingPathNode: codingPathNode.appending(ArchiveCodingKey(key)))
    }
}
