import AutoCodingCore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Blocking reads and writes on raw file descriptors, retried on `EINTR`: the pipes and sockets of
/// `batch --isolate`, and standard input for `--stdin-frames`.
enum DescriptorIO {
    /// Reads at most `count` bytes and appends them to `buffer`; returns how many were read, 0 at end of input.
    static func read(_ fd: Int32, into buffer: inout [UInt8], upTo count: Int, name: String) throws -> Int {
        let old = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: count))
        while true {
            let got = buffer.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress! + old, count) }
            if got < 0 && errno == EINTR { continue }
            buffer.removeSubrange((old + max(got, 0))...)
            if got < 0 { throw ArchiveError.fileAccess("read", name, errnoCode: errno) }
            return got
        }
    }

    /// Reads exactly `count` bytes in chunks of at most 1 MiB, so that a length that the stream cannot back
    /// costs no more memory than the bytes that really arrive. Returns fewer bytes only at end of input.
    static func readExactly(_ fd: Int32, count: Int, name: String) throws -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(count, 1 << 20))
        while bytes.count < count {
            if try read(fd, into: &bytes, upTo: min(count - bytes.count, 1 << 20), name: name) == 0 { break }
        }
        return bytes
    }

    /// Writes all of `bytes`. With `socket`, uses `send(MSG_NOSIGNAL)`, so that a peer that died is an `EPIPE`
    /// error rather than a `SIGPIPE` that would end this process.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8], socket: Bool = false, name: String) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                let start = buffer.baseAddress! + offset
                let count = buffer.count - offset
                return socket ? send(fd, start, count, Int32(MSG_NOSIGNAL)) : systemWrite(fd, start, count)
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw ArchiveError.fileAccess("write", name, errnoCode: errno)
            }
            offset += written
        }
    }

    /// `value` as 8 big-endian bytes.
    static func bigEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) }
    }

    /// The big-endian unsigned integer in `bytes` (at most 8 of them).
    static func bigEndian(_ bytes: some Collection<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }
}

/// The POSIX `read`, under a name the `read` members above do not shadow.
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}

/// The POSIX `write`, under a name the `write` members above do not shadow.
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}
