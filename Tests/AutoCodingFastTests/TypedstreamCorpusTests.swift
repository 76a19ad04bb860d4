import AutoCodingFast
import Foundation
import Testing
import _AutoCodingTestSupport

/// The shared typedstream samples: every one reads, agrees with python-typedstream's raw `read` dump where
/// the reference reads it, and round-trips.
@Suite("Typedstream corpus")
struct TypedstreamCorpusTests {
    static let samples = SharedCorpus.paths(in: "typedstream")

    /// The reference dump of a sample, or nil where python-typedstream could not read it.
    static func expectedDump(_ path: String) -> String? {
        let name = (path as NSString).lastPathComponent
        let url = SharedCorpus.directory.appendingPathComponent("typedstream-expected/\(name).read.txt")
        return try? String(contentsOf: url, encoding: .utf8)
    }

    @Test(.enabled(if: SharedCorpus.isAvailable, SharedCorpus.skipReason), arguments: samples)
    func eventsAgreeWithReferenceDump(_ path: String) throws {
        let stream = try Typedstream(bytes: try SharedCorpus.bytes(path))
        guard let expected = Self.expectedDump(path) else {
            // Only the 0x87 sample lacks a dump; it has hand-made expectations below.
            #expect(path.hasSuffix("crabstep_foundation-NumberInt64"))
            return
        }
        let ours = stream.eventText().split(separator: "\n", omittingEmptySubsequences: false)
        let theirs = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let firstDifference = zip(ours, theirs).enumerated().first { $0.element.0 != $0.element.1 }
        #expect(
            firstDifference == nil,
            "line \(firstDifference?.offset ?? -1): \(firstDifference.map { "\($0.element.0) vs \($0.element.1)" } ?? "")"
        )
        #expect(ours.count == theirs.count)
    }

    @Test(.enabled(if: SharedCorpus.isAvailable, SharedCorpus.skipReason), arguments: samples)
    func roundTripsToAnEqualTable(_ path: String) throws {
        let bytes = try SharedCorpus.bytes(path)
        let stream = try Typedstream(bytes: bytes)
        let written = stream.typedstreamBytes()
        let reread = try Typedstream(bytes: written)
        #expect(reread.firstDifference(from: stream) == nil)
        // Every sample was written by Apple's or NeXT's own writer, whose sharing and integer forms ours follows.
        #expect(written == bytes)
        // The other byte order holds the same events.
        let swapped = try Typedstream(
            bytes: stream.typedstreamBytes(byteOrder: stream.byteOrder == .big ? .little : .big)
        )
        #expect(swapped.events.count == stream.events.count)
        #expect(swapped.eventText().drop { $0 != "\n" } == stream.eventText().drop { $0 != "\n" })
    }

    @Test(.enabled(if: SharedCorpus.isAvailable, SharedCorpus.skipReason))
    func readsTheInt64Sample() throws {
        let stream = try Typedstream(bytes: try SharedCorpus.bytes("typedstream/crabstep_foundation-NumberInt64"))
        // NSNumber → NSValue → NSObject, the C string "q", then the 8-byte integer after tag 0x87.
        let values = stream.events.compactMap { event -> Int64? in
            if case .signed(let v, type: UInt8(ascii: "q")) = event { return v }
            return nil
        }
        #expect(values == [-9_000_000_000])
        #expect(stream.systemVersion == 1000)
        #expect(stream.byteOrder == .little)
        #expect(stream.typedstreamBytes() == (try SharedCorpus.bytes("typedstream/crabstep_foundation-NumberInt64")))
    }

    @Test(.enabled(if: SharedCorpus.isAvailable, SharedCorpus.skipReason))
    func rejectsTheMalformedSample() throws {
        let bytes = try SharedCorpus.bytes("malformed/crabstep_ExtraData.typedstream")
        let error = #expect(throws: ArchiveError.self) { try Typedstream(bytes: bytes) }
        #expect(error?.code == .truncated)
    }
}
