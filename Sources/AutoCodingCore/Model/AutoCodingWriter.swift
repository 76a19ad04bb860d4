import AutoCodingFast
import Foundation

/// What `@AutoCoding`'s generated `encode(to:)` writes properties with (``AutoCodingSupport/writer(_:)``): with this
/// package's encoder, straight into the object's fields, without a keyed container and its dispatch per field;
/// with any other encoder, through `container(keyedBy: AutoCodingKey.self)`. Not meant to be used directly.
public struct AutoCodingWriter {
    /// Where the fields go.
    private enum Target {
        /// This package's encoder and the fields of the object it encodes.
        case archive(_ArchiveEncoder, KeyedStorage)
        /// Another encoder's keyed container, boxed: `KeyedEncodingContainer` is resilient, so held inline it
        /// made every copy and destruction of the writer a value-witness call.
        case fallback(FallbackContainer<KeyedEncodingContainer<AutoCodingKey>>)
    }

    private let target: Target
    /// The same encoder's context and storage and the encoder, unretained, for ``write(_:key:)``: `target` owns
    /// them for the writer's life, and reading them as guaranteed references costs no retain and release per
    /// field. (Bound from `target` by `switch`, or from optionals by `guard let`, each was copied: three retains
    /// and releases per field write, 5 % of a W1 encode.)
    private let fast: (context: Unmanaged<EncodingContext>, storage: Unmanaged<KeyedStorage>,
                       archive: Unmanaged<_ArchiveEncoder>)?

    init(_ encoder: any Encoder) {
        if let archive = _ArchiveEncoder.opened(encoder) {
            let storage = archive.keyedStorage()
            target = .archive(archive, storage)
            fast = (.passUnretained(archive.context), .passUnretained(storage), .passUnretained(archive))
        } else {
            target = .fallback(FallbackContainer(encoder.container(keyedBy: AutoCodingKey.self)))
            fast = nil
        }
    }

    /// Writes a property, as `encode(_:forKey:)` would.
    func write<T: Encodable>(_ value: T, key: String) throws {
        guard let fast else { return try fallbackWrite(value, key: key) }
        let field = try fast.context._withUnsafeGuaranteedRef { context in
            try context.fieldValue(value) {
                fast.archive._withUnsafeGuaranteedRef { $0.codingPathNode.appending(ArchiveCodingKey(key)) }
            }
        }
        fast.storage._withUnsafeGuaranteedRef { $0.fields[key] = field }
    }

    /// Writes a string, as the generic `write(_:key:)` would, without testing the value's type.
    func write(_ value: String, key: String) throws {
        guard let fast else { return try fallbackWrite(value, key: key) }
        let uid = fast.context._withUnsafeGuaranteedRef { $0.builder.append(.string(value)) }
        fast.storage._withUnsafeGuaranteedRef { $0.fields[key] = .uid(uid) }
    }

    /// Writes an integer in place, as the generic `write(_:key:)` would.
    func write(_ value: Int, key: String) throws { try write(inline: .integer(Int64(value)), value, key: key) }

    /// Writes a real in place, as the generic `write(_:key:)` would.
    func write(_ value: Double, key: String) throws { try write(inline: .real(value), value, key: key) }

    /// Writes a boolean in place, as the generic `write(_:key:)` would.
    func write(_ value: Bool, key: String) throws { try write(inline: .bool(value), value, key: key) }

    /// Writes a date as an `NSDate`, as the generic `write(_:key:)` would.
    func write(_ value: Date, key: String) throws {
        guard let fast else { return try fallbackWrite(value, key: key) }
        let uid = fast.context._withUnsafeGuaranteedRef { $0.encodeDate(value) }
        fast.storage._withUnsafeGuaranteedRef { $0.fields[key] = .uid(uid) }
    }

    /// Writes `field`, the archived form of `value`, or `value` through another encoder's container.
    private func write<T: Encodable>(inline field: ArchiveValue, _ value: T, key: String) throws {
        guard let fast else { return try fallbackWrite(value, key: key) }
        fast.storage._withUnsafeGuaranteedRef { $0.fields[key] = field }
    }

    /// Writes `value` through another encoder's keyed container.
    private func fallbackWrite<T: Encodable>(_ value: T, key: String) throws {
        if case .fallback(let fallback) = target { try fallback.container.encode(value, forKey: AutoCodingKey(key)) }
    }

    /// Writes `$null`, as `encodeNil(forKey:)` would.
    func writeNil(key: String) throws {
        switch target {
        case .archive(_, let storage): storage.fields[key] = .uid(.null)
        case .fallback(let fallback): try fallback.container.encodeNil(forKey: AutoCodingKey(key))
        }
    }

    /// Writes a property in the forms of its ``ArchiveAs(_:)`` attribute. Other encoders than this package's get
    /// the plain value.
    func write<T: Encodable>(_ value: T, key: String, as forms: [ArchiveForm]) throws {
        guard case .archive(let archive, let storage) = target else {
            // Other coders cannot tell whether the object is written elsewhere: they leave a conditional reference
            // out (through them, a back reference would lead round its cycle for ever).
            if !forms.contains(.conditional), case .fallback(let fallback) = target {
                try fallback.container.encode(value, forKey: AutoCodingKey(key))
            }
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

/// Another coder's keyed container for ``AutoCodingWriter`` and ``AutoCodingReader``, held by reference.
final class FallbackContainer<Container> {
    var container: Container

    init(_ container: Container) { self.container = container }
}
