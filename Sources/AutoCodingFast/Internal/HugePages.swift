#if canImport(Glibc)
import Glibc
#endif

/// Transparent huge pages for large buffers written whole: the record arrays and the container check's state of
/// the engine, the typed decoders' record table, the writer's tables and output, the graph builder's tables.
///
/// Fresh anonymous memory is faulted in 4 KiB at a time, and a fault is dear: about 1.7 µs on the benchmark
/// machine (a virtual machine), so the 66 MB record array of W1's 5.5 million bplist objects cost 27 ms in
/// faults, a fifth of reading the archive. Linux backs a range advised with `MADV_HUGEPAGE` with 2 MiB pages when
/// transparent huge pages are in `always` or `madvise` mode (the usual default): one fault per 2 MiB. Only
/// buffers of at least ``threshold`` bytes are advised (smaller ones are mostly carved from memory malloc already
/// holds), and only the 2 MiB-aligned part inside the buffer, so no other allocation shares the advice. A buffer
/// read sparsely is not advised: each page touched would be cleared and kept 2 MiB at a time.
@usableFromInline package enum HugePages {
    /// The smallest buffer advised.
    static let threshold = 4 << 20
    private static let pageSize = 2 << 20

    /// Advises the 2 MiB-aligned part of `byteCount` bytes at `start`; does nothing elsewhere than Linux or
    /// below ``threshold``. The advice is a hint: a kernel without huge pages ignores it.
    @usableFromInline package static func advise(_ start: UnsafeMutableRawPointer, byteCount: Int) {
        #if os(Linux)
        guard byteCount >= threshold else { return }
        let first = (Int(bitPattern: start) + pageSize - 1) & -pageSize
        let end = (Int(bitPattern: start) + byteCount) & -pageSize
        guard end > first else { return }
        _ = madvise(UnsafeMutableRawPointer(bitPattern: first), end - first, Int32(MADV_HUGEPAGE))
        #endif
    }

    /// Advises the whole of an anonymous mapping of this package's own (``AnonymousMemory``), from ``threshold``
    /// bytes on. Its pages are shared with no other allocation, and advising only its 2 MiB-aligned middle, as
    /// ``advise(_:byteCount:)`` does, would split it into up to three mappings, which `mremap` refuses to grow
    /// (`EFAULT`). The advice stays with the mapping as it grows.
    static func adviseMapping(_ start: UnsafeMutableRawPointer, byteCount: Int) {
        #if os(Linux)
        guard byteCount >= threshold else { return }
        _ = madvise(start, byteCount, Int32(MADV_HUGEPAGE))
        #endif
    }

    /// Advises the storage of an empty array given its capacity (`reserveCapacity`), before it is appended to.
    static func advise<Element>(capacityOf array: inout [Element]) {
        let byteCount = array.capacity * MemoryLayout<Element>.stride
        guard array.isEmpty, byteCount >= threshold else { return }
        array.withUnsafeMutableBufferPointer { buffer in
            if let base = buffer.baseAddress { advise(UnsafeMutableRawPointer(base), byteCount: byteCount) }
        }
    }

    /// `Array(repeating:count:)` whose storage is advised before it is filled. Inlinable, so that the fill is
    /// specialized for the element type where it is called.
    @inlinable package static func array<Element>(repeating value: Element, count: Int) -> [Element] {
        // `Array(unsafeUninitializedCapacity: 0)` would store into the shared empty-array singleton (a data race).
        guard count > 0 else { return [] }
        return [Element](unsafeUninitializedCapacity: count) { buffer, initialized in
            if let base = buffer.baseAddress {
                advise(UnsafeMutableRawPointer(base), byteCount: buffer.count * MemoryLayout<Element>.stride)
            }
            buffer.initialize(repeating: value)
            initialized = buffer.count
        }
    }
}
