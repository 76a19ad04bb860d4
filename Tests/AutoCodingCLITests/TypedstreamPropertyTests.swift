// The commands are the `_AutoCodingCommands` library; until the package declares it, these tests build empty.
#if canImport(_AutoCodingCommands)
import AutoCoding
import Testing
import _AutoCodingTestSupport

@testable import _AutoCodingCommands

/// The typedstream writer and reader over generated graphs, seeded with the sample generator's random numbers
/// (this target can see them) so that every run and machine checks the same graphs.
@Suite("Typedstream writer and reader properties")
struct TypedstreamPropertyTests {
    /// Generated graphs of many shapes: arrays, dictionaries, strings, numbers, data, shared and cyclic
    /// references. Written, read and written again, the bytes are stable and the event tables equal.
    @Test(arguments: 0..<40)
    func generatedGraphsRoundTrip(seed: Int) throws {
        var random = SampleRandom(seed: UInt64(seed))
        var pool: [TypedObject] = []
        for _ in 0..<(2 + Int(random.next() % 30)) {
            let object: TypedObject
            switch random.next() % 7 {
            case 0: object = .string("s\(random.next() % 1000)", mutable: random.next() % 2 == 0)
            case 1: object = .number(Int64(bitPattern: random.next()) >> Int64(random.next() % 64))
            case 2: object = .number(Double(bitPattern: random.next() & 0x7FEF_FFFF_FFFF_FFFF))
            case 3: object = .data((0..<(random.next() % 300)).map { _ in UInt8(truncatingIfNeeded: random.next()) })
            case 4 where !pool.isEmpty:
                object = .array(
                    (0..<(random.next() % 5)).map { _ in .object(pool[Int(random.next() % UInt64(pool.count))]) }
                )
            case 5 where !pool.isEmpty:
                object = .dictionary(
                    (0..<(random.next() % 4)).map { i in
                        (key: .object(.string("k\(i)")), value: .object(pool[Int(random.next() % UInt64(pool.count))]))
                    }
                )
            default: object = .date(Double(random.next() % 1_000_000_000))
            }
            pool.append(object)
        }
        // A cycle: the first array (if any) holds the last object, which may be itself.
        if let array = pool.first(where: { $0.className == "NSArray" }) {
            array.groups.append(TypedGroup(encoding: "@", values: [.object(pool[pool.count - 1])]))
            array.groups[0] = TypedGroup(
                encoding: "i",
                values: [.signed(Int64(array.groups.count - 1), type: UInt8(ascii: "i"))]
            )
        }
        let archiver = TypedstreamArchiver()
        for object in pool.suffix(3) { archiver.encodeObject(object) }
        let order: Typedstream.ByteOrder = seed % 2 == 0 ? .little : .big
        let bytes = archiver.archivedBytes(byteOrder: order)
        let stream = try Typedstream(bytes: bytes)
        let graph = try TypedGraph(stream: stream)
        #expect(graph.typedstream().firstDifference(from: stream) == nil)
        let same = graph.typedstreamBytes() == bytes && stream.typedstreamBytes() == bytes
        #expect(same)
        #expect(graph.objects.count == TypedGraph(groups: archiver.graph().groups).objects.count)
    }
}
#endif
