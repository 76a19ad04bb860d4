import AutoCodingCore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads lines from a file descriptor (standard input) in 64 KiB chunks, one line at a time, so that a list of
/// a million paths is never held in memory at once.
final class LineReader {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    private var isAtEnd = false

    init(fd: Int32) { self.fd = fd }

    /// The next line without its `\n` (and `\r`), or nil at end of input. The last line needs no newline.
    func next() throws -> String? {
        while true {
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                var end = newline
                if end > start && buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                let line = String(decoding: buffer[start..<end], as: UTF8.self)
                start = newline + 1
                return line
            }
            if isAtEnd {
                guard start < buffer.count else { return nil }
                let line = String(decoding: buffer[start...], as: UTF8.self)
                start = buffer.count
                return line
            }
            if start > 0 {
                buffer.removeSubrange(..<start)
                start = 0
            }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let got = chunk.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress, $0.count) }
            if got < 0 {
                if errno == EINTR { continue }
                throw ArchiveError.fileAccess("read", "standard input", errnoCode: errno)
            }
            if got == 0 {
                isAtEnd = true
            } else {
                buffer.append(contentsOf: chunk[..<got])
            }
        }
    }
}

/// The POSIX `read`, under a name the `read` members above do not shadow.
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}
