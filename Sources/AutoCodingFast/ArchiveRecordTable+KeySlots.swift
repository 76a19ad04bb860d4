/// Where the keys a decoder reads from the instances of one class are, so that reading a field costs no scan of
/// the object's keys.
///
/// Two kinds of writers, two answers. A writer that keeps one key order and uniques key strings (Apple's, this
/// package's) puts each key of a class's instances at the same slot as the same string object: the remembered
/// slot (``ArchiveRecordTable/KeyHint``) is checked by one object-number comparison and no byte.
/// swift-corelibs-foundation's writer repeats the key strings of every object, in its dictionary's hash order, so
/// for such an object the keys asked so far are mapped to their slots in one pass over its keys, the first time a
/// remembered slot misses: each key is found by its signature (``KeySignatures``) and compared by bytes once.
/// (Its objects of one class do not share a key order: each dictionary it writes has its own hash seed.)
/// An object with a UTF-16 key falls back to the scan (``ArchiveRecordTable/entry(of:key:startingAt:)``).
///
/// Not thread-safe; one per class and decode.
package final class ArchiveKeySlots {
    /// The keys asked so far, in the order first asked.
    @exclusivity(unchecked) private(set) var keys: [String] = []
    /// Each key's UTF-8 bytes, one after another in ``keyBytes`` from ``keyStarts``, and its signature.
    @exclusivity(unchecked) private var keyBytes: [UInt8] = []
    @exclusivity(unchecked) private var keyStarts: [Int] = []
    @exclusivity(unchecked) private var signatures = KeySignatures()
    /// Where each key was last found.
    @exclusivity(unchecked) private var hints: [ArchiveRecordTable.KeyHint] = []
    /// The entry after the one read last: where the next read's key usually is.
    @exclusivity(unchecked) private var next = 0
    /// The object whose keys ``mapped`` holds, and each key's slot in it: -1 for absent, -2 for undecided (the
    /// object has UTF-16 keys). Its own memory of ``capacity`` slots: written once per key of every object
    /// mapped, where an array's element assignment would check its uniqueness each time.
    @exclusivity(unchecked) private var mappedObject = -1
    private let mapped = UnsafeMutablePointer<Int>.allocate(capacity: ArchiveKeySlots.capacity)
    /// Keys beyond this many are looked up by scanning: a decoder that asks for keys taken from the input (its
    /// `allKeys`) would otherwise make the search of the list, and the mapping, quadratic.
    static let capacity = KeySignatures.capacity

    /// No key asked yet.
    package init() { mapped.initialize(repeating: -1, count: Self.capacity) }

    deinit { mapped.deallocate() }

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
        let k = keys.count
        keys.append(key)
        let start = keyBytes.count
        keyBytes.append(contentsOf: key.utf8)
        keyStarts.append(start)
        signatures.append(keyBytes.withUnsafeBytes {
            KeySignatures.signature($0, at: start, count: keyBytes.count - start)
        })
        hints.append(ArchiveRecordTable.KeyHint())
        mappedObject = -1  // The map lacks the new key.
        return k
    }

    /// Maps the keys asked so far to their slots in validated dictionary `object` of `n` entries: each of the
    /// object's keys is found by its signature (``KeySignatures``), its bytes compared once.
    fileprivate func map(_ object: Int, count n: Int, in table: ArchiveRecordTable) {
        let keyCount = keys.count
        mapped.update(repeating: -1, count: keyCount)
        mappedObject = object
        var undecided = false
        let references = table.validated(object).offset
        let raw = table.raw, refSize = table.refSize
        for slot in 0..<n {
            // Keys were validated as strings with their dictionary, and their references as in range.
            let key = table.validated(BPlistBytes.reference(raw, at: references, slot: slot, width: refSize))
            guard key.kind == .asciiString else {
                undecided = true
                continue
            }
            let length = Int(key.count)
            let found = signatures.first(KeySignatures.signature(raw, at: key.offset, count: length)) { k in
                mapped[k] < 0 && keyBytes.withUnsafeBytes {
                    BPlistBytes.equal(raw, at: key.offset, $0, at: keyStarts[k], count: length)
                }
            }
            if let found { mapped[found] = slot }
        }
        if undecided { for k in 0..<keyCount where mapped[k] < 0 { mapped[k] = -2 } }
    }

    /// The lookup of ``ArchiveRecordTable/entry(of:key:slots:)``.
    fileprivate func entry(of object: Int, key: String, in table: ArchiveRecordTable) -> Int? {
        guard let k = index(of: key) else { return table.entry(of: object, key: key) }
        next = k + 1
        let record = table.validated(object)
        let n = Int(record.count)
        guard record.kind == .dictionary, n > 0 else { return nil }
        let hint = hints[k]
        // An object already mapped (its first read missed the remembered slot) answers from the map.
        if mappedObject != object {
            if hint.slot < n, table.ref(object, hint.slot) == hint.keyObject { return table.ref(object, n + hint.slot) }
            map(object, count: n, in: table)
        }
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
