import AutoCodingFast

/// Reads an object's fields by key, exactly as stored.
struct ArchiveKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    /// The object read, as one reference: the standard library's `KeyedDecodingContainer` box copies the container
    /// for each field read, and a copy costs a retain and a release per reference the container holds (the
    /// decoder's context and path were two).
    private let state: KeyedReadState

    init(decoder: _ArchiveDecoder) { state = KeyedReadState(decoder) }

    var codingPath: [any CodingKey] { state.codingPathNode.path }
    var codingPathNode: CodingPathNode { state.codingPathNode }
    private var context: DecodingContext { state.context }

    var allKeys: [Key] {
        let object = state.node.object
        let table = context.table
        // The node's dictionary is validated, and with it its keys.
        let n = Int(context.record(of: state.node).count)
        return (0..<n).compactMap { i in
            let name = table.string(table.validated(table.ref(object, i)))
            return name == ArchiveKey.class ? nil : Key(stringValue: name)
        }
    }

    func contains(_ key: Key) -> Bool { field(key.stringValue) != nil }

    /// The bplist object stored under `key`, or nil.
    @inline(__always)
    private func field(_ key: String) -> Int? {
        let node = state.node
        return state.unretainedContext._withUnsafeGuaranteedRef { context in
            guard let slots = state.slots else { return context.field(key, of: node) }
            return slots._withUnsafeGuaranteedRef { context.field(key, of: node, slots: $0) }
        }
    }

    private func entry(_ key: Key) throws -> Int {
        guard let object = field(key.stringValue) else {
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
    private func scalar<T>(_ key: Key, _ read: FoundationValues.ScalarRead<T>) throws -> T {
        try state.unretainedContext._withUnsafeGuaranteedRef { context in
            let node = try context.resolve(try entry(key))
            do {
                return try read(node, context, state.codingPathNode)
            } catch let error as DecodingError {
                throw error.prefixingKey(key, below: state.codingPathNode)
            }
        }
    }

    @inline(__always)
    private func optionalScalar<T>(_ key: Key, _ read: FoundationValues.ScalarRead<T>) throws -> T? {
        try state.unretainedContext._withUnsafeGuaranteedRef { context in
            guard let object = field(key.stringValue) else { return nil }
            let node = try context.resolve(object)
            if node.isNull { return nil }
            do {
                return try read(node, context, state.codingPathNode)
            } catch let error as DecodingError {
                throw error.prefixingKey(key, below: state.codingPathNode)
            }
        }
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String { try scalar(key) { try FoundationValues.string($0, $1, $2) } }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try scalar(key) { try FoundationValues.bool($0, $1, $2) } }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try scalar(key) { try FoundationValues.double($0, $1, $2) } }
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
        try scalar(key) { try FoundationValues.integer(I.self, $0, $1, $2) }
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try optionalScalar(key) { try FoundationValues.string($0, $1, $2) }
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try optionalScalar(key) { try FoundationValues.integer(Int.self, $0, $1, $2) }
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try optionalScalar(key) { try FoundationValues.double($0, $1, $2) }
    }
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try optionalScalar(key) { try FoundationValues.bool($0, $1, $2) }
    }

    // MARK: Everything else

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try state.unretainedContext._withUnsafeGuaranteedRef { context in
            try context.decodeChild(type, at: try entry(key), key: ArchiveCodingKey(key), below: state.codingPathNode)
        }
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try state.unretainedContext._withUnsafeGuaranteedRef { context in
            guard let object = field(key.stringValue) else { return nil }
            let node = try context.resolve(object)
            if node.isNull { return nil }
            return try context.decodeChild(type, node: node, key: ArchiveCodingKey(key), below: state.codingPathNode)
        }
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
        guard let object = field(key.stringValue) else {
            if !required {
                return _ArchiveDecoder(context: context, node: .null, codingPathNode: codingPathNode.appending(ArchiveCodingKey(key)))
            }
            throw DecodingError.keyNotFound(
                key, .init(codingPath: codingPathNode.path, debugDescription: "No value for key \"\(key.stringValue)\"."))
        }
        return _ArchiveDecoder(context: context, node: try context.resolve(object), codingPathNode: codingPathNode.appending(ArchiveCodingKey(key)))
    }
}

/// What an ``ArchiveKeyedDecodingContainer`` reads: the object's node and path, the decoder's context, and the key
/// slots of the object's class (``DecodingContext/keySlots(of:)``), through which its fields are found as the
/// `@AutoCoding` reader finds them. Not generic: a class nested in the generic container would have its metadata
/// looked up at run time for each container made.
final class KeyedReadState {
    let context: DecodingContext
    let node: DecodingContext.Node
    let codingPathNode: CodingPathNode
    /// The context again, and the slots, unretained for the field lookups (which would otherwise retain and
    /// release both for each): `context` owns the context, and the context every class's slots for the decode.
    let unretainedContext: Unmanaged<DecodingContext>
    let slots: Unmanaged<ArchiveKeySlots>?

    init(_ decoder: _ArchiveDecoder) {
        context = decoder.context
        node = decoder.node
        codingPathNode = decoder.codingPathNode
        unretainedContext = .passUnretained(decoder.context)
        slots = decoder.context.keySlots(of: decoder.node).map { .passUnretained($0) }
    }
}
