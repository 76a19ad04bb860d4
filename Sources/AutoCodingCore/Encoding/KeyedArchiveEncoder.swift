import AutoCodingFast
import Foundation
import OrderedCollections

/// Encodes `Encodable` values as NSKeyedArchiver archives, the way `PropertyListEncoder` encodes plists.
///
/// Swift values take the shapes Apple's Foundation classes archive with: `String` is an NSString, numbers and
/// `Bool` are NSNumbers, arrays are `NSArray` (`NS.objects`), dictionaries `NSDictionary` (`NS.keys`,
/// `NS.objects`) with any key type, sets `NSSet`, `Data` NSData, `Date` NSDate (`NS.time`), `URL` NSURL,
/// `UUID` NSUUID, and `nil` is `$null`. Other types are archived as instances of their module-qualified name
/// (see ``ArchiveCodable``) with one field per coding key. A class instance referenced several times is
/// archived once, and reference cycles between class instances encode without recursion.
public struct KeyedArchiveEncoder: Sendable {
    /// The property-list format written.
    public enum OutputFormat: Sendable {
        /// A binary plist (`bplist00`), written by the native writer.
        case binary
        /// An XML plist, written by libplist.
        case xml
    }

    /// The format of ``encode(_:)``'s output. Default: binary.
    public var outputFormat: OutputFormat = .binary
    /// The `$archiver` name written. Default: `NSKeyedArchiver`.
    public var archiver = "NSKeyedArchiver"
    /// Values for custom `encode(to:)` implementations.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]
    /// The registry consulted for class names after this encoder's own ``setClassName(_:for:)`` entries.
    public var registry: ArchiveClassRegistry = .shared
    var classNames: [ObjectIdentifier: String] = [:]

    /// Creates an encoder with the defaults.
    public init() {}

    /// Archives instances of `type` under `name` (Apple's `setClassName(_:for:)`).
    public mutating func setClassName(_ name: String, for type: Any.Type) {
        classNames[ObjectIdentifier(type)] = name
    }

    /// Encodes `value` as the archive's root object and returns the bytes.
    public func encode<T: Encodable>(_ value: T) throws -> Data {
        guard outputFormat == .binary else { return Data(try encodeBytes(value)) }
        // Written into the Data's own buffer: no copy of the whole output.
        let (context, top) = try encodeTable(value)
        return context.builder.binaryPlistData(archiver: archiver, top: top)
    }

    /// Encodes `value` as the archive's root object and returns the bytes. A binary plist is written straight
    /// from the encoder's flat table, with no `KeyedArchive` in between.
    public func encodeBytes<T: Encodable>(_ value: T) throws -> [UInt8] {
        let (context, top) = try encodeTable(value)
        switch outputFormat {
        case .binary: return context.builder.binaryPlist(archiver: archiver, top: top)
        case .xml: return try KeyedArchive(archiver: archiver, top: top, objects: context.builder.objects).xmlPlist()
        }
    }

    /// Encodes `value` as the root of an archive table, before it is written as a property list.
    public func encodeArchive<T: Encodable>(_ value: T) throws -> KeyedArchive {
        let (context, top) = try encodeTable(value)
        return KeyedArchive(archiver: archiver, top: top, objects: context.builder.objects)
    }

    private func encodeTable<T: Encodable>(_ value: T) throws -> (EncodingContext, OrderedDictionary<String, ArchiveValue>) {
        let context = EncodingContext(encoder: self)
        let root = try context.encodeReference(value, codingPathNode: .root)
        try context.drain()
        context.resolveConditionals()
        return (context, [ArchiveKey.root: root])
    }
}
