/// Reading single values. Each call validates what it touches (once) and decodes only what it returns.
extension LazyKeyedArchive {
    /// The `$top` keys in file order.
    public func topKeys() throws(ArchiveError) -> [String] {
        try entries(of: topDictionary).map(\.key)
    }

    /// The `$top` entry for `key`: usually a UID, sometimes an inline scalar; nil when absent.
    public func top(_ key: String) throws(ArchiveError) -> ArchiveValue? {
        try topEntry(key).map { (object) throws(ArchiveError) in try table.value(at: object) }
    }

    /// The root object's UID: `$top["root"]`, else the only `$top` entry, when it is a UID.
    public func rootUID() throws(ArchiveError) -> ArchiveUID? {
        if let root = try top(ArchiveKey.root) { return root.uidValue }
        let keys = try topKeys()
        return keys.count == 1 ? try top(keys[0])?.uidValue : nil
    }

    /// The `$objects` entry at `uid` as a value with its UIDs unresolved (an instance is its field dictionary).
    public func entry(_ uid: ArchiveUID) throws(ArchiveError) -> ArchiveValue {
        try table.value(at: entryObject(for: uid))
    }

    /// One field of the instance at `uid`, decoded without decoding its other fields; nil when the instance
    /// has no such key or the entry is not an instance.
    public func field(_ key: String, of uid: ArchiveUID) throws(ArchiveError) -> ArchiveValue? {
        try value(forKey: key, in: entryObject(for: uid)).map { (value) throws(ArchiveError) in
            try table.value(at: value)
        }
    }

    /// The class of the instance at `uid`, or nil when the entry is not a class instance.
    public func archiveClass(of uid: ArchiveUID) throws(ArchiveError) -> ArchiveClass? {
        try archiveClass(ofObject: entryObject(for: uid))
    }

    // MARK: Navigation by bplist object number, for the object layer's lazy walks

    /// The kind of bplist object `object`.
    package func kind(of object: Int) throws(ArchiveError) -> BPlistIndex.Kind {
        try table.record(object).kind
    }

    /// The element or entry count of a container (0 for scalars).
    package func count(of object: Int) throws(ArchiveError) -> Int {
        let record = try table.record(object)
        return record.kind.isContainer ? Int(record.count) : 0
    }

    /// The object number of element `i` of array `object`; `i` must be below its count.
    package func element(_ i: Int, of object: Int) throws(ArchiveError) -> Int {
        let record = try table.record(object)
        // The one bounds check before the table's unchecked read: `i` may come from a caller's path.
        let refs = record.kind == .array ? Int(record.count) : 0
        guard i >= 0, i < refs else {
            throw ArchiveError(.invalidReference, "object \(object) has no element \(i) (it holds \(refs))")
        }
        return table.ref(object, i)
    }

    /// The keys and value object numbers of dictionary `object`, in file order (empty for other kinds).
    package func entries(of object: Int) throws(ArchiveError) -> [(key: String, value: Int)] {
        let record = try table.record(object)
        guard record.kind == .dictionary else { return [] }
        let n = Int(record.count)
        var result: [(key: String, value: Int)] = []
        result.reserveCapacity(min(n, 256 * 1024))
        for i in 0..<n {
            // Keys were validated as strings with their dictionary.
            result.append((table.string(table.validated(table.ref(object, i))), table.ref(object, n + i)))
        }
        return result
    }

    /// The object number of the value under `key` in dictionary `object`, or nil.
    package func value(forKey key: String, in object: Int) throws(ArchiveError) -> Int? {
        _ = try table.record(object)
        return table.entry(of: object, key: key)
    }

    /// The object number of the `$top` entry `key`, checked not to be a container.
    package func topEntry(_ key: String) throws(ArchiveError) -> Int? {
        try table.topEntry(key)
    }

    /// The object numbers of every `$top` entry in file order, each checked not to be a container (one pass:
    /// looking each key up again would be quadratic in the number of keys).
    package func topEntries() throws(ArchiveError) -> [Int] {
        var result: [Int] = []
        for (key, entry) in try entries(of: topDictionary) {
            guard try !table.record(entry).kind.isContainer else {
                throw KeyedArchiveHeader<Int>.topEntryIsAContainer(key)
            }
            result.append(entry)
        }
        return result
    }

    /// The UID held by UID object `object` and the object number of the `$objects` entry it names.
    package func follow(_ object: Int) throws(ArchiveError) -> (uid: ArchiveUID, entry: Int) {
        let record = try table.record(object)
        guard record.kind == .uid else { throw ArchiveError.unexpectedType("object \(object) is a \(record.kind), not a UID") }
        let uid = table.reader.uid(record)
        return (ArchiveUID(uid), try entryObject(for: ArchiveUID(uid)))
    }

    /// The value tree of bplist object `object`, UIDs unresolved.
    package func value(at object: Int) throws(ArchiveError) -> ArchiveValue {
        try table.value(at: object)
    }

    /// The class of the `$objects` entry `object` when it is an instance (`$class` was checked when the
    /// entry was first reached).
    package func archiveClass(ofObject object: Int) throws(ArchiveError) -> ArchiveClass? {
        guard let classRef = try value(forKey: ArchiveKey.class, in: object), try table.record(classRef).kind == .uid
        else { return nil }
        return ArchiveClass(descriptor: try table.value(at: follow(classRef).entry))
    }
}
