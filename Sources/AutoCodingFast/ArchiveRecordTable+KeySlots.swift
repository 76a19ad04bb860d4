/// Where the keys a decoder reads from the instances of one class are, so that reading a field costs no scan of
/// the object's keys.
///
/// Two kinds of writers, two answers. A writer that keeps one key order and uniques key strings (Apple's, this
/// package's) puts each key of a class's instances at the same slot as the same string object: the remembered
/// slot (``ArchiveRecordTable/KeyHint``) is checked by one object-number comparison and no byte.
/// swift-corelibs-foundation's writer repeats the key strings of every object, in its dictionary's hash order, so
/// for such an object the keys asked so far are mapped to their slots in one pass over its keys, the first time a
/// remembered slot misses: one length comparison per key and class field, and one byte comparison per key found.
/// An object with a UTF-16 key falls back to the scan (``ArchiveRecordTable/entry(of:key:startingAt:)``).
///
/// Not thread-safe; one per class and decode.
package final class ArchiveKeySlots {
    /// The keys asked so far, in the order first asked, with their UTF-8 lengths and bytes.
    @exclusivity(unchecked) private(set) var keys: [String] = []
    @exclusivity(unchecked) private var lengths: [Int] = []
    @exclusivity(unchecked) private var bytes: [[UInt8]] = []
    /// Where each key was last found.
    @exclusivity(unchecked) private var hints: [ArchiveRecordTable.KeyHint] = []
    /// The entry after the one read last: where the next read's key usually is.
    @exclusivity(unchecked) private var next = 0
    /// The object whose keys ``mapped`` holds, and each key's slot in it: -1 for absent, -2 for undecided (the
    /// object has UTF-16 keys).
    @exclusivity(unchecked) private var mappedObject = -1
    @exclusivity(unchecked) private var mapped: [Int] = []
    /// Keys beyond this many are looked up by scanning: a decoder that asks for keys taken from the input (its
    /// `allKeys`) would otherwise make the search of the list, and the mapping, quadratic.
    static let capacity = 64

    /// No key asked yet.
    package init() {}

    /// Prepares for the reads of a new object's fields, in the order of the previous object's.
    @inline(__always)
    package func startObject() { next = 0 }

    /// The index of `key`'s entry, added when new; nil when the list is full.
    @inline(__always)
    func index(of key: String) -> Int? {
        if next < keys.count, keys[next] == key { return next }
        return search(key)
    }

    private func search(_ key: String) -> Int? {
        if let i = keys.firstIndex(of: key) { return i }
        guard keys.count < Self.capacity else { return nil }
        keys.append(key)
        bytes.append(Array(key.utf8))
        lengths.append(key.utf8.count)
        hints.append(ArchiveRecordTable.KeyHint())
        mappedObject = -1  // The map lacks the new key.
        return keys.count - 1
    }

    /// Maps the keys asked so far to their slots in validated dictionary `object` of `n` entries.
    fileprivate func map(_ object: Int, count n: Int, in table: ArchiveRecordTable) {
        if mapped.count != keys.count { mapped = Array(repeating: -1, count: keys.count) }
        for k in mapped.indices { mapped[k] = -1 }
        mappedObject = object
        var undecided = false
        for slot in 0..<n {
            // Keys were validated as strings with their dictionary.
            let key = table.validated(table.ref(object, slot))
            guard key.kind == .asciiString else {
                undecided = true
                continue
            }
            let length = Int(key.count)
            for k in lengths.indices where lengths[k] == length && mapped[k] < 0 {
                let found = bytes[k].withUnsafeBufferPointer { BPlistBytes.equal(table.raw, at: key.offset, $0) }
                if found {
                    mapped[k] = slot
                    break
                }
            }
        }
        if undecided { for k in mapped.indices where mapped[k] < 0 { mapped[k] = -2 } }
    }

    /// The lookup of ``ArchiveRecordTable/entry(of:key:slots:)``.
    fileprivate func entry(of object: Int, key: String, in table: ArchiveRecordTable) -> Int? {
        guard let k = index(of: key) else { return table.entry(of: object, key: key) }
        next = k + 1
        let record = table.validated(object)
        let n = Int(record.count)
        guard record.kind == .dictionary, n > 0 else { return nil }
        let hint = hints[k]
        if hint.slot < n, table.ref(object, hint.slot) == hint.keyObject { return table.ref(object, n + hint.slot) }
        if mappedObject != object { map(object, count: n, in: table) }
        var slot = mapped[k]
        if slot == -1 { return nil }
        if slot == -2 {
            slot = hint.slot
            guard table.entry(of: object, key: key, startingAt: &slot) != nil else { return nil }
        }
        // The first slot found is remembered for writers that unique keys; for the others it stays a miss.
        if hint.keyObject < 0 { hints[k] = ArchiveRecordTable.KeyHint(slot: slot, keyObject: table.ref(object, slot)) }
        return table.ref(object, n + slot)
    }
}

extension ArchiveRecordTable.KeyHint {
    init(slot: Int, keyObject: Int) {
        self.init()
        self.slot = slot
        self.keyObject = keyObject
    }
}

extension ArchiveRecordTable {
    /// The bplist object number of the value stored under `key` in validated dictionary `object`, or nil, found
    /// through the key slots of the object's class (see ``ArchiveKeySlots``).
    @inline(__always)
    package func entry(of object: Int, key: String, slots: ArchiveKeySlots) -> Int? {
        slots.entry(of: object, key: key, in: self)
    }
}
