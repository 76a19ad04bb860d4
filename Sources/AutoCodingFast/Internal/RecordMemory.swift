import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The memory of the whole-file index's records (``RecordBuffer``) from ``threshold`` bytes on, kept between
/// reads: the mappings of the last indexes freed, handed to the next indexes that fit in them.
///
/// An index has one 12-byte record per bplist object: 65 MB for W1's 5.4 million, past what `malloc` keeps for
/// reuse (it maps and unmaps blocks over 32 MB each time). The pages of a new mapping are cleared by the kernel as
/// they are first written, 10 to 17 ms of opening W1 (``KeyedArchiveView``, about 140 ms). A batch that opens one
/// large archive after another paid that for each; a kept mapping's pages are already there, and the index writes
/// every record before it reads one, so it takes a kept mapping as it is.
/// (The first-touch ``ArchiveRecordTable`` needs zeros: clearing a kept mapping costs it about what the kernel's
/// faults did, so it maps fresh pages, which cost a sparse reader nothing until touched.)
///
/// What is kept is bounded (``keptMappingLimit`` mappings, ``keptByteLimit`` bytes; the oldest goes first), and
/// advised `MADV_FREE` when kept, so that under memory pressure the system takes its pages back instead of
/// swapping them out (such a page then reads as zeros; the index overwrites it). Thread-safe: the mappings are
/// kept behind a lock, taken and given once per index.
final class RecordMemory: Sendable {
    /// A mapping of ``AnonymousMemory``.
    struct Mapping: @unchecked Sendable {
        /// Its first byte.
        let base: UnsafeMutableRawPointer
        /// Its size.
        let byteCount: Int
    }

    /// The memory every index uses.
    static let shared = RecordMemory()
    /// The fewest bytes that are mapped (and kept): below, an index uses `malloc`'s memory, which `free` keeps.
    static let threshold = AnonymousMemory.threshold
    /// The most mappings kept (4 by default: one per thread of a small batch).
    let keptMappingLimit: Int
    /// The most bytes kept (256 MiB by default: the table of an archive of 22 million objects).
    let keptByteLimit: Int
    private let kept = Mutex<[Mapping]>([])

    /// Memory that keeps at most `keptMappingLimit` mappings and `keptByteLimit` bytes.
    init(keptMappingLimit: Int = 4, keptByteLimit: Int = 256 << 20) {
        self.keptMappingLimit = keptMappingLimit
        self.keptByteLimit = keptByteLimit
    }

    /// `byteCount` bytes (at least ``threshold``) for an index, advised for huge pages
    /// (``HugePages/adviseMapping(_:byteCount:)``): the smallest kept mapping that holds them, whatever it holds,
    /// else a new one. nil when the system refuses memory.
    func take(_ byteCount: Int) -> Mapping? {
        let reused = kept.withLock { kept -> Mapping? in
            var best: Int?
            for (i, mapping) in kept.enumerated() where mapping.byteCount >= byteCount {
                if best.map({ mapping.byteCount < kept[$0].byteCount }) ?? true { best = i }
            }
            return best.map { kept.remove(at: $0) }
        }
        if let reused { return reused }
        guard let base = AnonymousMemory.map(byteCount) else { return nil }
        HugePages.adviseMapping(base, byteCount: byteCount)
        return Mapping(base: base, byteCount: byteCount)
    }

    /// Hands back a mapping ``take(_:)`` gave: kept for the next index, the oldest kept ones unmapped to stay within
    /// the limits (and this one, when it alone passes them).
    func give(_ mapping: Mapping) {
        guard mapping.byteCount <= keptByteLimit, keptMappingLimit > 0 else {
            AnonymousMemory.unmap(mapping.base, mapping.byteCount)
            return
        }
        _ = madvise(mapping.base, mapping.byteCount, Int32(MADV_FREE))
        let dropped = kept.withLock { kept -> [Mapping] in
            kept.append(mapping)
            var bytes = kept.reduce(0) { $0 + $1.byteCount }
            var dropped: [Mapping] = []
            while kept.count > keptMappingLimit || bytes > keptByteLimit {
                let oldest = kept.removeFirst()
                bytes -= oldest.byteCount
                dropped.append(oldest)
            }
            return dropped
        }
        for mapping in dropped { AnonymousMemory.unmap(mapping.base, mapping.byteCount) }
    }

    /// The sizes of the mappings kept, oldest first (for tests).
    var keptSizes: [Int] { kept.withLock { $0.map(\.byteCount) } }
}
