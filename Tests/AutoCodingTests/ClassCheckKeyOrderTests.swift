import AutoCoding
import Foundation
import OrderedCollections
import Testing

/// The class check finds `$class` by the object number of the key seen before, at the slot seen before or last
/// (where this package writes it). These archives put it elsewhere, so the lookup has to fall back to a scan.
@Suite("Class checks wherever $class sits in an object")
struct ClassCheckKeyOrderTests {
    /// `$objects`: people (and a cat) whose `$class` key is first, last or in the middle.
    static func archive(classSlots: [Int], catAt: Int?) -> [UInt8] {
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
}
