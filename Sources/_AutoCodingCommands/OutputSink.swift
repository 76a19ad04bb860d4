import AutoCodingCore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A buffered writer to a file descriptor: standard output, or a file created for `-o`.
///
/// ``writeLine(_:)`` keeps every `write(2)` to whole lines and, when the lines allow, to at most `PIPE_BUF`
/// (4 KiB) bytes, which the kernel writes to a pipe atomically: several `batch` processes started by
/// `xargs -P` or GNU parallel can share one output pipe without tearing records. Not thread-safe; `batch`
/// calls it under its lock.
final class OutputSink {
    private let fd: Int32
    private let ownsDescriptor: Bool
    private let name: String
    private var buffer: [UInt8] = []
    private let capacity = 1 << 16
    /// Runs before each write of buffered bytes: `batch` clears its progress line there when records and the
    /// bar share a terminal, so that no record is printed on the bar's line.
    var beforeWrite: (() -> Void)?
    /// The size up to which writes to a pipe are atomic on Linux and macOS.
    static let atomicWriteSize = 4096

    /// Standard output.
    static func standardOutput() -> OutputSink { OutputSink(fd: 1, owns: false, name: "standard output") }

    /// A new file at `path` (truncated if it exists), or standard output for `-`.
    static func file(_ path: String) throws -> OutputSink {
        if path == "-" { return standardOutput() }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ArchiveError.fileAccess("open", path, errnoCode: errno) }
        return OutputSink(fd: fd, owns: true, name: path)
    }

    /// The file at `path` opened for appending (created if missing), for `batch --resume`.
    static func appending(_ path: String) throws -> OutputSink {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ArchiveError.fileAccess("open", path, errnoCode: errno) }
        return OutputSink(fd: fd, owns: true, name: path)
    }

    private init(fd: Int32, owns: Bool, name: String) {
        self.fd = fd
        self.ownsDescriptor = owns
        self.name = name
        buffer.reserveCapacity(capacity)
    }

    deinit {
        try? flush()
        if ownsDescriptor { _ = close(fd) }
    }

    /// Appends text, flushing in 64 KiB chunks with no regard for lines.
    func write(_ text: String) throws {
        var text = text
        text.withUTF8 { buffer.append(contentsOf: $0) }
        if buffer.count >= capacity { try flush() }
    }

    func write(_ bytes: [UInt8]) throws {
        buffer.append(contentsOf: bytes)
        if buffer.count >= capacity { try flush() }
    }

    /// Appends `line` and a newline, flushing first if together they would pass ``atomicWriteSize``.
    func writeLine(_ line: String) throws {
        var line = line
        let count = line.utf8.count + 1
        if !buffer.isEmpty && buffer.count + count > Self.atomicWriteSize { try flush() }
        line.withUTF8 { buffer.append(contentsOf: $0) }
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= Self.atomicWriteSize { try flush() }
    }

    func flush() throws {
        if !buffer.isEmpty { beforeWrite?() }
        var offset = 0
        defer {
            buffer.removeSubrange(..<offset)
        }
        while offset < buffer.count {
            let written = buffer.withUnsafeBytes { systemWrite(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw ArchiveError.fileAccess("write", name, errnoCode: errno)
            }
            offset += written
        }
    }
}

/// The POSIX `write`, under a name the `write` members above do not shadow.
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}
