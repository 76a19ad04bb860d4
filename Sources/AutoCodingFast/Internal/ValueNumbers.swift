/// A uniquing table: numbers of values, found by a hash of bytes the caller chooses. The writer hashes a string's
/// UTF-8 bytes (equal bytes, one object) and a scalar's 64 bits (integers, reals and dates, in a second table); the
/// encoders' table hashes the string value's own bits (the same string, one entry:
/// ``ArchiveObjectTable/appendUniqued(_:)``).
///
/// Open addressing over the bytes, where `[String: Int]` hashed each string through `String.hash(into:)` and
/// compared candidates with `==` (canonical equivalence, which the writer must not merge, so it compared bytes
/// again): 11 % of a W1 encode. The hash is seeded per process (from `Hasher`, itself seeded at random), so the
/// probe sequences of a given set of strings differ from run to run: input chosen to collide in one process
/// collides by chance in another. The table holds numbers only; the values are the writer's objects, which
/// `matches` compares.
///
/// Eight bytes a slot, one array (one allocation per growth): a number and the low half of its value's hash. A
/// keyed archive reserves room for half its entries as strings (W1 has about that many): sized for every entry, the
/// table was half a gigabyte for 13 million, written whole before the first string, and grown from nothing, it
/// allocated a dozen times for 10,000 strings. Object numbers are below 2³² (see `BPlistWriter.References`).
struct ValueNumbers {
    /// By slot: the number in the high half (all ones for an empty slot), the low half of the hash of the value
    /// there in the low half, compared before its bytes; the slot follows from it, so growing needs no value.
    private var slots: [UInt64] = []
    private var mask = -1
    private var count = 0
    private static let empty = UInt64.max

    /// Room for `capacity` values without growing.
    mutating func reserve(_ capacity: Int) {
        var size = 1024
        while size < 2 * capacity { size <<= 1 }
        if size > slots.count { rehash(size) }
    }

    /// The number of the value whose bytes are `bytes`, when one was added; else adds `number` for them and
    /// returns it. `matches(n)` says whether object `n` has exactly `bytes`.
    mutating func number(
        of bytes: UnsafeRawBufferPointer, orAdd number: Int, matches: (Int) -> Bool
    ) -> Int {
        if 2 * (count + 1) > slots.count { rehash(max(1024, (slots.count < 1 << 16 ? 4 : 2) * slots.count)) }
        let hash = UInt32(truncatingIfNeeded: hash(bytes))
        var slot = Int(hash) & mask
        while true {
            let entry = slots[slot]
            if entry == Self.empty { break }
            if UInt32(truncatingIfNeeded: entry) == hash, matches(Int(entry >> 32)) { return Int(entry >> 32) }
            slot = (slot + 1) & mask
        }
        slots[slot] = UInt64(UInt32(truncatingIfNeeded: number)) << 32 | UInt64(hash)
        count += 1
        return number
    }

    /// Grows to `size` slots (a power of two); a table below 65,536 slots grows fourfold, so that 10,000 strings
    /// allocate it four times, not six (twelve when numbers and hashes were two arrays).
    private mutating func rehash(_ size: Int) {
        let old = slots
        slots = HugePages.array(repeating: Self.empty, count: size)
        mask = size - 1
        for entry in old where entry != Self.empty {
            var slot = Int(UInt32(truncatingIfNeeded: entry)) & mask
            while slots[slot] != Self.empty { slot = (slot + 1) & mask }
            slots[slot] = entry
        }
    }

    // MARK: Hashing

    /// This process's seed.
    private static let seed: UInt64 = {
        var hasher = Hasher()
        hasher.combine(0x5354_524E as UInt32)
        return UInt64(truncatingIfNeeded: hasher.finalize())
    }()
    private static let k0: UInt64 = 0xA076_1D64_78BD_642F
    private static let k1: UInt64 = 0xE703_7ED1_A0B4_28DB
    /// The seeded multipliers, odd so that no product is zero for want of one; copied into each table, as a
    /// global `let` costs a `swift_once` check at every read.
    private let m0 = (ValueNumbers.seed ^ ValueNumbers.k0) | 1
    private let m1 = (ValueNumbers.seed ^ ValueNumbers.k1) | 1

    /// The 128-bit product of `a` and `b`, folded to 64 bits: each output bit depends on every input bit.
    @inline(__always)
    private static func fold(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let (high, low) = a.multipliedFullWidth(by: b)
        return high ^ low
    }

    /// A seeded hash of `bytes`, eight bytes a step (the multiply-and-fold mixing of wyhash). The last step reads
    /// the last eight bytes, overlapping the one before; a string shorter than eight is read as two overlapping
    /// halves. The length is mixed in first, so no two lengths share a sequence of reads.
    func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        let n = bytes.count
        var h = Self.fold(m0, UInt64(n) ^ Self.k1)
        if n >= 8 {
            var i = 0
            while i + 8 < n {
                h = Self.fold(h ^ bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self), m1)
                i += 8
            }
            h = Self.fold(h ^ bytes.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self), m0)
        } else if n >= 4 {
            let low = UInt64(bytes.loadUnaligned(fromByteOffset: 0, as: UInt32.self))
            let high = UInt64(bytes.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self))
            h = Self.fold(h ^ (low | high << 32), m0)
        } else if n > 0 {
            let word = UInt64(bytes[0]) | UInt64(bytes[n / 2]) << 8 | UInt64(bytes[n - 1]) << 16
            h = Self.fold(h ^ word, m0)
        }
        return Self.fold(h ^ Self.k1, m1)
    }
}
