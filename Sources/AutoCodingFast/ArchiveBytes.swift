#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes at a stable address for as long as any ``KeyedArchiveView`` or ``LazyKeyedArchive`` refers to them,
/// so decoders can read through one raw pointer instead of re-entering `withUnsafeBytes` for every field.
///
/// The bytes are either the caller's array, held (not copied), or a read-only memory mapping of a file.
/// Readers hold this object (not the pointer), so the array or the mapping is released only when the last
/// reader is gone: no access can dangle.
package final class ArchiveBytes: @unchecked Sendable {
    /// The bytes. Valid until this object is deinitialized; never written.
    package let raw: UnsafeRawBufferPointer
    /// Whether `raw` is a file mapping (unmapped in `deinit`) rather than a held array.
    package let isMapped: Bool
    /// The array whose storage `raw` points into, kept alive (and so unchanged) by this reference.
    private let array: [UInt8]

    /// Holds `bytes` without copying them: a 75 MB archive decoded from memory costs no second 75 MB.
    ///
    /// The pointer outlives `withUnsafeBytes` by design. An `Array<UInt8>` is always native, contiguous storage
    /// (no bridged or lazy representation holds bytes, on Linux or Darwin), an object whose elements sit at a
    /// fixed address until it is freed; the stored copy keeps it alive, and nobody can write through it: a
    /// caller who mutates their array writes to a fresh copy (copy on write, the storage being shared).
    package init(holding bytes: [UInt8]) {
        array = bytes
        raw = bytes.withUnsafeBytes { $0 }
        isMapped = false
    }

    /// Maps the file at `path` read-only and privately.
    ///
    /// The pages are read from the file when first touched, so opening costs the same for 1 KB and 1 GB.
    /// The mapping is `MAP_PRIVATE`: this process never writes the file. If another process rewrites the file
    /// in place while it is mapped, reads may see old or new bytes (they are not re-validated); if it
    /// truncates the file, touching a page past the new end raises `SIGBUS`. Replace files atomically
    /// (write a new file, then rename, as ``ArchiveFile`` writes do) and mapped readers keep the old inode.
    package init(mapping path: String, maxBytes: Int) throws(ArchiveError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ArchiveError.fileAccess("open", path, errnoCode: errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw ArchiveError.fileAccess("stat", path, errnoCode: errno) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            // The same errno as ArchiveFile.read gives for a directory; other kinds have no call that failed.
            if (info.st_mode & S_IFMT) == S_IFDIR { throw ArchiveError.fileAccess("read", path, errnoCode: EISDIR) }
            throw ArchiveError(.fileAccess, "read \(path): not a regular file")
        }
        let length = Int(info.st_size)
        guard length <= maxBytes else {
            throw ArchiveError(.limitExceeded, "input of \(length) bytes exceeds maxInputBytes \(maxBytes)")
        }
        // mmap refuses zero lengths; an empty allocation gives the same "not a plist" error as empty bytes.
        guard length > 0 else {
            raw = UnsafeRawBufferPointer(start: nil, count: 0)
            isMapped = false
            array = []
            return
        }
        guard let base = mmap(nil, length, PROT_READ, MAP_PRIVATE, fd, 0), base != MAP_FAILED else {
            throw ArchiveError.fileAccess("map", path, errnoCode: errno)
        }
        raw = UnsafeRawBufferPointer(start: base, count: length)
        isMapped = true
        array = []
    }

    deinit {
        if isMapped { munmap(UnsafeMutableRawPointer(mutating: raw.baseAddress), raw.count) }
    }
}
