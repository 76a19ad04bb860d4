import AutoCodingFast
import OrderedCollections

/// The `Encoder` handed to `encode(to:)`: it records which kind of container the value asked for.
final class _ArchiveEncoder: Encoder {
    enum Storage {
        case none
        case keyed(KeyedStorage)
        case unkeyed(UnkeyedStorage)
        case single(ArchiveValue)
    }

    let context: EncodingContext
    /// Set again when the encoder is reused for the next object (``EncodingContext/drain()``).
    @exclusivity(unchecked) var codingPathNode: CodingPathNode
    var codingPath: [any CodingKey] { codingPathNode.path }
    /// Confined to one encode on one thread, as ``EncodingContext``'s variables are: no exclusivity check.
    @exclusivity(unchecked) var storage: Storage = .none
    var userInfo: [CodingUserInfoKey: Any] { context.userInfo }

    init(context: EncodingContext, codingPathNode: CodingPathNode) {
        self.context = context
        self.codingPathNode = codingPathNode
    }

    /// `encoder` when it is this package's encoder: a comparison of its type, where `as?` is a runtime cast
    /// (about 260 instructions, once per object encoded), as ``_ArchiveDecoder/opened(_:)`` does.
    static func opened(_ encoder: any Encoder) -> _ArchiveEncoder? {
        func open<E: Encoder>(_ encoder: E) -> _ArchiveEncoder? {
            // Read as the reference it is once the types are equal (`unsafeBitCast` from a generic warns).
            E.self == _ArchiveEncoder.self
                ? withUnsafePointer(to: encoder) { UnsafeRawPointer($0).load(as: _ArchiveEncoder.self) } : nil
        }
        return open(encoder)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(ArchiveKeyedEncodingContainer(encoder: self, storage: keyedStorage()))
    }

    /// The fields of this encoder's keyed container, made the first time. A subclass's `encode(to:)` calling
    /// `super.encode(to: encoder)` asks again: the fields are shared.
    func keyedStorage() -> KeyedStorage {
        switch storage {
        case .keyed(let existing):
            return existing
        case .none:
            let fresh = context.takeKeyedStorage()
            storage = .keyed(fresh)
            return fresh
        default:
            preconditionFailure("requested a keyed container after another kind of container at \(codingPath)")
        }
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        switch storage {
        case .unkeyed(let existing): return ArchiveUnkeyedEncodingContainer(encoder: self, storage: existing)
        case .none:
            let fresh = UnkeyedStorage()
            storage = .unkeyed(fresh)
            return ArchiveUnkeyedEncodingContainer(encoder: self, storage: fresh)
        default:
            preconditionFailure("requested an unkeyed container after another kind of container at \(codingPath)")
        }
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        ArchiveSingleValueEncodingContainer(encoder: self)
    }

    /// The value this encoder produced, for nested and super encoders stored in place.
    func finish() throws(EquivalentFieldKeys) -> ArchiveValue {
        switch storage {
        case .none: return .dictionary([:])
        case .keyed(let s): return .dictionary(try s.finishedDictionary())
        case .unkeyed(let s): return try s.finish()
        case .single(let v): return v
        }
    }
}

/// Fields being written for one object; nested containers are filled in when it is finished.
///
/// Confined to one encode on one thread: its variables skip the runtime's exclusivity checks, which cost more
/// than the writes they guard (a field write per property of every object).
final class KeyedStorage {
    @exclusivity(unchecked) var fields = ArchiveFieldList()
    @exclusivity(unchecked) var nested: [(key: String, value: NestedStorage)] = []

    /// Writes the nested containers' values into ``fields``, which then hold the object's every field.
    func finish() throws(EquivalentFieldKeys) {
        for (key, value) in nested { fields[key] = try value.finish() }
        nested = []
    }

    /// The finished fields as a dictionary, for a container nested in place or `$top`.
    func finishedDictionary() throws(EquivalentFieldKeys) -> OrderedDictionary<String, ArchiveValue> {
        try finish()
        return try fields.dictionary()
    }
}

/// Elements being written for one list.
final class UnkeyedStorage {
    @exclusivity(unchecked) var elements: [ArchiveValue] = []
    @exclusivity(unchecked) var nested: [(index: Int, value: NestedStorage)] = []

    func finish() throws(EquivalentFieldKeys) -> ArchiveValue {
        for (index, value) in nested { elements[index] = try value.finish() }
        nested = []
        return .array(elements)
    }
}

/// A container or encoder nested in place inside another container.
enum NestedStorage {
    case keyed(KeyedStorage)
    case unkeyed(UnkeyedStorage)
    case encoder(_ArchiveEncoder)

    func finish() throws(EquivalentFieldKeys) -> ArchiveValue {
        switch self {
        case .keyed(let s): .dictionary(try s.finishedDictionary())
        case .unkeyed(let s): try s.finish()
        case .encoder(let e): try e.finish()
        }
    }
}

/// Inline scalars for the keyed container's primitive overloads (Apple's `encodeInteger:forKey:` and friends).
enum InlineScalar {
    static func integer<T: BinaryInteger>(_ value: T) -> ArchiveValue {
        ArchiveValue.integer(exactly: value) ?? .integer(0)
    }
}

extension EncodingError {
    /// The error for two fields of `value` whose keys a dictionary cannot hold apart (``EquivalentFieldKeys``).
    static func equivalentKeys(_ keys: EquivalentFieldKeys, in value: Any, at codingPath: [any CodingKey]) -> Self {
        .invalidValue(value, .init(codingPath: codingPath, debugDescription: keys.description, underlyingError: keys))
    }
}
