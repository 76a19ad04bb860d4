// The commands are the `_AutoCodingCommands` library; until the package declares it, these tests build empty.
#if canImport(_AutoCodingCommands)
import AutoCoding
import Foundation
import Testing
import _AutoCodingTestSupport

@testable import _AutoCodingCommands

/// `batch --stdin-frames`: length-prefixed blobs with ids on standard input.
@Suite("batch --stdin-frames")
struct BatchFramesTests {
    /// One frame: 4-byte big-endian id length, id, 8-byte big-endian payload length, payload.
    static func frame(id: String, payload: [UInt8], declaredLength: UInt64? = nil) -> [UInt8] {
        let idBytes = Array(id.utf8)
        let length = declaredLength ?? UInt64(payload.count)
        return (0..<4).map { UInt8(truncatingIfNeeded: UInt32(idBytes.count) >> (24 - 8 * $0)) } + idBytes
            + (0..<8).map { UInt8(truncatingIfNeeded: length >> (56 - 8 * $0)) } + payload
    }

    static func archives(_ count: Int) throws -> [[UInt8]] {
        try (0..<count).map { [UInt8](try KeyedArchiver.archivedData(withRootObject: ["frame \($0)", $0])) }
    }

    @Test(arguments: [false, true])
    func decodesEachFrameUnderItsId(isolate: Bool) throws {
        let archives = try Self.archives(5)
        var stream: [UInt8] = []
        for (i, archive) in archives.enumerated() { stream += Self.frame(id: "blob-\(i) ✓", payload: archive) }
        stream += Self.frame(id: "not-an-archive", payload: Array("hello".utf8))
        stream += Self.frame(id: "", payload: [])
        let result = try CLI.run(["batch", "--stdin-frames", "--jobs", "2"] + (isolate ? ["--isolate"] : []),
            stdin: Data(stream))
        #expect(result.status == 1, "\(result.stderr)")
        let records = try result.records()
        try #require(records.count == 7, "\(result.stderr)")
        #expect(records.map { $0["id"] as? String } == (0..<5).map { "blob-\($0) ✓" } + ["not-an-archive", ""])
        #expect(records.allSatisfy { $0["path"] == nil })
        #expect(records.prefix(5).allSatisfy { $0["ok"] as? Bool == true && $0["root_class"] as? String == "NSArray" })
        #expect(records.prefix(5).map { $0["bytes"] as? Int } == archives.map(\.count))
        #expect((records[5]["error"] as? [String: Any])?["code"] as? String == "notPropertyList")
    }

    /// A bad frame ends the run with exit 2 and an error naming its offset, after the records before it.
    @Test(arguments: [
        ("truncated payload", "truncated: the payload of id \"bad\" has 3 of 100 bytes"),
        ("truncated header", "truncated: the stream ends inside the 8-byte payload length"),
        ("oversized payload", "is above maxInputBytes"),
        ("oversized id", "the id length 4294967295 is above 4096 bytes"),
    ])
    func aBadFrameIsAnErrorNamingItsOffset(kind: String, message: String) throws {
        let archives = try Self.archives(3)
        var stream: [UInt8] = []
        for (i, archive) in archives.enumerated() { stream += Self.frame(id: "ok-\(i)", payload: archive) }
        let offset = stream.count
        switch kind {
        case "truncated payload": stream += Self.frame(id: "bad", payload: [1, 2, 3], declaredLength: 100)
        case "truncated header": stream += Array(Self.frame(id: "bad", payload: []).prefix(10))
        case "oversized payload": stream += Self.frame(id: "bad", payload: [], declaredLength: 1 << 40) + [0, 1]
        default: stream += [0xFF, 0xFF, 0xFF, 0xFF, 0x41]
        }
        let result = try CLI.run(["batch", "--stdin-frames", "-q"], stdin: Data(stream))
        #expect(result.status == 2)
        #expect(try result.records().map { $0["id"] as? String } == ["ok-0", "ok-1", "ok-2"])
        #expect(result.stderr.hasPrefix("error: frame 3 at byte offset \(offset): "))
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test func resumesByID() throws {
        let directory = try TemporaryDirectory()
        let archives = try Self.archives(4)
        let stream = archives.enumerated().flatMap { Self.frame(id: "id-\($0.offset)", payload: $0.element) }
        let output = directory.path("out.ndjson")
        // A first run that saw only two frames, then a resumed one that sees all four.
        let firstTwo = archives.prefix(2).enumerated().flatMap { Self.frame(id: "id-\($0.offset)", payload: $0.element) }
        #expect(try CLI.run(["batch", "--stdin-frames", "-o", output], stdin: Data(firstTwo)).status == 0)
        #expect(try CLI.run(["batch", "--stdin-frames", "--resume", "-o", output], stdin: Data(stream)).status == 0)
        let ids = try BatchResumeTests.paths(in: output)
        #expect(ids == ["id-0", "id-1", "id-2", "id-3"])
    }
}
#endif
