import AutoCoding
import Foundation
import OrderedCollections
import Testing

/// `[String]` and `[String]?` properties, read without the generic dispatch per element.
@AutoCoding final class StringListSample {
    var tags: [String] = []
    var maybe: [String]?
}

/// The same fields through the generic list decode (an ordered set is decoded as an array, then deduplicated).
@AutoCoding final class StringSetSample {
    var tags: OrderedSet<String> = []
    var maybe: OrderedSet<String>?
}

/// A `[String]` field of an `@AutoCoding` model is read by its own overload (``AutoCodingSupport``'s
/// `decode(_:from:keys:in:)` for `[String]`): the values and the errors must be the generic decode's, which
/// `StringSetSample` still takes.
@Suite("String lists read by their own overload")
struct StringListReadTests {
    /// A root `StringListSample` (entry 3) with `fields`; entry 4 is an `NSArray` of "a" and "b", entry 5 an
    /// `NSMutableString` of "m", entry 6 an `NSNull`.
    static func archive(_ fields: [String: ArchiveValue]) -> [UInt8] {
        func descriptor(_ name: String) -> ArchiveValue { ArchiveClass(name: name, chain: [name, "NSObject"]).descriptor }
        let sample = fields.merging(["$class": .uid(ArchiveUID(1))]) { field, _ in field }
        let objects: [ArchiveValue] = [
            .string("$null"), descriptor("Sample"), descriptor("NSArray"),
            .dictionary(.init(uniqueKeysWithValues: sample.sorted { $0.key < $1.key })),
            .dictionary(["NS.objects": .array([.string("a"), .string("b")]), "$class": .uid(ArchiveUID(2))]),
            .dictionary(["NS.string": .string("m"), "$class": .uid(ArchiveUID(7))]),
            .dictionary(["$class": .uid(ArchiveUID(8))]),
            descriptor("NSMutableString"), descriptor("NSNull"),
        ]
        return KeyedArchive(top: ["root": .uid(ArchiveUID(3))], objects: objects).binaryPlist()
    }

    static func decode<T: Decodable>(_ type: T.Type, _ bytes: [UInt8]) throws -> T {
        var decoder = KeyedArchiveDecoder()
        decoder.setClass(T.self, forClassName: "Sample")
        return try decoder.decode(T.self, from: bytes)
    }

    @Test func valuesAreTheGenericDecodes() throws {
        let cases: [[String: ArchiveValue]] = [
            ["tags": .array([.string("x"), .string("y")])],
            ["tags": .uid(ArchiveUID(4)), "maybe": .uid(ArchiveUID(4))],
            ["tags": .array([.uid(ArchiveUID(5)), .string("ü"), .string(String(repeating: "long ", count: 9))])],
            ["maybe": .uid(ArchiveUID(0))],
            ["maybe": .uid(ArchiveUID(6))],
            ["maybe": .array([])],
            [:],
        ]
        for fields in cases {
            let bytes = Self.archive(fields)
            let list = try Self.decode(StringListSample.self, bytes)
            let set = try Self.decode(StringSetSample.self, bytes)
            #expect(list.tags == Array(set.tags), "\(fields)")
            #expect(list.maybe == set.maybe.map(Array.init), "\(fields)")
        }
        let read = try Self.decode(StringListSample.self, Self.archive(["tags": .uid(ArchiveUID(4)), "maybe": .array([])]))
        #expect(read.tags == ["a", "b"])
        #expect(read.maybe == [])
    }

    @Test func errorsAreTheGenericDecodes() throws {
        let cases: [(fields: [String: ArchiveValue], path: String)] = [
            (["tags": .array([.string("a"), .integer(2)])], "Path: $objects[3].tags[1]."),
            (["tags": .string("a")], "Path: $objects[3].tags."),
            (["tags": .uid(ArchiveUID(0))], "Path: $objects[3].tags."),
            (["tags": .array([.uid(ArchiveUID(0))])], "Path: $objects[3].tags[0]."),
            (["tags": .array([.uid(ArchiveUID(6))])], "Path: $objects[3].tags[0]."),
            (["maybe": .array([.string("a"), .real(1)])], "Path: $objects[3].maybe[1]."),
            (["maybe": .uid(ArchiveUID(5))], "Path: $objects[3].maybe."),
            (["tags": .array([.uid(ArchiveUID(99))])], "not a valid keyed archive"),
        ]
        for (fields, path) in cases {
            let bytes = Self.archive(fields)
            let list = decodingError { _ = try Self.decode(StringListSample.self, bytes) }
            let set = decodingError { _ = try Self.decode(StringSetSample.self, bytes) }
            #expect(list != nil, "\(fields)")
            #expect(list?.contains(path) == true, "\(fields): \(list ?? "no error")")
            // The expected type is the list's own in a list error and String in an element's.
            #expect(list == set?.replacingOccurrences(of: "StringSetSample", with: "StringListSample")
                .replacingOccurrences(of: "OrderedSet<String>", with: "Array<String>"), "\(fields)")
        }
    }
}
