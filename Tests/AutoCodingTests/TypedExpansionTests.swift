import AutoCoding
import Foundation
import Testing

/// A value with a shared friend: Codable structs decode a shared entry once per reference.
private struct Tag: Codable, Equatable {
    var name: String
}

private struct Tagged: Codable {
    var tags: [Tag]
}

/// A class whose encoding shares one `Tag`-shaped object many times.
private final class SharedTagHolder: Codable {
    final class TagObject: Codable {
        var name = "shared"
    }
    var tags: [TagObject]

    init(count: Int) {
        let shared = TagObject()
        tags = Array(repeating: shared, count: count)
    }
}

@Suite("Typed decoding: shared entries expand within a budget")
struct TypedExpansionTests {
    @Test func aReferenceBombDecodedAsValuesStopsAtTheBudget() {
        let bytes = HostilePlists.keyedArchiveHoldingBomb(levels: 30)
        #expect {
            _ = try KeyedArchiveDecoder().decode(LimitBombHolder.self, from: bytes)
        } throws: { error in
            "\(error)".contains("a reference bomb")
        }
    }

    /// A list of `count` references to one list of `count` references to a string. At 1,000: a few KB of
    /// archive, two lists, a million decoded values. The budget counts elements, not only containers.
    static func listOfOneSharedList(count: Int) -> [UInt8] {
        let nsArray: ArchiveValue = .dictionary([
            "$classname": .string("NSArray"), "$classes": .array([.string("NSArray"), .string("NSObject")]),
        ])
        let objects: [ArchiveValue] = [
            .string("$null"),
            .dictionary([
                "$class": .uid(ArchiveUID(4)),
                "NS.objects": .array(Array(repeating: .uid(ArchiveUID(2)), count: count)),
            ]),
            .dictionary([
                "$class": .uid(ArchiveUID(4)),
                "NS.objects": .array(Array(repeating: .uid(ArchiveUID(3)), count: count)),
            ]),
            .string("shared"),
            nsArray,
        ]
        return KeyedArchive(top: ["root": .uid(ArchiveUID(1))], objects: objects).binaryPlist()
    }

    @Test func aListOfOneSharedListStopsAtTheBudget() throws {
        let bytes = Self.listOfOneSharedList(count: 1000)
        #expect(bytes.count < 10_000)
        #expect {
            _ = try KeyedArchiveDecoder().decode([[String]].self, from: bytes)
        } throws: { error in
            "\(error)".contains("a reference bomb")
        }
        // (`decodeObject(forKey:)` decodes the shared list once, as corelibs does: SharedContainerTests.)
        // 200 × 200 values are within the budget (65,536 and 16 per object): the same shape decodes whole.
        let small = try KeyedArchiveDecoder().decode([[String]].self, from: Self.listOfOneSharedList(count: 200))
        #expect(small.count == 200 && small.allSatisfy { $0.count == 200 && $0[0] == "shared" })
    }

    /// Real sharing (one entry referenced from many places) decodes into as many values.
    @Test func oneEntrySharedTenThousandTimesDecodesAsValues() throws {
        let data = try KeyedArchiveEncoder().encode(SharedTagHolder(count: 10_000))
        let decoded = try KeyedArchiveDecoder().decode(Tagged.self, from: data)
        #expect(decoded.tags.count == 10_000)
        #expect(decoded.tags.allSatisfy { $0 == Tag(name: "shared") })
    }

    @Test func theBudgetFollowsMaxExpandedNodeCount() throws {
        let data = try KeyedArchiveEncoder().encode(SharedTagHolder(count: 100))
        var decoder = KeyedArchiveDecoder()
        decoder.options.maxExpandedNodeCount = 50
        #expect(throws: DecodingError.self) { _ = try decoder.decode(Tagged.self, from: data) }
        // Each tag counts twice, as an element of the list and as a struct decoded.
        decoder.options.maxExpandedNodeCount = 199
        #expect(throws: DecodingError.self) { _ = try decoder.decode(Tagged.self, from: data) }
        decoder.options.maxExpandedNodeCount = 250
        #expect(try decoder.decode(Tagged.self, from: data).tags.count == 100)
    }

    /// The budget per object is `maxExpandedNodesPerInputByte`, the rule of the value-tree readers: lowered, it
    /// refuses what the default accepts, in the typed decoders and `KeyedUnarchiver` alike.
    @Test func theBudgetFollowsMaxExpandedNodesPerInputByte() throws {
        // 20 references to one list of 10,000 distinct strings: 200,021 values, from about 10,000 bplist objects
        // (a budget of about 225,000 by default, 65,536 with none per object).
        let bytes = Self.list(sharedBy: 20, strings: 10_000)
        #expect(try KeyedArchiveDecoder().decode([[String]].self, from: bytes).count == 20)
        #expect(try KeyedUnarchiver(bytes: bytes).decodeObject(of: [[String]].self, forKey: "root")?.count == 20)
        var strict = KeyedArchiveDecoder()
        strict.options.maxExpandedNodesPerInputByte = 0
        #expect {
            _ = try strict.decode([[String]].self, from: bytes)
        } throws: { error in
            "\(error)".contains("a reference bomb")
        }
        #expect {
            _ = try KeyedUnarchiver(bytes: bytes, decoder: strict).decodeObject(of: [[String]].self, forKey: "root")
        } throws: { error in
            "\(error)".contains("a reference bomb")
        }
    }

    /// A list of `references` references to one list of `strings` distinct strings.
    static func list(sharedBy references: Int, strings: Int) -> [UInt8] {
        let nsArray: ArchiveValue = .dictionary([
            "$classname": .string("NSArray"), "$classes": .array([.string("NSArray"), .string("NSObject")]),
        ])
        let inner = (0..<strings).map { ArchiveValue.uid(ArchiveUID(UInt32(4 + $0))) }
        let objects: [ArchiveValue] = [
            .string("$null"),
            .dictionary(["$class": .uid(ArchiveUID(3)), "NS.objects": .array(Array(repeating: .uid(ArchiveUID(2)), count: references))]),
            .dictionary(["$class": .uid(ArchiveUID(3)), "NS.objects": .array(inner)]),
            nsArray,
        ] + (0..<strings).map { .string("s\($0)") }
        return KeyedArchive(top: ["root": .uid(ArchiveUID(1))], objects: objects).binaryPlist()
    }
}
