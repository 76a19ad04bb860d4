import AutoCodingFast
import Foundation

/// Writes an object's fields. Numbers and booleans are stored in place, as `encodeInteger:forKey:` and
/// `encodeBool:forKey:` store them; strings and everything else become `$objects` entries referenced by UID.
struct ArchiveKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: _ArchiveEncoder
    let storage: KeyedStorage
    var codingPath: [any CodingKey] { encoder.codingPath }
    var codingPathNode: CodingPathNode { encoder.codingPathNode }

    private func set(_ value: ArchiveValue, _ key: Key) { storage.fields[key.stringValue] = value }

    mutating func encodeNil(forKey key: Key) throws { set(.uid(.null), key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { set(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws {
        set(.uid(encoder.context.builder.append(.string(value))), key)
    }
    mutating func encode(_ value: Double, forKey key: Key) throws { set(.real(value), key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { set(.real(FloatBits.double(value)), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { set(.integer(Int64(value)), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { set(.integer(Int64(value)), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { set(.integer(Int64(value)), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { set(.integer(Int64(value)), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { set(.integer(value), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { set(InlineScalar.integer(value), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { set(.integer(Int64(value)), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { set(.integer(Int64(value)), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { set(.integer(Int64(value)), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { set(InlineScalar.integer(value), key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        // The context read as a guaranteed reference (`encoder` owns it): loaded from the encoder and passed on,
        // it was retained and released around every field.
        let field = try Unmanaged.passUnretained(encoder.context)._withUnsafeGuaranteedRef { context in
            try context.fieldValue(value) { codingPathNode.appending(ArchiveCodingKey(key)) }
        }
        set(field, key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        let nested = KeyedStorage()
        storage.nested.append((key.stringValue, .keyed(nested)))
        let child = _ArchiveEncoder(context: encoder.context, codingPathNode: codingPathNode.appending(ArchiveCodingKey(key)))
        return KeyedEncodingContainer(ArchiveKeyedEncodingContainer<NestedKey>(encoder: child, storage: nested))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = UnkeyedStorage()
        storage.nested.append((key.stringValue, .unkeyed(nested)))
        let child = _ArchiveEncoder(context: encoder.context, codingPathNode: codingPathNode.appending(ArchiveCodingKey(key)))
        return ArchiveUnkeyedEncodingContainer(encoder: child, storage: nested)
    }

    mutating func superEncoder() -> any Encoder { superEncoder(named: "super") }
    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(named: key.stringValue) }

    private func superEncoder(named name: String) -> any Encoder {
        let child = _ArchiveEncoder(context: encoder.context, codingPathNode: codingPathNode.appending(ArchiveCodingKey(name)))
        storage.nested.append((name, .encoder(child)))
        return child
    }
}
