import Foundation

/// How a Swift type encodes, decided once per type.
enum EncodeKind {
    /// A plain entry: NSString, NSNumber, NSData.
    case scalar
    /// A Foundation instance: NSDate, NSURL, NSUUID, NSValue geometry.
    case foundationObject
    case list(any _ArchiveListEncodable.Type)
    case dictionary(any _ArchiveDictionaryEncodable.Type)
    /// An ``ArchivedValue``: written as the graph it is (objects, scalars in place or referenced).
    case graphValue
    /// An ``ArchiveCoding`` class: `encode(with:)`, archived once per instance.
    case archiveCoding
    /// `encode(to:)`; class instances are archived once each.
    case object(isClass: Bool)
}

/// Remembers each type's ``EncodeKind`` in a short list compared by identity (see `TypeKindCache`).
struct EncodeKindCache {
    private var entries: [(type: ObjectIdentifier, kind: EncodeKind)] = []

    private static let foundationObjects: [Any.Type] = [
        Date.self, URL.self, UUID.self, ArchiveRange.self, ArchivePoint.self, ArchiveSize.self, ArchiveRect.self,
        ArchiveEdgeInsets.self, Decimal.self,
    ]
    private static let scalars: [Any.Type] = [
        String.self, Int.self, Double.self, Bool.self, Int64.self, Int32.self, Int16.self, Int8.self, UInt.self,
        UInt64.self, UInt32.self, UInt16.self, UInt8.self, Float.self, Data.self,
    ]

    mutating func kind<T>(of type: T.Type) -> EncodeKind {
        let id = ObjectIdentifier(type)
        for entry in entries where entry.type == id { return entry.kind }
        let kind: EncodeKind
        if Self.scalars.contains(where: { $0 == type }) {
            kind = .scalar
        } else if type == ArchivedValue.self {
            kind = .graphValue
        } else if Self.foundationObjects.contains(where: { $0 == type }) {
            kind = .foundationObject
        } else if let list = type as? any _ArchiveListEncodable.Type {
            kind = .list(list)
        } else if let dictionary = type as? any _ArchiveDictionaryEncodable.Type {
            kind = .dictionary(dictionary)
        } else if type is any ArchiveCoding.Type {
            kind = .archiveCoding
        } else {
            kind = .object(isClass: type is AnyClass)
        }
        entries.append((id, kind))
        return kind
    }
}
