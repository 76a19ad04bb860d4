import AutoCodingFast
import Foundation
import OrderedCollections

/// Accumulates the `$objects` table while encoding: one entry per object, one descriptor per class, and an
/// identity memo so that an instance referenced many times is written once. Instances are kept flat (see
/// `ArchiveObjectTable`): no dictionary per object between the encoders and the writer. Confined to one encode
/// (its variables skip the runtime's exclusivity checks, as ``EncodingContext``'s do).
final class ArchiveTableBuilder {
    @exclusivity(unchecked) private(set) var table = ArchiveObjectTable()
    @exclusivity(unchecked) private var objectUIDs = IdentityTable()
    /// Keeps every memoized instance alive until encoding ends, so no `ObjectIdentifier` is reused.
    @exclusivity(unchecked) private var retained: [AnyObject] = []
    @exclusivity(unchecked) private var classUIDs: [ArchiveClass: ArchiveUID] = [:]

    deinit {
        // The table's entries destroyed inline rather than by its buffers' generic deinit (freeing the table of a
        // 10,000-person encode: 20.4 → 17.3 M instructions).
        table.removeAll()
    }

    /// The table as plain values, for a ``KeyedArchive``.
    var objects: [ArchiveValue] { table.materialized }

    /// The archive as a binary property list, written straight from the flat table.
    func binaryPlist(archiver: String, top: OrderedDictionary<String, ArchiveValue>) -> [UInt8] {
        table.binaryPlist(archiver: archiver, top: top)
    }

    /// ``binaryPlist(archiver:top:)`` as a `Data` that owns the buffer written.
    func binaryPlistData(archiver: String, top: OrderedDictionary<String, ArchiveValue>) -> Data {
        table.binaryPlistData(archiver: archiver, top: top)
    }

    /// Appends an entry and returns its UID. A string appended before (the same storage, or the same small
    /// string) is that entry, as `NSKeyedArchiver` archives an object it has met once.
    func append(_ value: ArchiveValue) -> ArchiveUID {
        if case .string(let string) = value { return table.appendUniqued(string) }
        return table.append(value)
    }

    /// Room for `additional` more entries, so that a large collection's entries do not grow the table by doubling
    /// from wherever it stands.
    func reserveEntries(_ additional: Int) { table.reserveCapacity(additional: additional) }

    /// Reserves an entry to be filled by ``fill(_:with:)``.
    func reserve() -> ArchiveUID { table.append(.string(ArchiveKey.null)) }

    /// Fills a reserved entry.
    func fill(_ uid: ArchiveUID, with value: ArchiveValue) { table.set(uid, to: value) }

    /// Fills a reserved entry with a copy of another.
    func fill(_ uid: ArchiveUID, copying source: ArchiveUID) { table.copy(source, to: uid) }

    /// Points an instance's `$class` at `archiveClass`; false when the entry is not an instance.
    func setClass(_ uid: ArchiveUID, to archiveClass: ArchiveClass) -> Bool {
        table.setClass(uid, to: classUID(archiveClass))
    }

    /// Replaces the value of an instance's existing field; false when there is no such field.
    func setField(_ uid: ArchiveUID, _ key: String, to value: ArchiveValue) -> Bool {
        table.setField(uid, key, to: value)
    }

    /// The UID already given to `object`, if any.
    func uid(of object: AnyObject) -> ArchiveUID? { objectUIDs[ObjectIdentifier(object)] }

    /// Makes room to remember `count` more instances (the elements of a list of them).
    func reserveInstances(_ count: Int) { objectUIDs.reserve(count) }

    /// Remembers the UID of `object`.
    func remember(_ object: AnyObject, as uid: ArchiveUID) {
        objectUIDs[ObjectIdentifier(object)] = uid
        retained.append(object)
    }

    /// The UID of the class descriptor, written the first time a class is used.
    func classUID(_ archiveClass: ArchiveClass) -> ArchiveUID {
        // The classes used over and over (NSArray, NSDate ...) are the same constants each time: their strings
        // and chain compare by identity, far cheaper than hashing them for the dictionary.
        for (recent, uid) in recentClasses where recent == archiveClass { return uid }
        let uid: ArchiveUID
        if let known = classUIDs[archiveClass] {
            uid = known
        } else {
            uid = append(archiveClass.descriptor)
            classUIDs[archiveClass] = uid
        }
        if recentClasses.count == Self.recentClassLimit { recentClasses.removeFirst() }
        recentClasses.append((archiveClass, uid))
        return uid
    }

    @exclusivity(unchecked) private var recentClasses: [(ArchiveClass, ArchiveUID)] = []
    private static let recentClassLimit = 8

    /// Appends an instance of `archiveClass` with one field.
    func appendInstance(_ archiveClass: ArchiveClass, key: String, value: ArchiveValue) -> ArchiveUID {
        let uid = reserve()
        fillInstance(uid, classUID: classUID(archiveClass), key: key, value: value)
        return uid
    }

    /// Fills a reserved entry with an instance of one field whose class descriptor is already written.
    func fillInstance(_ uid: ArchiveUID, classUID: ArchiveUID, key: String, value: ArchiveValue) {
        table.setInstance(uid, classUID: classUID, key: key, value: value)
    }

    /// Where the next list's references start in the table (``appendListElement(_:)``).
    var listElementCount: Int { table.listElementCount }

    /// Appends a reference to the list being written: the elements of one list follow each other, so nothing
    /// that writes another list may run between its first element and ``fillList(_:classUID:key:from:)``.
    func appendListElement(_ uid: ArchiveUID) { table.appendListElement(uid) }

    /// Takes back the references appended since ``listElementCount`` was `start`, as values.
    func takeListElements(from start: Int) -> [ArchiveValue] { table.takeListElements(from: start) }

    /// Fills a reserved entry with an instance, whose class descriptor is already written, of one field, `key`,
    /// listing the references appended since ``listElementCount`` was `start`.
    func fillList(_ uid: ArchiveUID, classUID: ArchiveUID, key: String, from start: Int) {
        table.setList(uid, classUID: classUID, key: key, from: start)
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
        table.setInstance(uid, classUID: classUID, keys: fields.keys.elements, values: fields.values.elements)
    }

    /// Fills a reserved entry with an instance whose fields were written into `fields`, taking them (the list is
    /// left empty, with its storage).
    func fillInstance(_ uid: ArchiveUID, classUID: ArchiveUID, taking fields: inout ArchiveFieldList)
        throws(EquivalentFieldKeys)
    {
        try table.setInstance(uid, classUID: classUID, taking: &fields)
    }

    /// Fills a reserved entry with an instance of distinct `keys` and their `values`.
    func fillInstance(_ uid: ArchiveUID, _ archiveClass: ArchiveClass, keys: [String], values: [ArchiveValue]) {
        table.setInstance(uid, classUID: classUID(archiveClass), keys: keys, values: values)
    }
}
