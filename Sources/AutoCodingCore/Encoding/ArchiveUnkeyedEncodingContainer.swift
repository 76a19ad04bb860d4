import AutoCodingFast

/// Writes a list. Every element is an `$objects` entry referenced by UID, as in an NSArray.
struct ArchiveUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let encoder: _ArchiveEncoder
    let storage: UnkeyedStorage
    var codingPath: [any CodingKey] { encoder.codingPath }
    var codingPathNode: CodingPathNode { encoder.codingPathNode }
    var count: Int { storage.elements.count }

    private var nextPath: CodingPathNode { codingPathNode.appending(index: count) }

    mutating func encodeNil() throws { storage.elements.append(.uid(.null)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        storage.elements.append(try encoder.context.encodeReference(value, codingPathNode: nextPath))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        let nested = KeyedStorage()
        storage.nested.append((count, .keyed(nested)))
        let child = _ArchiveEncoder(context: encoder.context, codingPathNode: nextPath)
        storage.elements.append(.dictionary([:]))
        return KeyedEncodingContainer(ArchiveKeyedEncodingContainer<NestedKey>(encoder: child, storage: nested))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = UnkeyedStorage()
        storage.nested.append((count, .unkeyed(nested)))
        let child = _ArchiveEncoder(context: encoder.context, codingPathNode: nextPath)
        storage.elements.append(.array([]))
        return ArchiveUnkeyedEncodingContainer(encoder: child, storage: nested)
    }

    mutating func superEncoder() -> any Encoder {
        let child = _ArchiveEncoder(context: encoder.context, codingPathNode: nextPath)
        storage.nested.append((count, .encoder(child)))
        storage.elements.append(.uid(.null))
        return child
    }
}

/// Writes a single value: the value itself, in place of an object.
struct ArchiveSingleValueEncodingContainer: SingleValueEncodingContainer {
    let encoder: _ArchiveEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }
    var codingPathNode: CodingPathNode { encoder.codingPathNode }

    mutating func encodeNil() throws { encoder.storage = .single(.uid(.null)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        if let scalar = EncodingContext.foundationScalar(value) {
            encoder.storage = .single(scalar)
        } else {
            encoder.storage = .single(try encoder.context.encodeReference(value, codingPathNode: codingPathNode))
        }
    }
}
