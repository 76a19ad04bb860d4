import AutoCodingFast
import Foundation

/// Decodes `Decodable` values from NSKeyedArchiver archives, the way `PropertyListDecoder` decodes plists.
///
/// It reads the validated table of a ``KeyedArchiveView`` directly, creating strings and values only for the
/// fields a type asks for. Foundation classes decode into the Swift types they map to (see
/// ``KeyedArchiveEncoder``). A class instance referenced from several places decodes to one instance
/// (`===`). A reference cycle cannot be decoded through `init(from:)`, which must return a finished value: it
/// is reported as a `DecodingError` naming the types on the cycle (`@AutoCoding` types decode cycles).
/// Nesting deeper than ``maxDepth`` is an error rather than a stack overflow.
public struct KeyedArchiveDecoder: Sendable {
    /// Limits for reading the bytes.
    public var options = ArchiveReadingOptions()
    /// Values for custom `init(from:)` implementations.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]
    /// How deeply values may nest while decoding (each nested object is one level). Default: 256.
    public var maxDepth = 256
    /// The registry consulted after this decoder's own ``setClass(_:forClassName:)`` entries.
    public var registry: ArchiveClassRegistry = .shared
    var classes: [String: any Decodable.Type] = [:]

    /// Creates a decoder with the defaults.
    public init() {}

    /// Decodes objects archived under `name` as `type` (Apple's `setClass(_:forClassName:)`).
    public mutating func setClass(_ type: any Decodable.Type, forClassName name: String) {
        classes[name] = type
    }

    /// Decodes the archive's root object as `type`.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try decode(type, from: [UInt8](data))
    }

    /// Decodes the archive's root object as `type`.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        let view: KeyedArchiveView
        do {
            view = try KeyedArchiveView(bytes: bytes, options: options)
        } catch {
            throw DecodingError.dataCorrupted(
                .init(codingPath: [], debugDescription: "The data is not a valid keyed archive: \(error)", underlyingError: error))
        }
        return try decode(type, from: view)
    }

    /// Decodes the root object of an opened archive as `type`.
    public func decode<T: Decodable>(_ type: T.Type, from view: KeyedArchiveView) throws -> T {
        guard let root = view.top(ArchiveKey.root) ?? view.topKeys.first.flatMap({ view.top($0) }) else {
            throw DecodingError.valueNotFound(
                type, .init(codingPath: [], debugDescription: "The archive's $top has no root entry"))
        }
        return try DecodingContext(decoder: self, view: view).decode(type, top: root)
    }

    /// Decodes the root object of `bytes` into an existing `@AutoCoding` instance.
    func decodeProperties(into object: any AutoCodingObject, from bytes: [UInt8]) throws {
        let view: KeyedArchiveView
        do {
            view = try KeyedArchiveView(bytes: bytes, options: options)
        } catch {
            throw DecodingError.archiveCorrupted("The data is not a valid keyed archive: \(error)", at: .root, underlying: error)
        }
        let context = DecodingContext(decoder: self, view: view)
        guard let root = view.rootUID else {
            throw DecodingError.valueNotFound(Swift.type(of: object), .init(codingPath: [], debugDescription: "no root object"))
        }
        try context.fill(object, from: context.resolve(context.view.topEntry(ArchiveKey.root, in: context.raw) ?? view.objectNumber(root, in: context.raw)))
    }
}
