import OrderedCollections

/// `$objects` entries of a validated ``KeyedArchiveView``, read by bplist object number by object builders that
/// make one pass over the table (the object layer's graph): no ``KeyedArchive`` and no intermediate value per
/// field in between. A builder walks an instance's keys and values as object numbers, dispatches on each
/// value's ``kind(_:)``, and asks for a built ``value(_:)`` only for what it keeps as a plist value; every
/// string, data or plain container is built once per bplist object and shared by every reference to it.
///
/// The view proved the keyed-archive rules when it was opened (UIDs in range, `$class` naming a descriptor,
/// `$top` holding no containers, references in range, keys strings, nesting within the depth limit), so
/// nothing here checks them again. What building still checks is what only building finds: a dictionary
/// holding one key twice (``duplicateKey(_:object:)``, the rule and message of
/// ``KeyedArchiveView/keyedArchive()``).
///
/// A class, so that the builder's many small reads pass one reference, not a copy of the view. Not
/// thread-safe: one per build.
///
/// `@usableFromInline`, with the few stored properties its hot readers use (``ref(_:_:)``, ``uid(ifUID:)`` and
/// the like), so that those readers are inlined into the builders of AutoCodingCore: as calls across the module
/// boundary they were about a tenth of a W1 graph's instructions, each reloading what an inlined loop keeps in
/// registers.
@usableFromInline package final class KeyedArchiveEntries {
    private let view: KeyedArchiveView
    private let records: IndexRecords
    /// The view's records, its bytes, its reference width, its `$objects` array and a reader of its records, for
    /// the inlined readers.
    @usableFromInline let recordList: RecordBuffer
    @usableFromInline let raw: UnsafeRawBufferPointer
    @usableFromInline let refSize: Int
    @usableFromInline let objectsArray: Int
    @usableFromInline let reader: BPlistIndex
    /// Mutated only by ``value(_:)`` and ``top()``, never reentrantly, so it skips the runtime's checks.
    @exclusivity(unchecked) private var walk: ValueWalk
    /// The containers referenced from more than one place (found by the expanded-size check).
    private let sharedContainers: Set<Int>

    /// Entries of `view`, after the check that its shared references expand to at most the view's node budget
    /// (the check ``KeyedArchiveView/keyedArchive()`` makes, so both forms refuse the same archives).
    package init(_ view: KeyedArchiveView) throws(ArchiveError) {
        sharedContainers = try view.index.checkExpandedSize(
            in: view.raw, limit: view.options.expandedNodeLimit(forInputBytes: view.raw.count), forLibplist: false)
        self.view = view
        records = view.records
        recordList = view.index.records
        raw = view.raw
        refSize = view.index.trailer.objectRefSize
        objectsArray = view.objectsArray
        reader = BPlistIndex(recordReaderFor: view.index.trailer)
        // The builder asks the cache only for what is neither a string entry nor a plain scalar: data, plain
        // containers and what they hold, class descriptors, `$top`. A slot per bplist object finds those without
        // hashing, but past ``denseCacheLimit`` objects the slots are more fresh memory (21.6 MB for W1's 5.4
        // million) than the few values they find are worth.
        let objects = view.index.records.count
        walk = .proven(cache: objects <= Self.denseCacheLimit ? ValueCache(dense: objects) : ValueCache())
    }

    /// The most bplist objects for which the value cache keeps a slot per object (256 KiB of slots).
    static let denseCacheLimit = 1 << 16

    /// The number of `$objects` entries.
    package var count: Int { view.objectCount }

    /// The bplist object number of `$objects[uid]`; `uid` must be below ``count``.
    @inlinable @inline(__always)
    package func object(ofEntry uid: Int) -> Int { ref(objectsArray, uid) }

    /// The kind of bplist object `object` (a number this type handed out).
    @inlinable @inline(__always)
    package func kind(_ object: Int) -> BPlistIndex.Kind { recordList[object].kind }

    /// Whether bplist object `object` is a string that Swift keeps in storage of its own: UTF-16, or ASCII of more
    /// than 15 bytes (a shorter one lives in the `String` value itself).
    @inlinable @inline(__always)
    package func isLongString(_ object: Int) -> Bool {
        let record = recordList[object]
        return record.kind == .utf16String || (record.kind == .asciiString && record.count > 15)
    }

    /// The elements of array `object`, or the entries of dictionary `object` (keys `0..<n`, values `n..<2n` in
    /// ``ref(_:_:)``).
    @inlinable @inline(__always)
    package func count(_ object: Int) -> Int { Int(recordList[object].count) }

    /// The object number of element `i` of array `object`, or of key `i` (value `count + i`) of dictionary
    /// `object`.
    @inlinable @inline(__always)
    package func ref(_ object: Int, _ i: Int) -> Int {
        BPlistBytes.reference(raw, at: recordList[object].offset, slot: i, width: refSize)
    }

    /// Whether container `object` is referenced from more than one place, so that a builder keeps it one value.
    @inline(__always)
    package func isShared(_ object: Int) -> Bool { !sharedContainers.isEmpty && sharedContainers.contains(object) }

    /// The UID held by UID object `object`: below ``count``, as the view checked every UID.
    @inlinable @inline(__always)
    package func uid(_ object: Int) -> Int { Int(reader.uid(recordList[object])) }

    /// The UID held by `object`, or nil when it is not a UID object: the builder's first question about a field.
    @inlinable @inline(__always)
    package func uid(ifUID object: Int) -> Int? {
        let record = recordList[object]
        return record.kind == .uid ? Int(reader.uid(record)) : nil
    }

    /// What the `$class` of `$objects[uid]` (at bplist object `object`) is, found from `hint`.
    package enum ClassReference {
        /// Not an instance: not a dictionary, or a dictionary without `$class` (a class descriptor).
        case none
        /// An instance whose `$class` names this entry (a class descriptor, as the view checked).
        case uid(Int)
        /// An instance whose `$class` is not a UID (possible only beside a `$classname`, which the view does
        /// not check further): its class is unnamed, as ``KeyedArchive/archiveClass(of:)`` reads it.
        case unnamed
    }

    /// The `$class` of the entry at bplist object `object`. Writers put `$class` in the same slot of every
    /// instance of a class, and Apple's also store it as one key string: `hint` remembers both, so that most
    /// lookups compare no byte.
    package func classReference(ofEntry object: Int, hint: inout ArchiveRecordTable.KeyHint) -> ClassReference {
        let record = records.validated(object)
        guard record.kind == .dictionary else { return .none }
        let n = Int(record.count)
        let classRef: Int
        if let slot = records.recordedClassSlot(object) {
            classRef = records.ref(object, n + slot)
        } else if hint.slot < n, records.ref(object, hint.slot) == hint.keyObject {
            classRef = records.ref(object, n + hint.slot)
        } else {
            var slot = hint.slot
            guard let found = records.lookUp(ArchiveKey.class, in: object, startingAt: &slot) else { return .none }
            hint.slot = slot
            hint.keyObject = records.ref(object, slot)
            classRef = found
        }
        guard records.validated(classRef).kind == .uid else { return .unnamed }
        return .uid(uid(classRef))
    }

    /// Whether key objects `a` and `b` hold the same key: one object, or strings with the same bytes (a writer
    /// that does not unique keys, as corelibs', stores each instance's keys anew). Keys that differ in bytes
    /// compare false even when Swift would call them equal; callers then compare the strings.
    @inline(__always)
    package func sameKey(_ a: Int, _ b: Int) -> Bool {
        if a == b { return true }
        let first = records.validated(a)
        let second = records.validated(b)
        guard first.kind == .asciiString, second.kind == .asciiString, first.count == second.count else { return false }
        return BPlistBytes.equal(records.raw, at: first.offset, records.raw, at: second.offset, count: Int(first.count))
    }

    /// Finds each key of dictionary `object` among `known` (key objects): `places[i]` becomes the index in
    /// `known` of the first one that is key `i`'s object or holds its bytes (``sameKey(_:_:)``), or -1. The
    /// search for key `i` starts at `known[i]`, where writers that keep one layout per class put it (Apple's
    /// then store it as the same object: one comparison of object numbers). `places` grows to the object's count
    /// when shorter and is written in place (emptying it each time, `removeAll(keepingCapacity:)` is a
    /// `replaceSubrange` call: 80 instructions per instance); entries past the count are left as they were.
    package func placeKeys(of object: Int, among known: [Int], into places: inout [Int]) {
        let n = count(object)
        if places.count < n { places = Array(repeating: -1, count: n) }
        places.withUnsafeMutableBufferPointer { places in
            known.withUnsafeBufferPointer { known in
                for i in 0..<n {
                    let key = records.ref(object, i)
                    if i < known.count, key == known[i] {
                        places[i] = i
                        continue
                    }
                    let start = i < known.count ? i : 0
                    places[i] = firstSameKey(key, in: known, start..<known.count)
                        ?? firstSameKey(key, in: known, 0..<start) ?? -1
                }
            }
        }
    }

    /// The index in `range` of the first of `known` holding the same key as `key` (``sameKey(_:_:)``), reading
    /// `key`'s record once. (Index ranges, not slices: a slice's indices are not specialized across the
    /// standard library and cost a metadata lookup per call.)
    @inline(__always)
    private func firstSameKey(_ key: Int, in known: UnsafeBufferPointer<Int>, _ range: Range<Int>) -> Int? {
        let record = records.validated(key)
        guard record.kind == .asciiString else {
            for j in range where sameKey(key, known[j]) { return j }
            return nil
        }
        for j in range {
            let other = records.validated(known[j])
            if other.count == record.count, other.kind == .asciiString,
                BPlistBytes.equal(records.raw, at: record.offset, records.raw, at: other.offset, count: Int(record.count))
            {
                return j
            }
        }
        return nil
    }

    /// A new string from string object `object` (a key).
    package func string(_ object: Int) -> String { records.string(records.validated(object)) }

    /// The scalar at `object` when it has no storage to share (an integer, real or boolean); nil for strings,
    /// data, dates, containers and UIDs.
    @inline(__always)
    package func plainScalar(_ object: Int) -> ArchiveValue? {
        let record = records.validated(object)
        switch record.kind {
        case .integer: return records.reader.integer(record, in: records.raw)
        case .real: return .real(records.reader.double(record, in: records.raw))
        case .falseValue: return .bool(false)
        case .trueValue: return .bool(true)
        default: return nil
        }
    }

    /// The value of the `$objects` entry at bplist object `object` that is not an instance: ``value(_:)``, except
    /// that a string, a number or a boolean is made directly rather than through the cache. A number has
    /// no storage to share, and a string's sharing is its content's (the graph's readers and writers compare and
    /// unique strings by content); a writer stores one entry per distinct string, so the cache would only hold a
    /// second reference to each.
    package func entryValue(_ object: Int) throws(ArchiveError) -> ArchiveValue {
        let record = records.validated(object)
        if record.kind == .asciiString || record.kind == .utf16String { return .string(records.string(record)) }
        if let scalar = plainScalar(object) { return scalar }
        return try value(object)
    }

    /// The value tree of bplist object `object` (UIDs left as UIDs), built once and shared by every reference.
    package func value(_ object: Int) throws(ArchiveError) -> ArchiveValue {
        try records.value(at: object, walk: &walk)
    }

    /// The error for a dictionary (bplist object `object`) holding `key` twice: the one message of the rule.
    package static func duplicateKey(_ key: String, object: Int) -> ArchiveError {
        BPlistIndex.duplicateKey(key, object: object)
    }

    /// The `$top` entries in file order: UIDs or scalars (the view refused containers).
    package func top() throws(ArchiveError) -> OrderedDictionary<String, ArchiveValue> {
        guard case .dictionary(let top) = try records.value(at: view.topDictionary, walk: &walk)
        else { throw ArchiveError.unexpectedType("$top changed type") }
        return top
    }
}
