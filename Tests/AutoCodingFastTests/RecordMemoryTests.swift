import Testing

@testable import AutoCodingFast

/// The memory of large indexes, kept between reads (``RecordMemory``): which mapping an index gets, what is kept,
/// and that an index on kept memory reads as one on fresh memory, damage included.
@Suite("Record memory")
struct RecordMemoryTests {
    static let mebibyte = 1 << 20

    @Test func aKeptMappingIsTakenAgainAsItWas() throws {
        let memory = RecordMemory()
        let first = try #require(memory.take(2 * Self.mebibyte))
        first.base.initializeMemory(as: UInt8.self, repeating: 0xA5, count: first.byteCount)
        memory.give(first)
        #expect(memory.keptSizes == [2 * Self.mebibyte])
        let second = try #require(memory.take(Self.mebibyte))
        #expect(second.base == first.base)
        #expect(second.byteCount == first.byteCount)
        #expect(memory.keptSizes.isEmpty)
        memory.give(second)
    }

    @Test func theSmallestMappingThatHoldsARequestIsTaken() throws {
        let memory = RecordMemory()
        let mappings = try [4, 2, 8].map { try #require(memory.take($0 * Self.mebibyte)) }
        for mapping in mappings { memory.give(mapping) }
        let taken = try #require(memory.take(3 * Self.mebibyte / 2))
        #expect(taken.byteCount == 2 * Self.mebibyte)
        #expect(memory.keptSizes == [4 * Self.mebibyte, 8 * Self.mebibyte])
        // Nothing kept holds 9 MiB: a new mapping.
        let new = try #require(memory.take(9 * Self.mebibyte))
        #expect(new.byteCount == 9 * Self.mebibyte)
        #expect(memory.keptSizes.count == 2)
        memory.give(taken)
        memory.give(new)
    }

    @Test func keepingStopsAtTheLimitsOldestFirst() throws {
        let memory = RecordMemory(keptMappingLimit: 2, keptByteLimit: 8 * Self.mebibyte)
        let mappings = try [1, 2, 3].map { try #require(memory.take($0 * Self.mebibyte)) }
        for mapping in mappings { memory.give(mapping) }
        #expect(memory.keptSizes == [2 * Self.mebibyte, 3 * Self.mebibyte])
        memory.give(try #require(memory.take(6 * Self.mebibyte)))
        #expect(memory.keptSizes == [6 * Self.mebibyte])
        // Past the byte limit alone: unmapped at once.
        memory.give(try #require(memory.take(9 * Self.mebibyte)))
        #expect(memory.keptSizes == [6 * Self.mebibyte])
        let none = RecordMemory(keptMappingLimit: 0)
        none.give(try #require(none.take(Self.mebibyte)))
        #expect(none.keptSizes.isEmpty)
    }

    /// A keyed archive of `count` string entries (an index past ``RecordMemory/threshold``); `damaged` turns the
    /// first byte of the last string into a byte no ASCII string holds.
    static func archive(strings count: Int, damaged: Bool = false) throws -> [UInt8] {
        let objects: [ArchiveValue] = [.string("$null")] + (1...count).map { .string("s\($0)") }
        var bytes = KeyedArchive(archiver: "NSKeyedArchiver", top: ["root": .uid(ArchiveUID(1))], objects: objects)
            .binaryPlist()
        guard damaged else { return bytes }
        let last = Array("s\(count)".utf8)
        let at = try #require(
            (0...(bytes.count - last.count)).first { i in bytes[i..<(i + last.count)].elementsEqual(last) })
        bytes[at] = 0xFF
        return bytes
    }

    /// Indexes of other sizes, one after another on the shared memory (which writes every record, nothing
    /// cleared), read what each archive holds.
    @Test func anIndexOnKeptMemoryReadsWhatWasWritten() throws {
        for count in [100_000, 110_000, 90_000] {
            let bytes = try Self.archive(strings: count)
            let objects = try KeyedArchiveView(bytes: bytes).keyedArchive().objects
            #expect(objects.count == count + 1)
            #expect(objects.dropFirst().enumerated().allSatisfy { $1 == .string("s\($0 + 1)") })
        }
    }

    /// An index of damaged bytes right after one of the same archive whole is refused, as on fresh memory: the
    /// record the earlier index wrote for the damaged string is not read.
    @Test func anIndexOnKeptMemoryFindsDamageTheEarlierIndexDidNotHave() throws {
        let good = try Self.archive(strings: 120_000)
        let bad = try Self.archive(strings: 120_000, damaged: true)
        #expect(good.count == bad.count)
        let fresh = #expect(throws: ArchiveError.self) { try KeyedArchiveView(bytes: bad) }
        for _ in 0..<3 {
            _ = try KeyedArchiveView(bytes: good)
            let error = #expect(throws: ArchiveError.self) { try KeyedArchiveView(bytes: bad) }
            #expect(error?.code == fresh?.code)
            #expect(error?.reason == fresh?.reason)
        }
    }
}
