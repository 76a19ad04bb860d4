import AutoCodingFast
import OrderedCollections

/// Accumulates the `$objects` table while encoding: one entry per object, one descriptor per class, and an
/// identity memo so that an instance referenced many times is written once. Confined to one encode (its
/// variables skip the runtime's exclusivity checks, as ``EncodingContext``'s do).
final class ArchiveTableBuilder {
    @exclusivity(unchecked) private(set) var objects: [ArchiveValue] = [.string(ArchiveKey.null)]
    @exclusivity(unchecked) private var objectUIDs: [ObjectIdentifier: ArchiveUID] = [:]
    /// Keeps every memoized instance alive until encoding ends, so no `ObjectIdentifier` is reused.
    @exclusivity(unchecked) private var retained: [AnyObject] = []
    @exclusivity(unchecked) private var classUIDs: [ArchiveClass: ArchiveUID] = [:]

    /// Appends an entry and returns its UID.
    func append(_ value: ArchiveValue) -> ArchiveUID {
        objects.append(value)
        return ArchiveUID(UInt32(truncatingIfNeeded: objects.count - 1))
    }

    /// Reserves an entry to be filled by ``fill(_:with:)``.
    func reserve() -> ArchiveUID { append(.string(ArchiveKey.null)) }

    /// Fills a reserved entry.
    func fill(_ uid: ArchiveUID, with value: ArchiveValue) { objects[uid.index] = value }

    /// The UID already given to `object`, if any.
    func uid(of object: AnyObject) -> ArchiveUID? { objectUIDs[ObjectIdentifier(object)] }

    /// Remembers the UID of `object`.
    func remember(_ object: AnyObject, as uid: ArchiveUID) {
        objectUIDs[ObjectIdentifier(object)] = uid
        retained.append(object)
    }

    /// The UID of the class descriptor, written the first time a class is used.
    func classUID(_ archiveClass: ArchiveClass) -> ArchiveUID {
        if let uid = classUIDs[archiveClass] { return uid }
        let uid = append(archiveClass.descriptor)
        classUIDs[archiveClass] = uid
        return uid
    }

    /// Appends an instance of `archiveClass` with `fields` (the `$class` entry is added last).
    func appendInstance(_ archiveClass: ArchiveClass, _ fields: OrderedDictionary<String, ArchiveValue>) -> ArchiveUID {
        let uid = reserve()
        fillInstance(uid, archiveClass, fields)
        return uid
    }

    /// Fills a reserved entry with an instance.
    func fillInstance(_ uid: ArchiveUID, _ archiveClass: ArchiveClass, _ fields: OrderedDictionary<String, ArchiveValue>) {
        fillInstance(uid, classUID: classUID(archiveClass), fields)
    }

    /// Fills a reserved entry with an instance whose class descriptor is already written.
    func fillInstance(_ uid: ArchiveUID, classUID: ArchiveUID, _ fields: OrderedDictionary<String, ArchiveValue>) {
        var fields = fields
        fields[ArchiveKey.class] = .uid(classUID)
        objects[uid.index] = .dictionary(fields)
    }
}
