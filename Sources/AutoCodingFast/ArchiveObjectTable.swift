#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OrderedCollections

/// The `$objects` table of an archive being written, kept flat: the encoders append to it, and the writer
/// numbers its objects straight from it (``binaryPlist(archiver:top:)``), with no value tree in between.
///
/// An instance entry is a class UID and a range of two shared field buffers (keys and values); its `$class`
/// field is implied, written after the others. Any other entry (a string, a number, a value built whole) is
/// an ``ArchiveValue``. ``materialized`` gives the same table as plain values, for ``KeyedArchive``. Noncopyable:
/// the field buffers are its own (``MovableBuffer``).
package struct ArchiveObjectTable: ~Copyable {
    /// One `$objects` entry.
    package enum Entry {
        /// An entry stored as it is written.
        case value(ArchiveValue)
        /// An instance of the class at `classUID`, its fields at `start..<start + count` of the field arrays.
        case instance(classUID: ArchiveUID, start: Int, count: Int)
        /// An instance of the class at `classUID` whose one field, `listKeys[key]` (`NS.objects`), is a list of
        /// references: `elements[start..<start + count]`. A Swift array of strings or objects is written so, four
        /// bytes an element, not as an `ArchiveValue` array allocated, reference counted and freed per list.
        case list(classUID: ArchiveUID, key: UInt32, start: Int, count: Int)
    }

    /// In a ``MovableBuffer`` as the fields are: a table that grows to tens of megabytes is extended or remapped,
    /// not copied at each doubling.
    private var entries = MovableBuffer<Entry>()
    private var keys = MovableBuffer<String>()
    private var values = MovableBuffer<ArchiveValue>()
    /// The references of the `.list` entries.
    private var elements = MovableBuffer<ArchiveUID>()
    /// The distinct keys of the `.list` entries (one, `NS.objects`, in practice).
    private var listKeys: [String] = []
    /// The entries of the strings appended by ``appendUniqued(_:)``, found by the string's own bits.
    private var stringEntries = ValueNumbers()

    /// An empty table but for entry 0, `$null`.
    package init() { entries.append(.value(.string(ArchiveKey.null))) }

    /// Empties the table (but for entry 0, `$null`), keeping its storage. The entries, keys and values are
    /// destroyed here, where their types are known, each inline (``MovableBuffer/removeAll()``): an owner calls it
    /// before dropping a large table, since a noncopyable struct's `deinit` cannot empty its own fields and the
    /// buffers' generic one destroys through the runtime, a value-witness call per element.
    package mutating func removeAll() {
        entries.removeAll()
        keys.removeAll()
        values.removeAll()
        elements.removeAll()
        stringEntries = ValueNumbers()
        entries.append(.value(.string(ArchiveKey.null)))
    }

    /// The entry at `uid` (below ``count``).
    package func entry(_ uid: ArchiveUID) -> Entry { entries[uid.index] }

    /// The number of entries.
    package var count: Int { entries.count }

    /// The number of instance fields, all instances together.
    var fieldCount: Int { keys.count }

    /// The number of references in lists, all `.list` entries together: where the next list's elements start.
    package var listElementCount: Int { elements.count }

    /// Room for `additional` more entries: the capacity at least doubles when it grows, so that many small
    /// reservations stay linear.
    package mutating func reserveCapacity(additional: Int) { entries.reserveCapacity(entries.count + additional) }

    /// Appends an entry and returns its UID.
    package mutating func append(_ value: ArchiveValue) -> ArchiveUID {
        entries.append(.value(value))
        return ArchiveUID(UInt32(truncatingIfNeeded: entries.count - 1))
    }

    /// The UID of the entry of `string`, appended the first time this very string is: `NSKeyedArchiver` archives
    /// an object it meets again as a reference to its first entry, by identity (Apple-made archives hold equal
    /// strings as several entries: 3,907 such entries in 19 of the corpus's 100). A Swift string's identity is its
    /// storage, or its bits for a small string, as a short `NSString` is a tagged pointer; equal strings in
    /// different storage are two entries, as two `NSString` objects are. Entry 0, `$null`, is not one of them. The
    /// table keeps each string, so no storage is freed and reused for another during the encode.
    package mutating func appendUniqued(_ string: String) -> ArchiveUID {
        let number = entries.count
        let existing = withUnsafeBytes(of: string) { bits in
            stringEntries.number(of: bits, orAdd: number) { candidate in
                guard case .value(.string(let stored)) = entries[candidate] else { return false }
                return StringBytes.identical(stored, string)
            }
        }
        if existing == number { entries.append(.value(.string(string))) }
        return ArchiveUID(UInt32(truncatingIfNeeded: existing))
    }

    /// Replaces an entry.
    package mutating func set(_ uid: ArchiveUID, to value: ArchiveValue) { entries[uid.index] = .value(value) }

    /// Replaces an entry with a copy of another.
    package mutating func copy(_ source: ArchiveUID, to uid: ArchiveUID) { entries[uid.index] = entries[source.index] }

    /// Makes an entry an instance of the class at `classUID` with `keys` and `values` (the same count), in
    /// that order. A field named `$class` takes the class reference in its place, as setting it in the
    /// dictionary would.
    package mutating func setInstance(_ uid: ArchiveUID, classUID: ArchiveUID, keys: [String], values: [ArchiveValue]) {
        if keys.contains(where: Self.isClassKey) {
            var fields = OrderedDictionary(uniqueKeys: keys, values: values)
            fields[ArchiveKey.class] = .uid(classUID)
            entries[uid.index] = .value(.dictionary(fields))
            return
        }
        entries[uid.index] = .instance(classUID: classUID, start: self.keys.count, count: keys.count)
        for key in keys { self.keys.append(key) }
        for value in values { self.values.append(value) }
    }

    /// Makes an entry an instance of the class at `classUID` with the fields of `fields`, moved out of it (no
    /// copy of each key and value, and none destroyed): the list is left empty, with its storage. Throws when
    /// the fields include `$class` and two canonically equivalent keys (``ArchiveFieldList/dictionary()``).
    package mutating func setInstance(_ uid: ArchiveUID, classUID: ArchiveUID, taking fields: inout ArchiveFieldList)
        throws(EquivalentFieldKeys)
    {
        if fields.mayHoldClassKey {
            // Written as a dictionary when the key is still there (setInstance(_:classUID:keys:values:) decides).
            defer { fields.removeAll() }
            let dictionary = try fields.dictionary()
            return setInstance(
                uid, classUID: classUID, keys: Array(dictionary.keys), values: Array(dictionary.values))
        }
        entries[uid.index] = .instance(classUID: classUID, start: keys.count, count: fields.count)
        fields.take(into: &keys, &values)
    }

    /// Appends a reference to the list being written (see ``setList(_:classUID:key:from:)``).
    package mutating func appendListElement(_ element: ArchiveUID) { elements.append(element) }

    /// Takes back the references appended since ``listElementCount`` was `start`, as values.
    package mutating func takeListElements(from start: Int) -> [ArchiveValue] {
        defer { elements.removeSuffix(from: start) }
        return listValues(start, elements.count - start)
    }

    /// Makes an entry an instance of the class at `classUID` whose one field, `key`, lists the references
    /// appended since ``listElementCount`` was `start`.
    package mutating func setList(_ uid: ArchiveUID, classUID: ArchiveUID, key: String, from start: Int) {
        let count = elements.count - start
        guard !Self.isClassKey(key) else {
            return setInstance(uid, classUID: classUID, keys: [key], values: [.array(listValues(start, count))])
        }
        let index = listKeys.firstIndex { StringBytes.equal($0, key) } ?? {
            listKeys.append(key)
            return listKeys.count - 1
        }()
        let key = UInt32(truncatingIfNeeded: index)
        entries[uid.index] = .list(classUID: classUID, key: key, start: start, count: count)
    }

    /// The references `elements[start..<start + count]` as values.
    private func listValues(_ start: Int, _ count: Int) -> [ArchiveValue] {
        (start..<start + count).map { .uid(elements[$0]) }
    }

    /// Makes an entry an instance of the class at `classUID` with one field.
    package mutating func setInstance(_ uid: ArchiveUID, classUID: ArchiveUID, key: String, value: ArchiveValue) {
        guard !Self.isClassKey(key) else { return setInstance(uid, classUID: classUID, keys: [key], values: [value]) }
        entries[uid.index] = .instance(classUID: classUID, start: keys.count, count: 1)
        keys.append(key)
        values.append(value)
    }

    /// Points an entry's `$class` at `classUID`; false when the entry is not an instance.
    package mutating func setClass(_ uid: ArchiveUID, to classUID: ArchiveUID) -> Bool {
        switch entries[uid.index] {
        case .instance(_, let start, let count):
            entries[uid.index] = .instance(classUID: classUID, start: start, count: count)
        case .list(_, let key, let start, let count):
            entries[uid.index] = .list(classUID: classUID, key: key, start: start, count: count)
        case .value(.dictionary(var fields)) where fields[ArchiveKey.class] != nil:
            fields[ArchiveKey.class] = .uid(classUID)
            entries[uid.index] = .value(.dictionary(fields))
        default:
            return false
        }
        return true
    }

    /// Replaces the value of an instance's existing field; false when there is no such field.
    package mutating func setField(_ uid: ArchiveUID, _ key: String, to value: ArchiveValue) -> Bool {
        switch entries[uid.index] {
        case .instance(_, let start, let count):
            let fields = start..<start + count
            guard let i = fields.first(where: { StringBytes.equal(keys[$0], key) }) else { return false }
            values[i] = value
        case .list(let classUID, let listKey, _, _):
            // Written as an instance of one field from then on.
            guard StringBytes.equal(listKeys[Int(listKey)], key) else { return false }
            setInstance(uid, classUID: classUID, key: key, value: value)
        case .value(.dictionary(var fields)) where fields[key] != nil:
            fields[key] = value
            entries[uid.index] = .value(.dictionary(fields))
        default:
            return false
        }
        return true
    }

    /// The whole table as plain values.
    package var materialized: [ArchiveValue] { (0..<entries.count).map { value(of: entries[$0]) } }

    private func value(of entry: Entry) -> ArchiveValue {
        switch entry {
        case .value(let value):
            return value
        case .instance(let classUID, let start, let count):
            var fields = OrderedDictionary<String, ArchiveValue>(minimumCapacity: count + 1)
            for i in start..<start + count { fields[keys[i]] = values[i] }
            fields[ArchiveKey.class] = .uid(classUID)
            return .dictionary(fields)
        case .list(let classUID, let key, let start, let count):
            return .dictionary([listKeys[Int(key)]: .array(listValues(start, count)), ArchiveKey.class: .uid(classUID)])
        }
    }

    /// The entries, the instances' field keys and values, and the lists' keys and references, read in place, for
    /// the writer.
    func withStorage<R>(
        _ body: (UnsafeBufferPointer<Entry>, UnsafeBufferPointer<String>, UnsafeBufferPointer<ArchiveValue>,
                 [String], UnsafeBufferPointer<ArchiveUID>) -> R
    ) -> R {
        entries.withUnsafeBufferPointer { entries in
            keys.withUnsafeBufferPointer { keys in
                values.withUnsafeBufferPointer { values in
                    elements.withUnsafeBufferPointer { elements in body(entries, keys, values, listKeys, elements) }
                }
            }
        }
    }

    /// The archive with this table as its `$objects`, as a binary property list: the bytes
    /// ``KeyedArchive/binaryPlist()`` writes for the same archive, numbered straight from the table.
    package func binaryPlist(archiver: String, top: OrderedDictionary<String, ArchiveValue>) -> [UInt8] {
        BPlistWriter.writeKeyedArchive(archiver: archiver, top: top, objects: self)
    }

    /// ``binaryPlist(archiver:top:)`` as a `Data` that owns the buffer written, with no copy.
    package func binaryPlistData(archiver: String, top: OrderedDictionary<String, ArchiveValue>) -> Data {
        BPlistWriter.writeKeyedArchiveData(archiver: archiver, top: top, objects: self)
    }

    /// Whether `key` is `$class` (its length first: nearly no key has six bytes and a `$`).
    static func isClassKey(_ key: String) -> Bool { key.utf8.count == 6 && key == ArchiveKey.class }
}
