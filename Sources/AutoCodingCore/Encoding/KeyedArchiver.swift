import AutoCodingFast
import Foundation
import OrderedCollections

/// Writes keyed archives with NSCoder-shaped calls, for ``ArchiveCoding`` classes and for building archives
/// key by key.
///
/// At the top level, `encode(_:forKey:)` writes `$top` entries (``archivedData(withRootObject:requiringSecureCoding:)``
/// uses `root`); inside ``ArchiveCoding/encode(with:)`` it writes the object's fields. Numbers and booleans are
/// stored in place; strings, data and objects are `$objects` entries referenced by UID. An object is archived
/// once however often it is referenced. ``encodeConditionalObject(_:forKey:)`` writes a reference only when
/// the object is archived unconditionally somewhere else, and `$null` otherwise.
public final class KeyedArchiver {
    let context: EncodingContext
    let storage: KeyedStorage
    /// The `$objects` entry whose fields this archiver writes; nil for `$top`.
    let owner: ArchiveUID?
    private var finished: KeyedArchive?
    private var finishedTop: OrderedDictionary<String, ArchiveValue>?

    /// Whether decoders of this archive are expected to use secure decoding (recorded for callers; the
    /// archive format is the same).
    public let requiresSecureCoding: Bool
    /// The property-list format of ``encodedData()``. Default: binary.
    public var outputFormat: KeyedArchiveEncoder.OutputFormat = .binary

    /// Creates an archiver that writes `$top` entries.
    public init(requiringSecureCoding: Bool = false, encoder: KeyedArchiveEncoder = .init()) {
        context = EncodingContext(encoder: encoder)
        storage = KeyedStorage()
        owner = nil
        requiresSecureCoding = requiringSecureCoding
        outputFormat = encoder.outputFormat
    }

    init(context: EncodingContext, owner: ArchiveUID) {
        self.context = context
        storage = KeyedStorage()
        self.owner = owner
        requiresSecureCoding = false
    }

    /// Archives `object` under `root` and returns the binary plist, as Apple's method of the same name does.
    public static func archivedData(withRootObject object: Any?, requiringSecureCoding: Bool = false) throws -> Data {
        let archiver = KeyedArchiver(requiringSecureCoding: requiringSecureCoding)
        try archiver.encode(object, forKey: ArchiveKey.root)
        return try archiver.encodedData()
    }

    /// Archives instances of `type` under `name` in this archive (Apple's `setClassName(_:for:)`).
    public func setClassName(_ name: String, for type: Any.Type) {
        context.setClassName(name, for: type)
    }

    // MARK: Scalars, stored in place

    /// Stores a boolean in place.
    public func encode(_ value: Bool, forKey key: String) { storage.fields[key] = .bool(value) }
    /// Stores an integer in place.
    public func encode(_ value: Int, forKey key: String) { storage.fields[key] = .integer(Int64(value)) }
    /// Stores an integer in place.
    public func encode(_ value: Int32, forKey key: String) { storage.fields[key] = .integer(Int64(value)) }
    /// Stores an integer in place.
    public func encode(_ value: Int64, forKey key: String) { storage.fields[key] = .integer(value) }
    /// Stores a number in place.
    public func encode(_ value: Double, forKey key: String) { storage.fields[key] = .real(value) }
    /// Stores a number in place.
    public func encode(_ value: Float, forKey key: String) { storage.fields[key] = .real(FloatBits.double(value)) }
    /// Stores raw bytes in place (`encodeBytes:length:forKey:`).
    public func encodeBytes(_ bytes: [UInt8], forKey key: String) { storage.fields[key] = .data(bytes) }

    // MARK: Objects, referenced by UID

    /// Archives a string (an NSString), or `$null`.
    public func encode(_ value: String?, forKey key: String) {
        storage.fields[key] = value.map { .uid(context.builder.append(.string($0))) } ?? .uid(.null)
    }

    /// Archives any supported value: an ``ArchiveCoding`` object, an `Encodable` value, an ``ArchivedObject``
    /// or ``ArchivedValue`` from a decoded graph, or `nil`.
    public func encode(_ value: Any?, forKey key: String) throws {
        storage.fields[key] = try context.encodeAny(value, codingPathNode: .root)
    }

    /// Archives an `Encodable` value through the Codable bridge.
    public func encodeEncodable<T: Encodable>(_ value: T, forKey key: String) throws {
        storage.fields[key] = try context.encodeReference(value, codingPathNode: .root)
    }

    /// Archives an `Encodable` value in the given forms: `[.archiveClass("NSMutableArray", "NSArray", "NSObject")]`
    /// for a root array that must stay mutable, `[.referenced]` for a number as its own entry (see ``ArchiveForm``).
    public func encodeEncodable<T: Encodable>(_ value: T, forKey key: String, as forms: [ArchiveForm]) throws {
        storage.fields[key] = try context.encode(value, as: forms, codingPathNode: .root)
    }

    /// Writes a reference to `object` only if it is archived unconditionally elsewhere; `$null` otherwise.
    public func encodeConditionalObject(_ object: AnyObject?, forKey key: String) {
        storage.fields[key] = .uid(.null)
        guard let object else { return }
        context.conditionals.append(.init(owner: owner, storage: owner == nil ? storage : nil, key: key, object: object))
    }

    /// Whether this archiver has written a value for `key`.
    public func containsValue(forKey key: String) -> Bool { storage.fields[key] != nil }

    // MARK: Output

    /// Finishes the archive and returns it as a table. Later calls return the same archive.
    public func finishEncoding() throws -> KeyedArchive {
        if let finished { return finished }
        let archive = KeyedArchive(archiver: context.archiverName, top: try finishTop(), objects: context.builder.objects)
        finished = archive
        return archive
    }

    /// The finished archive as bytes in ``outputFormat``. A binary plist is written straight from the table.
    public func encodedData() throws -> Data {
        switch outputFormat {
        case .binary: return context.builder.binaryPlistData(archiver: context.archiverName, top: try finishTop())
        case .xml: return Data(try finishEncoding().xmlPlist())
        }
    }

    /// Encodes the queued objects and returns `$top`, once.
    private func finishTop() throws -> OrderedDictionary<String, ArchiveValue> {
        if let finishedTop { return finishedTop }
        try context.drain()
        context.resolveConditionals()
        let top: OrderedDictionary<String, ArchiveValue>
        do {
            top = try storage.finishedDictionary()
        } catch {
            throw EncodingError.equivalentKeys(error, in: self, at: [])
        }
        finishedTop = top
        return top
    }
}
