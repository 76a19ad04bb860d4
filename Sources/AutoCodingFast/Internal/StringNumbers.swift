/// The writer's string uniquing table: object numbers of the strings written, found by their exact UTF-8 bytes.
///
/// Open addressing over the bytes, where `[String: Int]` hashed each string through `String.hash(into:)` and
/// compared candidates with `==` (canonical equivalence, which the writer must not merge, so it compared bytes
/// again): 11 % of a W1 encode. The hash is seeded per process (from `Hasher`, itself seeded at random), so the
/// probe sequences of a given set of strings differ from run to run: input chosen to collide in one process
/// collides by chance in another. The table holds numbers only; the strings are the writer's objects, which
/// `matches` compares.
///
/// Twelve bytes a slot. A keyed archive reserves room for half its entries as strings (W1 has about that many):
/// sized for every entry, the table was half a gigabyte for 13 million, written whole before the first string,
/// and grown from nothing, it allocated a dozen times for 10,000 strings.
struct StringNumbers {
    /// By slot: the object number, or -1 for an empty slot.
    private var numbers: [Int] = []
    /// By slot: the low half of the hash of the string there, compared before its bytes; the slot follows from
    /// it, so growing needs no string.
    private var hashes: [UInt32] = []
    private var mask = -1
    private var count = 0

    /// Room for `capacity` strings without growing.
    mutating func reserve(_ capacity: Int) {
        var size = 1024
        while size < 2 * capacity { size <<= 1 }
        if size > numbers.count { rehash(size) }
    }

    /// The number of the string whose bytes are `bytes`, when one was added; else adds `number` for them and
    /// returns it. `matches(n)` says whether object `n` has exactly `bytes`.
    mutating func number(
        of bytes: UnsafeRawBufferPointer, orAdd number: Int, matches: (Int) -> Bool
    ) -> Int {
        if 2 * (count + 1) > numbers.count { rehash(max(1024, 2 * numbers.count)) }
        let hash = UInt32(truncatingIfNeeded: hash(bytes))
        var slot = Int(hash) & mask
        while true {
            let existing = numbers[slot]
            if existing < 0 { break }
            if hashes[slot] == hash, matches(existing) { return existing }
            slot = (slot + 1) & mask
        }
        numbers[slot] = number
        hashes[slot] = hash
        count += 1
        return number
    }

    private mutating func rehash(_ size: Int) {
        let oldNumbers = numbers
        let oldHashes = hashes
        numbers = HugePages.array(repeating: -1, count: size)
        hashes = HugePages.array(repeating: 0, count: size)
        mask = size - 1
        for (i, number) in oldNumbers.enumerated() where number >= 0 {
            var slot = Int(oldHashes[i]) & mask
            while numbers[slot] >= 0 { slot = (slot + 1) & mask }
            numbers[slot] = number
            hashes[slot] = oldHashes[i]
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
    private let m0 = (StringNumbers.seed ^ StringNumbers.k0) | 1
    private let m1 = (StringNumbers.seed ^ StringNumbers.k1) | 1

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
