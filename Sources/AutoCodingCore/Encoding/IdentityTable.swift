import AutoCodingFast

/// UIDs by object identity (an instance already written, a type's class descriptor), found by open addressing on
/// the object's address. An encode looks one up for every reference it writes, and `Dictionary`'s hashing of an
/// `ObjectIdentifier` (SipHash) cost more than the rest of the lookup: 3 % of a W1 encode. Addresses come from the
/// allocator, not from the values encoded, so a plain multiplicative hash leaves no collisions to provoke.
/// Setting nil keeps the key's slot with no value (a renamed class's descriptor is looked up again).
struct IdentityTable {
    /// The address of each slot's key; 0 for an empty slot (no object lives at address 0).
    private var keys: [UInt]
    private var values: [ArchiveUID?]
    private var count = 0

    init() {
        keys = Array(repeating: 0, count: 64)
        values = Array(repeating: nil, count: 64)
    }

    /// The UID stored for `id`, or nil.
    subscript(id: ObjectIdentifier) -> ArchiveUID? {
        get {
            let key = UInt(bitPattern: id)
            let mask = keys.count - 1
            var slot = Self.slot(key, mask)
            while keys[slot] != 0 {
                if keys[slot] == key { return values[slot] }
                slot = (slot + 1) & mask
            }
            return nil
        }
        set {
            let key = UInt(bitPattern: id)
            let mask = keys.count - 1
            var slot = Self.slot(key, mask)
            while keys[slot] != 0 {
                if keys[slot] == key {
                    values[slot] = newValue
                    return
                }
                slot = (slot + 1) & mask
            }
            guard newValue != nil else { return }
            keys[slot] = key
            values[slot] = newValue
            count += 1
            // Kept at most half full, so that a probe ends soon.
            if count * 2 > keys.count { grow() }
        }
    }

    /// The slot where a probe for `key` starts: the high bits of the address times a 64-bit odd constant.
    private static func slot(_ key: UInt, _ mask: Int) -> Int {
        Int(truncatingIfNeeded: (UInt64(key) &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }

    private mutating func grow() {
        let (oldKeys, oldValues) = (keys, values)
        keys = Array(repeating: 0, count: oldKeys.count * 2)
        values = Array(repeating: nil, count: oldKeys.count * 2)
        let mask = keys.count - 1
        for (key, value) in zip(oldKeys, oldValues) where key != 0 {
            var slot = Self.slot(key, mask)
            while keys[slot] != 0 { slot = (slot + 1) & mask }
            keys[slot] = key
            values[slot] = value
        }
    }
}
