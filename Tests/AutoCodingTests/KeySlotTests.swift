import AutoCoding
import Foundation
import OrderedCollections
import Testing

/// Field reads find a key at the slot where the previous object of the class had it (by the key string's object
/// number), or map an object's keys in one pass when its writer repeats key strings and orders them by hash
/// (swift-corelibs-foundation). These archives make the remembered slot wrong in every way it can be.
@Suite("Key slots per class")
struct KeySlotTests {
    @Test func corelibsObjectsWithTheirKeysInHashOrderDecode() throws {
        let data = try NSKeyedArchiver.archivedData(
            withRootObject: NSArray(array: (0..<40).map(CorelibsKeySlotSample.init)), requiringSecureCoding: false)
        var decoder = KeyedArchiveDecoder()
        decoder.setClass(KeySlotSample.self, forClassName: NSStringFromClass(CorelibsKeySlotSample.self))
        let samples = try decoder.decode([KeySlotSample].self, from: data)
        #expect(samples.map(\.name) == (0..<40).map { "s\($0)" })
        #expect(samples.map(\.count) == Array(0..<40))
        #expect(samples.map(\.small) == (0..<40).map { Int8($0 % 100) })
        #expect(samples.map(\.ratio) == (0..<40).map { Double($0) / 2 })
        #expect(samples.map(\.flag) == (0..<40).map { $0 % 2 == 0 })
        #expect(samples.map(\.note) == (0..<40).map { $0 % 3 == 0 ? "n\($0)" : nil })
        #expect(samples.allSatisfy { $0.size == 0 })
    }

    /// `$objects` of samples whose entries are given per object, in the order given.
    static func archive(_ samples: [[(String, ArchiveValue)]]) -> [UInt8] {
        var objects: [ArchiveValue] = [
            .string("$null"),
            .dictionary(["$classname": .string("Sample"), "$classes": .array([.string("Sample"), .string("NSObject")])]),
            .dictionary(["$classname": .string("NSArray"), "$classes": .array([.string("NSArray"), .string("NSObject")])]),
        ]
        var elements: [ArchiveValue] = []
        for fields in samples {
            elements.append(.uid(ArchiveUID(UInt32(objects.count))))
            objects.append(.dictionary(OrderedDictionary(uniqueKeysWithValues: fields + [("$class", .uid(ArchiveUID(1)))])))
        }
        objects.append(.dictionary(["NS.objects": .array(elements), "$class": .uid(ArchiveUID(2))]))
        return KeyedArchive(top: ["root": .uid(ArchiveUID(UInt32(objects.count - 1)))], objects: objects).binaryPlist()
    }

    @Test func objectsOfOneClassWithDifferentKeysDecode() throws {
        let bytes = Self.archive([
            [("name", .string("a")), ("count", .integer(1)), ("größe", .integer(7))],
            // The same keys in another order, one more, one missing.
            [("count", .integer(2)), ("flag", .bool(true)), ("name", .string("b"))],
            [("ratio", .real(0.5)), ("name", .string("c"))],
            [("größe", .integer(9)), ("note", .string("x")), ("count", .integer(4)), ("name", .string("d"))],
            [],
        ])
        let samples = try KeyedArchiveDecoder().decode([KeySlotSample].self, from: bytes)
        #expect(samples.map(\.name) == ["a", "b", "c", "d", ""])
        #expect(samples.map(\.count) == [1, 2, 0, 4, 0])
        #expect(samples.map(\.size) == [7, 0, 0, 9, 0])
        #expect(samples.map(\.flag) == [false, true, false, false, false])
        #expect(samples.map(\.ratio) == [0, 0, 0.5, 0, 0])
        #expect(samples.map(\.note) == [nil, nil, nil, "x", nil])
    }

    /// Each object with a class descriptor of its own: past 4,096 classes fields are found by scanning.
    @Test func objectsBeyondTheClassesWithSlotsDecode() throws {
        var objects: [ArchiveValue] = [
            .string("$null"),
            .dictionary(["$classname": .string("NSArray"), "$classes": .array([.string("NSArray"), .string("NSObject")])]),
        ]
        var elements: [ArchiveValue] = []
        for i in 0..<4_200 {
            objects.append(
                .dictionary(["$classname": .string("Sample"), "$classes": .array([.string("Sample"), .string("NSObject")])]))
            elements.append(.uid(ArchiveUID(UInt32(objects.count))))
            objects.append(.dictionary([
                "count": .integer(Int64(i)), "name": .string("s\(i)"), "$class": .uid(ArchiveUID(UInt32(objects.count - 1))),
            ]))
        }
        objects.append(.dictionary(["NS.objects": .array(elements), "$class": .uid(ArchiveUID(1))]))
        let bytes = KeyedArchive(top: ["root": .uid(ArchiveUID(UInt32(objects.count - 1)))], objects: objects).binaryPlist()
        let samples = try KeyedArchiveDecoder().decode([KeySlotSample].self, from: bytes)
        #expect(samples.map(\.count) == Array(0..<4_200))
        #expect(samples.map(\.name) == (0..<4_200).map { "s\($0)" })
    }

    /// Keys of every length the short-key check reads in two words (1 to 14 bytes) and past it, and two keys of
    /// one signature (length, first, middle and last byte), each object listing them in another order.
    @Test func keysOfEveryLengthAndOfOneSignatureMapToTheirSlots() throws {
        let keys = KeyLengthSample.keys
        let bytes = Self.archive((0..<keys.count).map { shift in
            let order = keys.indices.map { keys[($0 + shift) % keys.count] }
            return order.map { key in (key, ArchiveValue.integer(Int64(shift * 100 + keys.firstIndex(of: key)!))) }
        })
        let samples = try KeyedArchiveDecoder().decode([KeyLengthSample].self, from: bytes)
        #expect(samples.count == keys.count)
        for (shift, sample) in samples.enumerated() {
            #expect(sample.values == keys.indices.map { shift * 100 + $0 })
        }
    }

    /// A key is checked as its dictionary is first reached: a byte above 0x7F in an ASCII key is refused there,
    /// with the parser's message, on the short-key path as on the general one.
    @Test func aKeyWithAByteAbove0x7FIsRefused() {
        for key in ["count", "a-key-longer-than-fourteen"] {
            var bytes = Self.archive([[("name", .string("a")), (key, .integer(1))]])
            let length = UInt8(key.utf8.count)
            let marker: [UInt8] = length < 15 ? [0x50 | length] : [0x5F, 0x10, length]
            let pattern = marker + Array(key.utf8)
            guard let at = (0...(bytes.count - pattern.count)).first(where: {
                Array(bytes[$0..<$0 + pattern.count]) == pattern
            }) else {
                Issue.record("no \(key) in the archive")
                continue
            }
            bytes[at + marker.count + 1] = 0xEF
            let message = decodingError { _ = try KeyedArchiveDecoder().decode([KeySlotSample].self, from: bytes) }
            #expect(message?.contains("ASCII string has a byte above 0x7F") == true, "\(key): \(message ?? "nil")")
        }
    }

    @Test func aScalarOfTheWrongTypeNamesTheClassAndTheKey() {
        let bytes = Self.archive([[("name", .string("a"))], [("count", .string("two"))]])
        let message = decodingError { _ = try KeyedArchiveDecoder().decode([KeySlotSample].self, from: bytes) }
        #expect(message == "DecodingError.typeMismatch: expected value of type Int. Path: $objects[4].count. Debug "
            + "description: KeySlotSample.count: Expected Int but found a asciiString instead.")
    }
}

/// An `@AutoCoding` model of the scalar types that read without the generic dispatch.
@AutoCoding
final class KeySlotSample: ArchiveCodable {
    static var archiveClassName: String { "Sample" }
    var name = ""
    var count = 0
    var small: Int8 = 0
    var ratio = 0.0
    var flag = false
    var note: String?
    @ArchiveKey("größe") var size = 0
}

/// Keys of 1, 7, 8, 9, 14, 15 and 16 bytes, and two of one signature ("aXbYc", "aZbYc").
@AutoCoding
final class KeyLengthSample: ArchiveCodable {
    static var archiveClassName: String { "Sample" }
    static let keys = ["a", "abcdefg", "abcdefgh", "abcdefghi", "abcdefghijklmn", "abcdefghijklmno", "abcdefghijklmnop",
                       "aXbYc", "aZbYc"]
    @ArchiveKey("a") var one = 0
    @ArchiveKey("abcdefg") var seven = 0
    @ArchiveKey("abcdefgh") var eight = 0
    @ArchiveKey("abcdefghi") var nine = 0
    @ArchiveKey("abcdefghijklmn") var fourteen = 0
    @ArchiveKey("abcdefghijklmno") var fifteen = 0
    @ArchiveKey("abcdefghijklmnop") var sixteen = 0
    @ArchiveKey("aXbYc") var first = 0
    @ArchiveKey("aZbYc") var second = 0
    var values: [Int] { [one, seven, eight, nine, fourteen, fifteen, sixteen, first, second] }
}

/// corelibs' `NSKeyedArchiver` of the same fields: every object repeats its key strings, in hash order.
final class CorelibsKeySlotSample: NSObject, NSCoding {
    let index: Int
    init(_ index: Int) { self.index = index }
    func encode(with coder: NSCoder) {
        coder.encode("s\(index)", forKey: "name")
        coder.encode(index, forKey: "count")
        coder.encode(index % 100, forKey: "small")
        coder.encode(Double(index) / 2, forKey: "ratio")
        coder.encode(index % 2 == 0, forKey: "flag")
        if index % 3 == 0 { coder.encode("n\(index)" as NSString, forKey: "note") }
    }
    required init?(coder: NSCoder) { nil }
}
