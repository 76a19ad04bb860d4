import AutoCodingCore
import Foundation

/// The inputs of `batch --stdin-frames`: length-prefixed blobs, each with an id, read from a file descriptor
/// (standard input) one frame at a time.
///
/// A frame is, with all integers big-endian:
///
/// | bytes | field |
/// | --- | --- |
/// | 4 | id length `n` (at most ``maxIDBytes``) |
/// | n | id, UTF-8 |
/// | 8 | payload length `m` (at most `maxInputBytes`) |
/// | m | payload: the archive's bytes |
///
/// The stream ends cleanly after a whole frame. A stream that ends inside a frame, or a frame whose id or
/// payload length is above its limit or whose id is not UTF-8, is a ``FrameError`` naming the frame's byte
/// offset. Payloads are read in chunks as they arrive, so a length that the stream cannot back costs no
/// memory beyond the bytes that do arrive.
final class FrameSource: BatchSource {
    /// The longest id, in bytes.
    static let maxIDBytes = 4096

    private let fd: Int32
    private let maxPayloadBytes: Int
    private var offset: UInt64 = 0
    private var index = 0

    init(fd: Int32, maxPayloadBytes: Int) {
        self.fd = fd
        self.maxPayloadBytes = maxPayloadBytes
    }

    var total: Int? { nil }

    func next() throws -> BatchInput? {
        let start = offset
        let frame = index
        func failure(_ reason: String) -> FrameError { FrameError(index: frame, offset: start, reason: reason) }

        let header = try read(4)
        if header.isEmpty { return nil }
        guard header.count == 4 else { throw failure("truncated: the stream ends inside the 4-byte id length") }
        let idLength = DescriptorIO.bigEndian(header)
        guard idLength <= UInt64(Self.maxIDBytes) else {
            throw failure("the id length \(idLength) is above \(Self.maxIDBytes) bytes")
        }
        let idBytes = try read(Int(idLength))
        guard idBytes.count == Int(idLength) else {
            throw failure("truncated: the stream ends inside the \(idLength)-byte id")
        }
        guard let id = String(validating: idBytes, as: UTF8.self) else { throw failure("the id is not UTF-8") }
        let lengthBytes = try read(8)
        guard lengthBytes.count == 8 else {
            throw failure("truncated: the stream ends inside the 8-byte payload length of id \(JSONStringLiteral.quoted(id))")
        }
        let length = DescriptorIO.bigEndian(lengthBytes)
        guard length <= UInt64(maxPayloadBytes) else {
            throw failure(
                "the payload of \(length) bytes (id \(JSONStringLiteral.quoted(id))) is above maxInputBytes \(maxPayloadBytes)"
            )
        }
        let payload = try read(Int(length))
        guard payload.count == Int(length) else {
            throw failure(
                "truncated: the payload of id \(JSONStringLiteral.quoted(id)) has \(payload.count) of \(length) bytes"
            )
        }
        index += 1
        return .frame(id: id, bytes: payload)
    }

    private func read(_ count: Int) throws -> [UInt8] {
        let bytes = try DescriptorIO.readExactly(fd, count: count, name: "standard input")
        offset += UInt64(bytes.count)
        return bytes
    }
}

/// A frame of `--stdin-frames` that cannot be read: which frame (from 0), where it starts, and why.
struct FrameError: Error, CustomStringConvertible {
    var index: Int
    var offset: UInt64
    var reason: String

    var description: String { "frame \(index) at byte offset \(offset): \(reason)" }
}
