/// A class's keys, found by a hash of their length and three of their bytes (first, middle, last).
///
/// swift-corelibs-foundation's `NSKeyedArchiver` stores every instance's keys as strings of their own, in a hash
/// order of that instance's own, so a reader cannot find an instance's key by object number or by slot: it
/// matches the instance's keys to its class's by bytes. With this table that is one probe per key and, almost
/// always, one byte comparison. ``ArchiveKeySlots`` keeps the keys; this table keeps their signatures and
/// indexes. (The object graph's ``KeyedArchiveEntries/placeKeys(of:among:into:)`` scans instead: tried with this
/// table on W1-10k, its per-key work fell 31.5 → 29.4 M instructions, but carrying the table into each call cost
/// more than that.)
struct KeySignatures: Sendable {
    /// Keys beyond this many are not added (their readers scan instead).
    static let capacity = 64

    /// Each key's signature, by index.
    private var signatures: [UInt64] = []
    /// An open-addressed table from a signature's first bucket to a key's index; -1 for empty. Twice
    /// ``capacity`` buckets, so that a probe ends after a few steps.
    private var buckets = [Int8](repeating: -1, count: 2 * KeySignatures.capacity)

    /// No key.
    init() {}

    /// The signature of the `count` bytes of `bytes` at `start` (all in bounds): equal for equal keys, and for
    /// the keys of one class almost always different.
    @inline(__always)
    static func signature(_ bytes: UnsafeRawBufferPointer, at start: Int, count: Int) -> UInt64 {
        guard count > 0 else { return 0 }
        let first = UInt64(bytes[start]), middle = UInt64(bytes[start + count / 2])
        let last = UInt64(bytes[start + count - 1])
        return UInt64(truncatingIfNeeded: count) | first << 32 | middle << 40 | last << 48
    }

    /// Adds a key of `signature`, its index the number of keys added before; nothing when ``capacity`` keys are
    /// in (callers stop before).
    mutating func append(_ signature: UInt64) {
        guard signatures.count < Self.capacity else { return }
        var b = Self.bucket(signature)
        while buckets[b] >= 0 { b = (b + 1) & (buckets.count - 1) }
        buckets[b] = Int8(signatures.count)
        signatures.append(signature)
    }

    /// The first index, in the order added, of a key of `signature` for which `matches` holds (the caller
    /// compares bytes); nil when there is none. Keys of one signature share a first bucket and lie along its
    /// probe in the order they were added.
    @inline(__always)
    func first(_ signature: UInt64, where matches: (Int) -> Bool) -> Int? {
        let mask = buckets.count - 1
        var b = Self.bucket(signature)
        while true {
            let k = Int(buckets[b])
            if k < 0 { return nil }
            if signatures[k] == signature, matches(k) { return k }
            b = (b + 1) & mask
        }
    }

    /// The first bucket to probe for `signature`: its top bits after a multiplicative mix.
    @inline(__always)
    private static func bucket(_ signature: UInt64) -> Int {
        Int(truncatingIfNeeded: (signature &* 0x9E37_79B9_7F4A_7C15) >> 57)
    }
}
