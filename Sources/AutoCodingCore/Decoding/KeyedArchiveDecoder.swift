import AutoCodingFast
import Foundation

/// Decodes `Decodable` values from NSKeyedArchiver archives, the way `PropertyListDecoder` decodes plists.
///
/// It reads the archive's record table directly, creating strings and values only for the fields a type asks
/// for. Foundation classes decode into the Swift types they map to (see ``KeyedArchiveEncoder``). A class
/// instance referenced from several places decodes to one instance (`===`). A reference cycle cannot be
/// decoded through `init(from:)`, which must return a finished value: it is reported as a `DecodingError`
/// naming the types on the cycle (`@AutoCoding` types decode cycles). Nesting deeper than
/// `ArchiveReadingOptions.decodingDepthLimit` is an error rather than a stack overflow.
///
/// Validation is lazy, as with Apple's `NSKeyedUnarchiver`: ``decode(_:from:)-(_,[UInt8])`` checks the trailer
/// and the top-level entries, then validates each object of the file the first time the decode reaches it,
/// with the checks and error codes of `KeyedArchiveView` (offsets, markers, extents, string encodings,
/// references in range, string keys, UIDs below the object count, `$class` naming a class descriptor).
/// Damage is reported as `DecodingError.dataCorrupted` with the `ArchiveError` as its underlying error,
/// as damage found up front is. A decode that fails early has paid only for what it read, so a hostile file
/// costs in proportion to the decode, not to the file; the price is that **damage in objects the decode
/// never reaches is not reported**. To prove a whole file well formed, open it as a `KeyedArchiveView`
/// (or run `autocoding validate`), and decode that view with ``decode(_:from:)-(_,KeyedArchiveView)``.
public struct KeyedArchiveDecoder: Sendable {
    /// Limits for reading the bytes, and for the nesting of decoded values
    /// (`ArchiveReadingOptions.decodingDepthLimit`).
    public var options = ArchiveReadingOptions()
    /// Values for custom `init(from:)` implementations.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]
    /// The registry consulted after this decoder's own ``setClass(_:forClassName:)`` entries.
    public var registry: ArchiveClassRegistry = .shared
    /// Types by class name (``setClass(_:forClassName:)``). Metatypes are immutable, so sharing them across
    /// threads is safe; the checker cannot see that for a type that is not `Sendable` itself.
    nonisolated(unsafe) var classes: [String: any Decodable.Type] = [:]

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

    /// Decodes the archive's root object as `type`, validating each object as the decode reaches it.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        try decode(type, from: openTable(bytes))
    }

    /// Decodes the root object of `table`'s archive as `type`; the table keeps what the decode validated
    /// (``ArchiveRecordTable/validatedCount``), which tests read.
    package func decode<T: Decodable>(_ type: T.Type, from table: ArchiveRecordTable) throws -> T {
        try DecodingContext(decoder: self, table: table).decodeRoot(type)
    }

    /// Decodes the root object of an opened archive as `type`. The view was validated whole when it was
    /// opened, so nothing is checked again.
    public func decode<T: Decodable>(_ type: T.Type, from view: KeyedArchiveView) throws -> T {
        let table: ArchiveRecordTable
        do { table = try ArchiveRecordTable(view: view) } catch { throw DecodingContext.corrupted(error) }
        return try DecodingContext(decoder: self, table: table).decodeRoot(type)
    }

    /// Decodes the root object of `bytes` into an existing `@AutoCoding` instance.
    func decodeProperties(into object: any AutoCodingObject, from bytes: [UInt8]) throws {
        let context = DecodingContext(decoder: self, table: try openTable(bytes))
        // The root entry must be a UID: an object, not a scalar stored in place.
        guard let root = try context.rootEntry(), try context.record(root).kind == .uid else {
            throw DecodingError.valueNotFound(Swift.type(of: object), .init(codingPath: [], debugDescription: "no root object"))
        }
        try context.fill(object, from: context.resolve(root))
    }

    /// The record table of `bytes`, its trailer and top-level entries checked.
    private func openTable(_ bytes: [UInt8]) throws -> ArchiveRecordTable {
        do {
            return try ArchiveRecordTable(lazy: bytes, options: options)
        } catch {
            throw DecodingError.dataCorrupted(
                .init(codingPath: [], debugDescription: "The data is not a valid keyed archive: \(error)", underlyingError: error))
        }
    }
}
