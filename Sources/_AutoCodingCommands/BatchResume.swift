import AutoCodingCore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What an earlier, interrupted `batch -o FILE` run left in FILE, for `--resume`.
///
/// Each complete line is a record; its identity (the text before its top-level `"ok"`: `{"path":…` with
/// `"row"` and `"column"` for SQLite rows, or `{"id":…`) names the input it is for, as
/// ``BatchDecoder/identity(of:)`` writes it. Identities are counted, so an input listed twice is done twice.
/// A last line without its newline was torn by the interruption: it is dropped (the file is truncated to the
/// last complete line) and its input decoded again.
struct BatchResumeState {
    /// How many records of each identity the file holds and the new run has not yet skipped.
    var remaining: [String: Int] = [:]
    /// Complete records in the file.
    var records = 0
    /// Of those, records with `"ok": false`.
    var failed = 0
    /// Bytes of a torn last line that were cut off.
    var truncatedBytes = 0

    /// Reads the records in the file at `path` (none if it does not exist) and truncates a torn last line.
    /// A complete line that is not a batch record is an error, and then the file is left as it was.
    static func load(path: String) throws -> BatchResumeState {
        var state = BatchResumeState()
        var fd: Int32
        repeat { fd = open(path, O_RDWR | O_CLOEXEC) } while fd < 0 && errno == EINTR
        if fd < 0 && errno == ENOENT { return state }
        guard fd >= 0 else { throw ArchiveError.fileAccess("open", path, errnoCode: errno) }
        defer { close(fd) }
        var buffer: [UInt8] = []
        var consumed = 0  // Bytes of the file before `buffer`.
        var lineNumber = 0
        while try DescriptorIO.read(fd, into: &buffer, upTo: 1 << 20, name: path) > 0 {
            var start = 0
            while let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                lineNumber += 1
                try state.add(buffer[start..<newline], line: lineNumber, path: path)
                start = newline + 1
            }
            consumed += start
            buffer.removeSubrange(..<start)
        }
        if !buffer.isEmpty {
            state.truncatedBytes = buffer.count
            guard ftruncate(fd, off_t(consumed)) == 0 else {
                throw ArchiveError.fileAccess("truncate", path, errnoCode: errno)
            }
        }
        return state
    }

    private mutating func add(_ line: ArraySlice<UInt8>, line number: Int, path: String) throws {
        guard let (identity, ok) = Self.split(line) else {
            throw BatchResumeError(
                reason: "line \(number) of \(path) is not a batch record; --resume appends only to batch output"
            )
        }
        remaining[identity, default: 0] += 1
        records += 1
        if !ok { failed += 1 }
    }

    /// The identity of a record line and its `ok`, or nil if the line is not a record. The identity ends at
    /// the first `,"ok":` outside strings and at the record's top level (a column named `ok` inside `"row"`
    /// does not count).
    static func split(_ line: ArraySlice<UInt8>) -> (identity: String, ok: Bool)? {
        let bytes = Array(line)
        guard bytes.starts(with: Array(#"{"path":"#.utf8)) || bytes.starts(with: Array(#"{"id":"#.utf8)) else {
            return nil
        }
        let marker = Array(#","ok":"#.utf8)
        var depth = 0
        var inString = false
        var escaped = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else {
                switch byte {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
                case UInt8(ascii: ",") where depth == 1 && bytes[index...].starts(with: marker):
                    let value = bytes[(index + marker.count)...]
                    guard value.starts(with: Array("true".utf8)) || value.starts(with: Array("false".utf8)) else {
                        return nil
                    }
                    return (String(decoding: bytes[..<index], as: UTF8.self), value.first == UInt8(ascii: "t"))
                default: break
                }
            }
            index += 1
        }
        return nil
    }
}

/// An output file that `--resume` cannot continue.
struct BatchResumeError: Error, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}

/// Passes on the inputs of another source except those an earlier run already recorded.
final class ResumingSource: BatchSource {
    private let base: any BatchSource
    private var state: BatchResumeState
    /// Inputs skipped because the output file already has their record.
    private(set) var skipped = 0

    init(base: any BatchSource, state: BatchResumeState) {
        self.base = base
        self.state = state
    }

    var total: Int? { base.total.map { max(0, $0 - state.records) } }
    var skippedNulls: Int { base.skippedNulls }

    func next() throws -> BatchInput? {
        while let input = try base.next() {
            let identity = BatchDecoder.identity(of: input)
            guard let count = state.remaining[identity] else { return input }
            state.remaining[identity] = count == 1 ? nil : count - 1
            skipped += 1
        }
        return nil
    }
}
