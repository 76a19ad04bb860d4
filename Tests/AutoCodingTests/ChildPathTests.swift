import AutoCoding
@testable import AutoCodingCore
import Foundation
import Testing

@AutoCoding final class PathSample {
    var tags: [Int] = []
    var friends: [PathSample] = []
    var best: PathSample?
}

/// Fields and list elements that make no decoder of their own are decoded without a path node; an error they
/// throw still names the whole path, down to the key or index.
@Suite("Coding paths of fields and list elements")
struct ChildPathTests {
    /// A root array of one `PathSample` (entry 3) with `fields`, and entry 4, an instance of another class.
    static func archive(_ fields: [String: ArchiveValue]) -> [UInt8] {
        func descriptor(_ name: String) -> ArchiveValue {
            .dictionary(["$classname": .string(name), "$classes": .array([.string(name), .string("NSObject")])])
        }
        var sample = fields
        sample["$class"] = .uid(ArchiveUID(1))
        let objects: [ArchiveValue] = [
            .string("$null"), descriptor("PathSample"), descriptor("NSArray"),
            .dictionary(.init(uniqueKeysWithValues: sample.sorted { $0.key < $1.key })),
            .dictionary(["$class": .uid(ArchiveUID(6))]),
            .dictionary(["NS.objects": .array([.uid(ArchiveUID(3))]), "$class": .uid(ArchiveUID(2))]),
            descriptor("Other"),
        ]
        return KeyedArchive(top: ["root": .uid(ArchiveUID(5))], objects: objects).binaryPlist()
    }

    static func path(decoding bytes: [UInt8]) -> [String]? {
        var decoder = KeyedArchiveDecoder()
        decoder.setClass(PathSample.self, forClassName: "PathSample")
        do {
            _ = try decoder.decode([PathSample].self, from: bytes)
            return nil
        } catch let error as DecodingError {
            switch error {
            case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
                return context.codingPath.map(\.stringValue)
            case .keyNotFound(_, let context):
                return context.codingPath.map(\.stringValue)
            @unknown default:
                return nil
            }
        } catch {
            return nil
        }
    }

    @Test func aScalarElementOfTheWrongTypeNamesItsIndex() {
        let bytes = Self.archive(["tags": .array([.integer(1), .string("x"), .integer(3)])])
        #expect(Self.path(decoding: bytes) == ["$objects[3]", "tags", "Index 1"])
    }

    @Test func anObjectElementOfTheWrongClassNamesItsIndex() {
        let bytes = Self.archive(["friends": .array([.uid(ArchiveUID(3)), .uid(ArchiveUID(4))])])
        #expect(Self.path(decoding: bytes) == ["$objects[3]", "friends", "Index 1"])
    }

    @Test func anObjectFieldOfTheWrongClassNamesItsKey() {
        let bytes = Self.archive(["best": .uid(ArchiveUID(4))])
        #expect(Self.path(decoding: bytes) == ["$objects[3]", "best"])
    }

    /// A Codable class instance referenced twice: the second reference, a shared instance decoded already,
    /// into a property of an unrelated class.
    @Test func aSharedInstanceOfTheWrongClassNamesItsIndex() throws {
        final class Leaf: Codable { var n = 1 }
        final class OtherLeaf: Codable { var n = 1 }
        struct Pair: Encodable { var first: Leaf; var second: [Leaf] }
        struct WrongPair: Decodable { var first: Leaf; var second: [OtherLeaf] }
        let leaf = Leaf()
        let bytes = try KeyedArchiveEncoder().encodeBytes(Pair(first: leaf, second: [Leaf(), leaf]))
        let error = #expect(throws: DecodingError.self) { try KeyedArchiveDecoder().decode(WrongPair.self, from: bytes) }
        guard case .typeMismatch(_, let context)? = error else {
            Issue.record("expected typeMismatch, got \(String(describing: error))")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["second", "Index 1"])
    }

    @Test func aNestedListElementNamesBothIndexes() throws {
        struct Grid: Decodable { var rows: [[Int]] }
        /// `rows` of `[[1, 2], [3, "x"]]`.
        struct MixedGrid: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: AutoCodingKey.self)
                var rows = container.nestedUnkeyedContainer(forKey: AutoCodingKey("rows"))
                var first = rows.nestedUnkeyedContainer()
                try first.encode(1)
                try first.encode(2)
                var second = rows.nestedUnkeyedContainer()
                try second.encode(3)
                try second.encode("x")
            }
        }
        let bytes = try KeyedArchiveEncoder().encodeBytes(MixedGrid())
        let error = #expect(throws: DecodingError.self) { try KeyedArchiveDecoder().decode(Grid.self, from: bytes) }
        guard case .typeMismatch(_, let context)? = error else {
            Issue.record("expected typeMismatch, got \(String(describing: error))")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["rows", "Index 1", "Index 1"])
    }

    /// A path keeps what each key is: a field's name, an element's index, and both for a key that has both
    /// (here an integer-backed `CodingKeys` case).
    @Test func pathKeysKeepTheirNamesAndIndexes() throws {
        struct Numbered: Encodable { var value = "x" }
        struct NumberedInt: Decodable {
            var value: Int
            enum CodingKeys: Int, CodingKey { case value = 7 }
        }
        let bytes = try KeyedArchiveEncoder().encodeBytes([Numbered()])
        let error = #expect(throws: DecodingError.self) { try KeyedArchiveDecoder().decode([NumberedInt].self, from: bytes) }
        guard case .typeMismatch(_, let context)? = error else {
            Issue.record("expected typeMismatch, got \(String(describing: error))")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["Index 0", "value"])
        #expect(context.codingPath.map(\.intValue) == [0, 7])
        #expect(ArchiveCodingKey("name").intValue == nil)
        #expect(ArchiveCodingKey(intValue: .min).intValue == .min)
        // An existential's inline buffer is three words: a larger key is a second allocation per path node.
        #expect(MemoryLayout<ArchiveCodingKey>.size <= 3 * MemoryLayout<Int>.size)
    }
}
