import OrderedCollections

/// An NSKeyedArchiver archive as a flat table: the archiver name, the version, the `$top` roots and the
/// `$objects` table indexed by ``ArchiveUID``.
///
/// Values built with ``init(bytes:options:)`` or ``init(propertyList:options:)`` are validated: every UID
/// is below the object count, and every object that is a dictionary either is a class descriptor
/// (`$classname`, optional `$classes`) or has a `$class` UID naming one. Values built with the memberwise
/// initializer are taken as given; ``validate()`` checks them.
public struct KeyedArchive: Hashable, Sendable {
    /// The `$archiver` name: `NSKeyedArchiver`, or another name such as `SCNKeyedArchiver`.
    public var archiver: String
    /// The `$version`, 100000 for every known archiver.
    public var version: Int
    /// The `$top` dictionary: root names (`root`, `$0` ...) and the objects they refer to. Entries are
    /// usually UIDs; scalars encoded at the top level (a nib's `IB.systemFontUpdateVersion`) are stored inline.
    public var top: OrderedDictionary<String, ArchiveValue>
    /// The `$objects` table. Entry 0 is the string `$null`.
    public var objects: [ArchiveValue]

    /// Creates an archive from its parts, without validating them.
    public init(
        archiver: String = "NSKeyedArchiver",
        version: Int = ArchiveKey.formatVersion,
        top: OrderedDictionary<String, ArchiveValue>,
        objects: [ArchiveValue]
    ) {
        self.archiver = archiver
        self.version = version
        self.top = top
        self.objects = objects
    }

    /// The object a UID refers to, or nil when the UID is out of range.
    public subscript(uid: ArchiveUID) -> ArchiveValue? {
        uid.index < objects.count ? objects[uid.index] : nil
    }

    /// The root object's UID: `$top["root"]`, else the only `$top` entry, when it is a UID.
    public var rootUID: ArchiveUID? {
        if let root = top[ArchiveKey.root] { return root.uidValue }
        return top.count == 1 ? top.values.first?.uidValue : nil
    }
}
