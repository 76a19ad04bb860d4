#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import AutoCodingFast

/// Reads one input whole, once, from any kind of file: a regular file, a pipe, a FIFO, a character device or
/// standard input (`-`).
///
/// Every command reads each input through this, once: opening a path twice fails on a pipe or FIFO (the first
/// read drained it) and can see two different files. Reading stops after `limit + 1` bytes, so an endless
/// source (`/dev/zero`, a pipe that never closes its end) costs at most the limit; a regular file larger than
/// the limit is refused by its size before any byte is read.
public enum ArchiveInput {
    /// The name that means standard input.
    public static let standardInputName = "-"

    /// The bytes of `path` (`-` for standard input), at most `limit` of them.
    ///
    /// Throws `ArchiveError.Code.limitExceeded` for more than `limit` bytes and
    /// `ArchiveError.Code.fileAccess` when the path cannot be opened or read (a directory is
    /// `EISDIR` in `ArchiveError.errnoCode`).
    public static func read(_ path: String, limit: Int) throws -> [UInt8] {
        guard path != standardInputName else { return try read(fd: 0, name: "standard input", limit: limit) }
        var fd: Int32
        repeat { fd = open(path, O_RDONLY | O_CLOEXEC) } while fd < 0 && errno == EINTR
        guard fd >= 0 else { throw ArchiveError.fileAccess("open", path, errnoCode: errno) }
        defer { _ = close(fd) }
        return try read(fd: fd, name: path, limit: limit)
    }

    /// The bytes readable from `fd` until end of file, at most `limit` of them; `name` is for messages.
    public static func read(fd: Int32, name: String, limit: Int) throws -> [UInt8] {
        let limit = max(limit, 0)
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw ArchiveError.fileAccess("stat", name, errnoCode: errno) }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw ArchiveError.fileAccess("read", name, errnoCode: EISDIR) }
        // The size of a regular file is a hint (files under /proc report 0, files grow), never a promise.
        let hint = (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : 0
        if hint > limit { throw tooLarge(name, limit: limit) }
        // One byte past the limit tells "exactly the limit" from "more".
        let ceiling = limit == .max ? limit : limit + 1
        // A malloc'd buffer grown with `realloc`, which moves large blocks by remapping pages rather than
        // copying: an endless source costs the ceiling, not twice it.
        var capacity = min(max(hint + 1, 64 << 10), ceiling)
        guard var buffer = malloc(capacity) else { throw ArchiveError.fileAccess("read", name, errnoCode: ENOMEM) }
        defer { free(buffer) }
        var count = 0
        while true {
            if count == capacity {
                guard count < ceiling else { break }
                // Grow geometrically, never past the ceiling.
                let grown = max(min(count.multipliedReportingOverflow(by: 2).partialValue, ceiling), count + 1)
                guard let moved = realloc(buffer, grown) else {
                    throw ArchiveError.fileAccess("read", name, errnoCode: ENOMEM)
                }
                buffer = moved
                capacity = grown
            }
            let got = systemRead(fd, buffer + count, capacity - count)
            if got < 0 {
                if errno == EINTR { continue }
                throw ArchiveError.fileAccess("read", name, errnoCode: errno)
            }
            if got == 0 { break }
            count += got
        }
        if count > limit { throw tooLarge(name, limit: limit) }
        return [UInt8](UnsafeRawBufferPointer(start: buffer, count: count))
    }

    private static func tooLarge(_ name: String, limit: Int) -> ArchiveError {
        ArchiveError(.limitExceeded, "\(name) has more than maxInputBytes \(limit) bytes")
    }
}

/// The POSIX `read`, under a name the ``ArchiveInput`` members do not shadow.
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}
