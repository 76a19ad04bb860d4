/// How a Swift type decodes, decided once per type: a Foundation-mapped value, a list, a dictionary, or an
/// object through `init(from:)`.
enum DecodeKind {
    case foundation
    case list(any _ArchiveListDecodable.Type)
    case dictionary(any _ArchiveDictionaryDecodable.Type)
    case object(isClass: Bool)
    case autoCodingObject(any AutoCodingObject.Type)
    case archiveCoding(any ArchiveCoding.Type)

    /// Whether a reference to an instance decoded already is only looked up (see
    /// ``DecodingContext/decodeChild(_:at:key:below:)``): for any class instance, and for an `@AutoCoding` object
    /// while objects are being filled (outside a drain it starts one).
    @inline(__always)
    func sharesDecodedInstances(whileDraining isDraining: Bool) -> Bool {
        switch self {
        case .autoCodingObject: isDraining
        case .object(let isClass): isClass
        default: false
        }
    }
}

/// Remembers each type's ``DecodeKind``. A decode meets few types, so a short list compared by identity
/// beats hashing; the runtime's conformance lookups it replaces cost far more.
struct TypeKindCache {
    private var entries: [(type: ObjectIdentifier, kind: DecodeKind)] = []

    mutating func kind<T>(of type: T.Type) -> DecodeKind {
        let id = ObjectIdentifier(type)
        for entry in entries where entry.type == id { return entry.kind }
        let kind: DecodeKind
        if FoundationValues.handles(type) {
            kind = .foundation
        } else if let list = type as? any _ArchiveListDecodable.Type {
            kind = .list(list)
        } else if let dictionary = type as? any _ArchiveDictionaryDecodable.Type {
            kind = .dictionary(dictionary)
        } else if let coding = type as? any ArchiveCoding.Type {
            kind = .archiveCoding(coding)
        } else if let autoCoding = type as? any AutoCodingObject.Type {
            kind = .autoCodingObject(autoCoding)
        } else {
            kind = .object(isClass: type is AnyClass)
        }
        entries.append((id, kind))
        return kind
    }
}
