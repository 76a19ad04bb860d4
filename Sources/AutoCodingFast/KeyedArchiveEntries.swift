import OrderedCollections

/// `$objects` entries of a validated ``KeyedArchiveView``, read one at a time by object builders that make one
/// pass over the table (the object layer's graph): no ``KeyedArchive`` in between, and every string, data or
/// plain container built once per bplist object and shared by every reference to it.
///
/// The view proved the keyed-archive rules when it was opened (UIDs in range, `$class` naming a descriptor,
/// `$top` holding no containers), so nothing here checks them again. What building values still checks is
/// what only building finds: a dictionary holding one key twice (``ArchiveError/Code-swift.struct/invalidObject``,
/// the same rule and message as ``KeyedArchiveView/keyedArchive()``).
package struct KeyedArchiveEntries {
    private let view: KeyedArchiveView
    private let records: IndexRecords
    private var walk: ValueWalk

    /// Entries of `view`, after the check that its shared references expand to at most the view's node budget
    /// (the check ``KeyedArchiveView/keyedArchive()`` makes, so both forms refuse the same archives).
    package init(_ view: KeyedArchiveView) throws(ArchiveError) {
        try view.index.checkExpandedSize(
            in: view.raw, limit: view.options.expandedNodeLimit(forInputBytes: view.raw.count), forLibplist: false)
        self.view = view
        records = view.records
        walk = .proven(cache: ValueCache(dense: view.index.records.count))
    }

    /// The number of `$objects` entries.
    package var count: Int { view.objectCount }

    /// Whether the entry at `uid` is a class instance: a dictionary with a `$class` key.
    package func isInstance(_ uid: Int) -> Bool { classRef(ofEntry: uid) != nil }

    /// The UID that the `$class` of the instance at `uid` names, or nil when it is not a UID. (The view checked
    /// `$class` in every dictionary without `$classname`; one that has both keeps whatever `$class` holds.)
    package func classUID(ofInstance uid: Int) -> Int? {
        guard let classRef = classRef(ofEntry: uid), view.index.records[classRef].kind == .uid else { return nil }
        // Every UID record was checked below the object count.
        return Int(view.index.uid(view.index.records[classRef], in: view.raw))
    }

    /// The bplist object stored under `$class` in the entry at `uid`, if it is a dictionary with that key.
    private func classRef(ofEntry uid: Int) -> Int? {
        let raw = view.raw
        let object = view.objectNumber(ArchiveUID(UInt32(truncatingIfNeeded: uid)), in: raw)
        guard view.index.records[object].kind == .dictionary else { return nil }
        return view.entry(of: object, key: ArchiveKey.class, in: raw)
    }

    /// The entry at `uid` as a value (an instance's fields hold their references as ``ArchiveValue/uid(_:)``).
    package mutating func value(_ uid: Int) throws(ArchiveError) -> ArchiveValue {
        try records.value(at: view.objectNumber(ArchiveUID(UInt32(truncatingIfNeeded: uid)), in: view.raw), walk: &walk)
    }

    /// The number of keys of the instance at `uid`, `$class` included.
    package func keyCount(ofInstance uid: Int) -> Int {
        Int(view.index.records[view.objectNumber(ArchiveUID(UInt32(truncatingIfNeeded: uid)), in: view.raw)].count)
    }

    /// Calls `body` with each field of the instance at `uid` in file order, `$class` left out. `body` returns
    /// false when it already had the key: a dictionary holds each key once, and the duplicate is thrown as
    /// ``KeyedArchiveView/keyedArchive()`` throws it. (A callback, not a generic builder: a generic function of
    /// this module called from another is not specialized, and its metadata lookups cost more than the walk.)
    package mutating func forEachField(
        ofInstance uid: Int, _ body: (String, ArchiveValue) throws(ArchiveError) -> Bool
    ) throws(ArchiveError) {
        let raw = view.raw
        let index = view.index
        let object = view.objectNumber(ArchiveUID(UInt32(truncatingIfNeeded: uid)), in: raw)
        let n = Int(index.records[object].count)
        var sawClass = false
        for i in 0..<n {
            // Keys are validated strings.
            guard case .string(let key) = try records.value(at: index.ref(object, i, in: raw), walk: &walk)
            else { continue }
            let value = try records.value(at: index.ref(object, n + i, in: raw), walk: &walk)
            if key == ArchiveKey.class {
                // Left out of the fields, but still held once only.
                guard !sawClass else { throw BPlistIndex.duplicateKey(key, object: object) }
                sawClass = true
                continue
            }
            guard try body(key, value) else { throw BPlistIndex.duplicateKey(key, object: object) }
        }
    }

    /// The `$top` entries in file order: UIDs or scalars (the view refused containers).
    package mutating func top() throws(ArchiveError) -> OrderedDictionary<String, ArchiveValue> {
        guard case .dictionary(let top) = try records.value(at: view.topDictionary, walk: &walk)
        else { throw ArchiveError.unexpectedType("$top changed type") }
        return top
    }
}
