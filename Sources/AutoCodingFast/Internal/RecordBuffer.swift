#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The records of a ``BPlistIndex``: written while the index is built, read-only afterwards. From
/// ``RecordMemory/threshold`` bytes on they live in one of ``RecordMemory``'s mappings, handed back when the last
/// index holding them goes, so that the next large archive's index is written into pages already there.
///
/// `@unchecked Sendable`: nothing writes the records once the index that made them is built.
@usableFromInline package final class RecordBuffer: @unchecked Sendable {
    /// The first record.
    @usableFromInline let base: UnsafeMutablePointer<BPlistIndex.Record>
    /// The number of records.
    @usableFromInline package let count: Int
    /// The mapping the records live in; nil for `malloc`'s memory.
    private let mapping: RecordMemory.Mapping?

    /// Room for `count` records, not initialized: the index writes each before any is read. nil when the
    /// system refuses the memory.
    init?(count: Int) {
        let byteCount = max(count, 1) * MemoryLayout<BPlistIndex.Record>.stride
        if byteCount >= RecordMemory.threshold {
            guard let mapping = RecordMemory.shared.take(byteCount) else { return nil }
            self.mapping = mapping
            base = mapping.base.bindMemory(to: BPlistIndex.Record.self, capacity: max(count, 1))
        } else {
            guard let allocation = malloc(byteCount) else { return nil }
            mapping = nil
            base = allocation.bindMemory(to: BPlistIndex.Record.self, capacity: max(count, 1))
        }
        self.count = count
    }

    /// No records, for an index that only reads records it is given.
    static let empty = RecordBuffer(count: 0)!

    deinit {
        if let mapping { RecordMemory.shared.give(mapping) } else { free(base) }
    }

    /// Record `i`, below ``count`` (checked, as an array's subscript is).
    @inlinable package subscript(i: Int) -> BPlistIndex.Record {
        @inline(__always) get {
            precondition(UInt(bitPattern: i) < UInt(bitPattern: count), "record index out of range")
            return base[i]
        }
    }

    /// The records in place, for the passes that build the index (and write into it) and for copying them.
    var buffer: UnsafeMutableBufferPointer<BPlistIndex.Record> { UnsafeMutableBufferPointer(start: base, count: count) }
}
