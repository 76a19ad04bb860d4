import AutoCodingFast

/// UIDs by object identity (an instance already written, a type's class descriptor), found by open addressing on
/// the object's address. An encode looks one up for every reference it writes, and `Dictionary`'s hashing of an
/// `ObjectIdentifier` (SipHash) cost more than the rest of the lookup: 3 % of a W1 encode. Addresses come from the
/// allocator, not from the values encoded, so a plain multiplicative hash leaves no collisions to provoke.
/// Setting nil keeps the key's slot with no value (a renamed class's descriptor is looked up again).
struct IdentityTable {
    /// The address of each slot's key; 0 for an empty slot (no object lives at address 0).
    private var keys: [UInt]
    /// Each slot's UID, 0 for none: UID 0 is `$null`, never an instance's or a class descriptor's. Four bytes a
    /// slot where an `ArchiveUID?` took eight (a million-person encode remembers two million instances).
    private var values: [UInt32]
    private var count = 0

    init() {
        keys = Array(repeating: 0, count: 64)
        values = Array(repeating: 0, count: 64)
    }

    /// The UID stored for `id`, or nil.
    subscript(id: ObjectIdentifier) -> ArchiveUID? {
        get {
            let key = UInt(bitPattern: id)
            let mask = keys.count - 1
            var slot = Self.slot(key, mask)
            while keys[slot] != 0 {
                if keys[slot] == key { return values[slot] == 0 ? nil : ArchiveUID(values[slot]) }
                slot = (slot + 1) & mask
            }
            return nil
        }
        set {
            // 0 stands for "none" in `values`: a UID 0 stored would read back as absent.
            assert(newValue?.rawValue != 0, "UID 0 is $null, never an instance's or a class descriptor's")
            let key = UInt(bitPattern: id)
            let mask = keys.count - 1
            var slot = Self.slot(key, mask)
            while keys[slot] != 0 {
                if keys[slot] == key {
                    values[slot] = newValue?.rawValue ?? 0
                    return
                }
                slot = (slot + 1) & mask
            }
            guard let newValue else { return }
            keys[slot] = key
            values[slot] = newValue.rawValue
            count += 1
            // Kept at most half full, so that a probe ends soon.
            if count * 2 > keys.count { grow() }
        }
    }

    /// The slot where a probe for `key` starts: the high bits of the address times a 64-bit odd constant.
    private static func slot(_ key: UInt, _ mask: Int) -> Int {
        Int(truncatingIfNeeded: (UInt64(key) &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }

    /// Makes room for `additional` more keys (a list of instances about to be remembered), so that adding them
    /// grows the table at most once: one table of the final size rather than every doubling before it, each
    /// filled and rehashed (at a million people the tables before the last were as large as the last).
    mutating func reserve(_ additional: Int) {
        // Capped (2²⁴ keys, 384 MiB of slots); past that the table doubles as it fills.
        let needed = 2 * (count + min(additional, 1 << 24))
        var size = keys.count
        while size < needed { size *= 2 }
        if size > keys.count { rehash(into: size) }
    }

    private mutating func grow() { rehash(into: keys.count * 2) }

    /// Moves every key into a table of `size` slots (a power of two).
    private mutating func rehash(into size: Int) {
        let (oldKeys, oldValues) = (keys, values)
        keys = Array(repeating: 0, count: size)
        values = Array(repeating: 0, count: size)
        let mask = keys.count - 1
        for (key, value) in zip(oldKeys, oldValues) where key != 0 {
            var slot = Self.slot(key, mask)
            while keys[slot] != 0 { slot = (slot + 1) & mask }
            keys[slot] = key
            values[slot] = value
        }
    }
}
