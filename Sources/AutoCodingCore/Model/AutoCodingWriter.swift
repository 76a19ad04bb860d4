import AutoCodingFast
import Foundation

/// What `@AutoCoding`'s generated `encode(to:)` writes properties with (``AutoCodingSupport/writer(_:)``): with this
/// package's encoder, straight into the object's fields, without a keyed container and its dispatch per field;
/// with any other encoder, through `container(keyedBy: AutoCodingKey.self)`. Not meant to be used directly.
public struct AutoCodingWriter {
    private let archive: _ArchiveEncoder?
    private let storage: KeyedStorage?
    /// With another encoder, its keyed container, boxed: `KeyedEncodingContainer` is resilient, so held inline it
    /// made every copy and destruction of the writer a value-witness call.
    private let fallback: FallbackContainer?

    init(_ encoder: any Encoder) {
        if let archive = _ArchiveEncoder.opened(encoder) {
            self.archive = archive
            storage = archive.keyedStorage()
            fallback = nil
        } else {
            archive = nil
            storage = nil
            fallback = FallbackContainer(encoder.container(keyedBy: AutoCodingKey.self))
        }
    }

    /// Writes a property, as `encode(_:forKey:)` would.
    func write<T: Encodable>(_ value: T, key: String) throws {
        guard let archive, let storage else {
            try fallback?.container.encode(value, forKey: AutoCodingKey(key))
            return
        }
        storage.fields[key] = try archive.context.fieldValue(value) { archive.codingPathNode.appending(ArchiveCodingKey(key)) }
    }

    /// Writes `$null`, as `encodeNil(forKey:)` would.
    func writeNil(key: String) throws {
        guard let storage else {
            try fallback?.container.encodeNil(forKey: AutoCodingKey(key))
            return
        }
        storage.fields[key] = .uid(.null)
    }

    /// Writes a property in the forms of its ``ArchiveAs(_:)`` attribute. Other encoders than this package's get
    /// the plain value.
    func write<T: Encodable>(_ value: T, key: String, as forms: [ArchiveForm]) throws {
        guard let archive, let storage else {
            // Other coders cannot tell whether the object is written elsewhere: they leave a conditional reference
            // out (through them, a back reference would lead round its cycle for ever).
            if !forms.contains(.conditional) { try fallback?.container.encode(value, forKey: AutoCodingKey(key)) }
            return
        }
        let path = archive.codingPathNode.appending(ArchiveCodingKey(key))
        if forms.contains(.conditional) {
            guard T.self is AnyClass else {
                throw EncodingError.invalidValue(value, .init(
                    codingPath: path.path,
                    debugDescription: "@ArchiveAs(.conditional) on a \(T.self): it applies to class instances"))
            }
            return archive.context.encodeConditional(ClassReferences.object(value), key: key, into: storage)
        }
        storage.fields[key] = try archive.context.encode(value, as: forms, codingPathNode: path)
    }
}

/// Another encoder's keyed container for ``AutoCodingWriter``, held by reference.
final class FallbackContainer {
    var container: KeyedEncodingContainer<AutoCodingKey>

    init(_ container: KeyedEncodingContainer<AutoCodingKey>) { self.container = container }
}
