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
        decoder.options.maxExpandedNodeCount = 200
        #expect(try decoder.decode(Tagged.self, from: data).tags.count == 100)
    }
}
