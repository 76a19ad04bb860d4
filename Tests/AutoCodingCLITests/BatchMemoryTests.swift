// The commands are the `_AutoCodingCommands` library; until the package declares it, these tests build empty.
#if canImport(_AutoCodingCommands)
import AutoCoding
import Foundation
import Testing
import _AutoCodingTestSupport

/// A batch worker reads input after input: what one input leaves behind adds up over a run.
@Suite("batch memory")
struct BatchMemoryTests {
    static let payloadBytes = 128 << 10

    /// Two instances referencing each other, holding a 128 KiB string; with `refused`, also a plain array entry
    /// holding a UID, which the graph refuses after it has filled its objects.
    static func cyclicArchive(_ index: Int, refused: Bool) -> [UInt8] {
        let node: ArchiveValue = .dictionary(["$classname": .string("Node"), "$classes": .array([.string("Node")])])
        var objects: [ArchiveValue] = [
            .string("$null"),
            .dictionary(["$class": .uid(ArchiveUID(3)), "next": .uid(ArchiveUID(2)), "text": .uid(ArchiveUID(4))]),
            .dictionary(["$class": .uid(ArchiveUID(3)), "next": .uid(ArchiveUID(1))]),
            node,
            .string("\(index)" + String(repeating: "k", count: payloadBytes)),
        ]
        if refused { objects.append(.array([.uid(ArchiveUID(1))])) }
        return KeyedArchive(top: ["root": .uid(ArchiveUID(1))], objects: objects).binaryPlist()
    }

    /// A typedstream whose root object holds itself and a 128 KiB string.
    static func cyclicTypedstream(_ index: Int) -> [UInt8] {
        let object = TypedObject(classes: [TypedClass("Node", version: 0)])
        let text = Array("\(index)".utf8) + [UInt8](repeating: 0x74, count: payloadBytes)
        object.groups = [TypedGroup(encoding: "@+", values: [.object(object), .string(text)])]
        defer { object.groups = [] }
        return TypedGraph(groups: [TypedGroup(encoding: "@", values: [.object(object)])]).typedstreamBytes()
    }

    /// The peak resident set in bytes that `autocoding batch --stdin-frames --jobs 1` reports for `frames`
    /// (its summary's `VmHWM`: `wait4`'s figure would be no smaller than the test process's own, which a child
    /// inherits at `exec`).
    static func peakResidentBytes(frames: [UInt8], withJSON: Bool) throws -> Int {
        let result = try CLI.run(
            ["batch", "--stdin-frames", "--jobs", "1"] + (withJSON ? ["--with-json"] : []), stdin: Data(frames))
        // Exit 1: the refused archives are failed records, not a failed run.
        #expect(result.status == 1, "\(result.stderr)")
        let summary = try #require(result.stderr.split(separator: "\n").first { $0.hasPrefix("batch: ") })
        let figure = try #require(summary.split(separator: ", ").last { $0.hasPrefix("peak resident ") })
        let mebibytes = try #require(Int(figure.dropFirst("peak resident ".count).prefix { $0.isNumber }))
        return mebibytes << 20
    }

    /// The peak resident set of a batch over `rounds` each of: cyclic archives, cyclic archives the graph refuses,
    /// cyclic typedstreams; with `withJSON`, each record also carries the graph's JSON (a second reading of the
    /// input, whose objects must be freed too).
    static func peakOfBatch(rounds: Int, withJSON: Bool = false) throws -> Int {
        var frames: [UInt8] = []
        for i in 0..<rounds {
            frames += BatchFramesTests.frame(id: "keyed-\(i)", payload: cyclicArchive(i, refused: false))
            frames += BatchFramesTests.frame(id: "refused-\(i)", payload: cyclicArchive(i, refused: true))
            frames += BatchFramesTests.frame(id: "typed-\(i)", payload: cyclicTypedstream(i))
        }
        return try peakResidentBytes(frames: frames, withJSON: withJSON)
    }

    @Test(.enabled(if: ActiveSanitizer.name == nil, "a sanitizer's quarantine keeps freed memory resident"))
    func cyclicInputsDoNotAccumulate() throws {
        // Kept, the 48 more rounds of the second run would hold 18 MiB more of strings (6 MiB for each kind);
        // freed, the worker holds one input at a time whatever the count.
        let few = try Self.peakOfBatch(rounds: 8)
        let many = try Self.peakOfBatch(rounds: 56)
        let kept = 48 * 3 * Self.payloadBytes
        #expect(many - few < kept / 6, "peak resident set \(few >> 10) KiB after 8 rounds, \(many >> 10) KiB after 56")
    }

    @Test(.enabled(if: ActiveSanitizer.name == nil, "a sanitizer's quarantine keeps freed memory resident"))
    func cyclicInputsWithJSONDoNotAccumulate() throws {
        let few = try Self.peakOfBatch(rounds: 8, withJSON: true)
        let many = try Self.peakOfBatch(rounds: 56, withJSON: true)
        let kept = 48 * 3 * Self.payloadBytes
        #expect(many - few < kept / 6, "peak resident set \(few >> 10) KiB after 8 rounds, \(many >> 10) KiB after 56")
    }
}
#endif
