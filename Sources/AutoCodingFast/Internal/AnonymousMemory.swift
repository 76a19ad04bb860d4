internal import CPlistShim

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Large buffers as anonymous mappings of their own: zero pages from the kernel that cost nothing until written,
/// handed back whole when freed, and on Linux grown by moving their pages rather than copying their bytes.
///
/// `malloc` maps large blocks too, but glibc raises its mapping threshold to 32 MB after the first large free;
/// below it, `calloc` clears a whole block, and `realloc` copies a block it cannot extend in place. An encoder's
/// table of several buffers doubling side by side was copied at each doubling, every copy written into fresh
/// pages: two fifths of the page faults of a 100,000-person encode. The record table of the typed decoders and
/// the encoders' buffers (``MovableBuffer``) are mapped here from ``threshold`` bytes on.
enum AnonymousMemory {
    /// The size from which a buffer is mapped (1 MiB).
    static let threshold = 1 << 20

    /// `byteCount` bytes of zeros; nil when the system refuses them.
    static func map(_ byteCount: Int) -> UnsafeMutableRawPointer? {
        let memory = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        return memory == MAP_FAILED ? nil : memory
    }

    /// The mapping at `memory` grown from `oldCount` to `newCount` bytes with its contents, moved if need be (the
    /// old address is then invalid); nil when it cannot grow, the old mapping left as it was. Pages are moved on
    /// Linux; elsewhere the bytes are copied into a new mapping.
    static func grow(_ memory: UnsafeMutableRawPointer, from oldCount: Int, to newCount: Int)
        -> UnsafeMutableRawPointer?
    {
        #if os(Linux)
        return CPlistShim_remap(memory, oldCount, newCount)
        #else
        guard let grown = map(newCount) else { return nil }
        grown.copyMemory(from: memory, byteCount: oldCount)
        unmap(memory, oldCount)
        return grown
        #endif
    }

    /// Hands the `byteCount` bytes at `memory` back to the system.
    static func unmap(_ memory: UnsafeMutableRawPointer, _ byteCount: Int) { munmap(memory, byteCount) }
}
