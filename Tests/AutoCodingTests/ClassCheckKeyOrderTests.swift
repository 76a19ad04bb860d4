import AutoCoding
import Foundation
import OrderedCollections
import Testing

/// The class check finds `$class` by the object number of the key seen before, at the slot seen before or last
/// (where this package writes it). These archives put it elsewhere, so the lookup has to fall back to a scan.
@Suite("Class checks wherever $class sits in an object")
struct ClassCheckKeyOrderTests {
    /// `$objects`: people (and a cat) whose `$class` key is first, last or in the middle.
    static func archive(classSlots: [Int], catAt: Int?, padding: Int = 0, catFirstAt: Int? = nil) -> [UInt8] {
        let person = String(reflecting: ParityPerson.self)
        var objects: [ArchiveValue] = [
            .string("$null"),
            .dictionary(["$classname": .string(person), "$classes": .array([.string(person), .string("NSObject")])]),
            .dictionary(["$classname": .string("Cat"), "$classes": .array([.string("Cat"), .string("NSObject")])]),
            .dictionary(["$classname": .string("NSArray"), "$classes": .array([.string("NSArray"), .string("NSObject")])]),
        ]
        var elements: [ArchiveValue] = []
        for (i, slot) in classSlots.enumerated() {
            var fields: [(String, ArchiveValue)] = [("name", .uid(ArchiveUID(UInt32(objects.count + 1)))), ("best", .uid(.null))]
            fields.insert(("$class", .uid(ArchiveUID(i == catAt ? 2 : 1))), at: slot)
            // Keys before the rest, and a `$clasZ` after `$class` naming the other class (see below).
            fields.insert(contentsOf: (0..<padding).map { ("pad\($0)", .integer(Int64($0))) }, at: 0)
            if i == catFirstAt { fields.append(("$clasZ", .uid(ArchiveUID(1)))) }
            elements.append(.uid(ArchiveUID(UInt32(objects.count))))
            objects.append(.dictionary(OrderedDictionary(uniqueKeysWithValues: fields)))
            objects.append(.string("p\(i)"))
        }
        objects.append(.dictionary(["NS.objects": .array(elements), "$class": .uid(ArchiveUID(3))]))
        let root = ArchiveUID(UInt32(objects.count - 1))
        return KeyedArchive(top: ["root": .uid(root)], objects: objects).binaryPlist()
    }

    @Test func peopleWithTheirClassKeyAnywhereDecode() throws {
        let bytes = Self.archive(classSlots: [2, 0, 1, 2, 0], catAt: nil)
        let people = try KeyedArchiveDecoder().decode([ParityPerson].self, from: bytes)
        #expect(people.map(\.name) == ["p0", "p1", "p2", "p3", "p4"])
    }

    @Test func aCatAmongThemIsRefusedWhereverItsClassKeySits() {
        for catAt in 0..<4 {
            let bytes = Self.archive(classSlots: [2, 0, 1, 2], catAt: catAt)
            let message = decodingError { _ = try KeyedArchiveDecoder().decode([ParityPerson].self, from: bytes) }
            #expect(message == "DecodingError.typeMismatch: expected value of type ParityPerson. Path: [\(catAt)]. Debug "
                + "description: Expected ParityPerson but found an instance of Cat (class chain Cat, NSObject), which is "
                + "not a kind of AutoCodingTests.ParityPerson instead.")
        }
    }

    /// A reader finds `$class` at the slot the object's first touch recorded; past the slots it records (62), and
    /// wherever it is not recorded, it looks the key up. Both find the same key.
    @Test func aClassKeyPastTheRecordedSlotsIsFound() throws {
        for padding in [59, 60, 61, 62, 70] {
            let bytes = Self.archive(classSlots: [2, 0, 1], catAt: nil, padding: padding)
            let people = try KeyedArchiveDecoder().decode([ParityPerson].self, from: bytes)
            #expect(people.map(\.name) == ["p0", "p1", "p2"], "padding \(padding)")
            // The whole-file view records the slot too: a decode of it and the graph find the class.
            let view = try KeyedArchiveView(bytes: bytes)
            #expect(try KeyedArchiveDecoder().decode([ParityPerson].self, from: view).map(\.name) == ["p0", "p1", "p2"])
            let graph = try ArchiveGraph(bytes: bytes)
            guard case .array(let elements)? = graph.root?.object?["NS.objects"] else {
                Issue.record("no NS.objects, padding \(padding)")
                continue
            }
            let classes = elements.compactMap { $0.object?.archiveClass.name }
            #expect(classes == Array(repeating: String(reflecting: ParityPerson.self), count: 3), "padding \(padding)")
            let cat = Self.archive(classSlots: [2, 0, 1], catAt: 1, padding: padding)
            #expect(throws: DecodingError.self, "padding \(padding)") {
                try KeyedArchiveDecoder().decode([ParityPerson].self, from: cat)
            }
            #expect(throws: DecodingError.self, "padding \(padding)") {
                try KeyedArchiveDecoder().decode([ParityPerson].self, from: KeyedArchiveView(bytes: cat))
            }
        }
    }

    /// An object holding `$class` twice is read by its first, as every lookup reads a key held twice: here a cat
    /// whose second `$class` (written as `$clasZ`, then patched: a dictionary value cannot hold a key twice) names
    /// a person. Recorded at its first touch (no padding) or looked up (past the recorded slots), the cat is found.
    @Test func theFirstOfTwoClassKeysIsTheClass() throws {
        for padding in [0, 70] {
            var bytes = Self.archive(classSlots: [2, 0, 1, 2], catAt: 2, padding: padding, catFirstAt: 2)
            let key: [UInt8] = [0x56] + Array("$clasZ".utf8)
            let at = try #require((0...(bytes.count - key.count)).first { bytes[$0..<$0 + key.count].elementsEqual(key) })
            bytes[at + 6] = UInt8(ascii: "s")
            let message = decodingError { _ = try KeyedArchiveDecoder().decode([ParityPerson].self, from: bytes) }
            #expect(message?.contains("found an instance of Cat") == true, "\(message ?? "no error")")
        }
    }
}
