import AutoCoding
import Foundation
import Testing

/// The example from the issue, as written.
enum Example {
    @AutoCoding
    final class Person {
        var name = ""
        var age = 0
        var friends: [Person] = []
        weak var best: Person?
        @Uncodable var cache: [String: Int] = [:]
    }
}

@AutoCoding
class Animal {
    var name = ""
    @ArchiveKey("legs", "_legs", "legCount") var legCount = 4
}

@AutoCoding
final class Owner {
    var name = ""
    var pets: [Animal] = []
    var nickname: String?
    weak var favourite: Animal?
}

@AutoCoding(identityEquality: true)
final class Managed {
    var title = ""
}

@AutoCoding
struct Point {
    var x = 0.0
    var y = 0.0
    let label: String
}

/// Hooks: extra keys on top of the automatic ones, calls around decoding, and substitution.
@AutoCoding
final class Hooked {
    var value = 0
    @Uncodable var extra = ""
    @Uncodable var log: [String] = []

    func autoCodingDidEncode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AutoCodingKey.self)
        try container.encode("manual", forKey: AutoCodingKey("extra"))
    }
    func autoCodingWillDecode(from decoder: any Decoder) throws { log.append("will") }
    func autoCodingDidDecode(from decoder: any Decoder) throws {
        log.append("did")
        extra = try decoder.container(keyedBy: AutoCodingKey.self).decode(String.self, forKey: AutoCodingKey("extra"))
    }
}

@Suite("@AutoCoding model coding")
struct AutoCodingModelTests {
    // MARK: The issue's example

    @Test func tenThousandPeopleWithFriendsAndBestCyclesRoundTripWithIdentity() throws {
        let people = (0..<10_000).map { i -> Example.Person in
            let p = Example.Person()
            p.name = "Person \(i)"
            p.age = i % 90
            p.cache = ["ignored": i]
            return p
        }
        for (i, person) in people.enumerated() {
            person.friends = [people[(i + 1) % people.count], people[(i * 7) % people.count]]
            person.best = people[(i + 9_999) % people.count]  // the previous person: a cycle through everyone
        }
        let data = try KeyedArchiver.archivedData(withRootObject: people)
        let back = try #require(try KeyedUnarchiver.unarchivedObject(ofType: [Example.Person].self, from: data))
        #expect(back.count == 10_000)
        for i in [0, 1, 4_321, 9_999] {
            #expect(back[i].name == "Person \(i)")
            #expect(back[i].friends[0] === back[(i + 1) % 10_000])
            #expect(back[i].best === back[(i + 9_999) % 10_000])
            #expect(back[i].cache.isEmpty)
        }
        #expect(back[5].friends[0].best === back[5])  // a.friends[0].best === a
    }

    @Test func selfReferenceComesBackAsTheSameInstance() throws {
        let narcissus = Example.Person()
        narcissus.friends = [narcissus]
        narcissus.best = narcissus
        let back = try KeyedArchiveDecoder().decode(Example.Person.self, from: KeyedArchiveEncoder().encode(narcissus))
        #expect(back.friends[0] === back && back.best === back)
    }

    @Test func longChainsDecodeWithoutRecursion() throws {
        var head = Example.Person()
        for i in 0..<50_000 {
            let next = Example.Person()
            next.age = i
            next.friends = [head]
            head = next
        }
        let back = try KeyedArchiveDecoder().decode(Example.Person.self, from: KeyedArchiveEncoder().encode(head))
        #expect(unlinkChain(back) == 50_000)
        // Swift releases nested objects recursively: take both chains apart link by link.
        _ = unlinkChain(head)
    }

    /// Follows `friends[0]` to the end, emptying each list on the way; returns the number of links.
    private func unlinkChain(_ start: Example.Person) -> Int {
        var links = 0
        var node = start
        while let next = node.friends.first {
            node.friends = []
            node = next
            links += 1
        }
        return links
    }

    // MARK: Property tables, inheritance, class names

    @Test func propertyTablesListTheArchivedProperties() {
        #expect(Example.Person.codableProperties.map(\.name) == ["name", "age", "friends", "best"])
        #expect(Example.Person.codableProperties[3].type == Optional<Example.Person>.self)
        #expect(Example.Person().codableProperties.map(\.name) == ["name", "age", "friends", "best"])
        #expect(Animal.codableProperties.map(\.name) == ["name", "legCount"])
    }

    @Test func classNamesChainsAndWeakBackReferences() throws {
        let owner = Owner()
        let cat = Animal()
        cat.name = "Tom"
        owner.pets = [cat, Animal()]
        owner.favourite = cat
        let archive = try KeyedArchiveEncoder().encodeArchive(owner)
        let classes = archive.objects.compactMap(ArchiveClass.init(descriptor:))
        #expect(classes.contains(ArchiveClass(name: "AutoCodingTests.Animal", chain: ["AutoCodingTests.Animal", "NSObject"])))
        let back = try KeyedArchiveDecoder().decode(Owner.self, from: archive.binaryPlist())
        #expect(back.favourite === back.pets[0])
        #expect(back.pets[0].name == "Tom")
    }

    // MARK: Keys and migrations

    @Test func renamedKeysAndFallbacksReadOldArchives() throws {
        // An archive written by an older version (or by Objective-C with ivar names) uses `_legs`.
        let archive = KeyedArchive(
            top: ["root": .uid(ArchiveUID(1))],
            objects: [
                .string("$null"),
                .dictionary(["name": .uid(ArchiveUID(3)), "_legs": .integer(3), "$class": .uid(ArchiveUID(2))]),
                .dictionary(["$classname": .string("AutoCodingTests.Animal")]),
                .string("Tripod"),
            ])
        let animal = try KeyedArchiveDecoder().decode(Animal.self, from: archive.binaryPlist())
        #expect(animal.name == "Tripod" && animal.legCount == 3)
        // New archives use the first key.
        let written = try KeyedArchiveEncoder().encodeArchive(animal)
        #expect(written[try #require(written.rootUID)]?["legs"] == .integer(3))
    }

    @Test func anArchiveInTheShapeObjectiveCAutoCodingWritesDecodes() throws {
        // Property-name keys, NSNumber entries for numbers, NSArray for collections, an ObjC class name.
        let archive = KeyedArchive(
            top: ["root": .uid(ArchiveUID(1))],
            objects: [
                .string("$null"),
                .dictionary(["name": .uid(ArchiveUID(3)), "age": .uid(ArchiveUID(4)), "friends": .uid(ArchiveUID(5)),
                             "$class": .uid(ArchiveUID(2))]),
                .dictionary(["$classname": .string("Person"), "$classes": .array([.string("Person"), .string("NSObject")])]),
                .string("Ada"),
                .integer(36),
                .dictionary(["NS.objects": .array([.uid(ArchiveUID(1))]), "$class": .uid(ArchiveUID(6))]),
                .dictionary(["$classname": .string("NSArray"), "$classes": .array([.string("NSArray"), .string("NSObject")])]),
            ])
        var decoder = KeyedArchiveDecoder()
        decoder.setClass(Example.Person.self, forClassName: "Person")
        let ada = try decoder.decode(Example.Person.self, from: archive.binaryPlist())
        #expect(ada.name == "Ada" && ada.age == 36 && ada.friends.first === ada)
    }

    @Test func aValueOfTheWrongTypeNamesClassKeyAndTypes() throws {
        let archive = KeyedArchive(
            top: ["root": .uid(ArchiveUID(1))],
            objects: [
                .string("$null"),
                .dictionary(["name": .integer(5), "$class": .uid(ArchiveUID(2))]),
                .dictionary(["$classname": .string("AutoCodingTests.Animal")]),
            ])
        let error = #expect(throws: DecodingError.self) {
            try KeyedArchiveDecoder().decode(Animal.self, from: archive.binaryPlist())
        }
        let text = String(describing: error)
        #expect(text.contains("Animal.name") && text.contains("String"))
    }

    @Test func nsNullInAnOptionalPropertyIsNil() throws {
        let archive = KeyedArchive(
            top: ["root": .uid(ArchiveUID(1))],
            objects: [
                .string("$null"),
                .dictionary(["nickname": .uid(ArchiveUID(3)), "$class": .uid(ArchiveUID(2))]),
                .dictionary(["$classname": .string("AutoCodingTests.Owner")]),
                .dictionary(["$class": .uid(ArchiveUID(4))]),
                .dictionary(["$classname": .string("NSNull")]),
            ])
        let owner = try KeyedArchiveDecoder().decode(Owner.self, from: archive.binaryPlist())
        #expect(owner.nickname == nil)
    }

    // MARK: The seed API

    @Test func decodingIntoAnExistingInstanceMergesArchives() throws {
        let first = Animal()
        first.name = "Cat"
        let onlyLegs = KeyedArchive(
            top: ["root": .uid(ArchiveUID(1))],
            objects: [.string("$null"), .dictionary(["legs": .integer(3), "$class": .uid(ArchiveUID(2))]),
                      .dictionary(["$classname": .string("AutoCodingTests.Animal")])])
        let target = Animal()
        try target.setValues(fromArchive: KeyedArchiveEncoder().encode(first))
        try target.setValues(fromArchive: Data(onlyLegs.binaryPlist()))
        #expect(target.name == "Cat" && target.legCount == 3)
    }

    @Test func dictionaryRepresentationCopyAndEquality() throws {
        let cat = Animal()
        cat.name = "Tom"
        let dictionary = cat.dictionaryRepresentation
        #expect(dictionary["name"] as? String == "Tom" && dictionary["legCount"] as? Int == 4)

        let copy = try cat.autoCodingCopy()
        #expect(copy !== cat)
        #expect(copy == cat)
        #expect(copy.hashValue == cat.hashValue)
        copy.legCount = 3
        #expect(copy != cat)

        // Equality terminates on cycles.
        let a = Example.Person(), b = Example.Person()
        a.friends = [a]
        b.friends = [b]
        #expect(a == b)
    }

    /// With `identityEquality: true`, equality and hashing follow the instance, not the properties.
    @Test func identityEqualityKeepsIdentitySemantics() {
        let first = Managed(), second = Managed()
        #expect(first == first)
        #expect(first != second)
        #expect(Set([first, second, first]).count == 2)
    }

    @Test func filesRoundTrip() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("autocoding-\(UUID()).archive").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let cat = Animal()
        cat.name = "Felix"
        try cat.write(toFile: path)
        #expect(try Animal.read(contentsOfFile: path).name == "Felix")
    }

    @Test func hooksRunAndAddManualKeys() throws {
        let hooked = Hooked()
        hooked.value = 7
        let back = try KeyedArchiveDecoder().decode(Hooked.self, from: KeyedArchiveEncoder().encode(hooked))
        #expect(back.value == 7 && back.extra == "manual" && back.log == ["will", "did"])
    }

    @Test func structsRoundTripAndRequireTheirNonDefaultProperties() throws {
        let point = Point(x: 1, y: 2, label: "p")
        let back = try KeyedArchiveDecoder().decode(Point.self, from: KeyedArchiveEncoder().encode(point))
        #expect(back.x == 1 && back.y == 2 && back.label == "p")
        #expect(Point.codableProperties.map(\.name) == ["x", "y", "label"])
        let empty = KeyedArchive(
            top: ["root": .uid(ArchiveUID(1))],
            objects: [.string("$null"), .dictionary(["$class": .uid(ArchiveUID(2))]),
                      .dictionary(["$classname": .string("AutoCodingTests.Point")])])
        #expect(throws: DecodingError.self) { try KeyedArchiveDecoder().decode(Point.self, from: empty.binaryPlist()) }
    }

    @Test func theDynamicGraphReadsAnAutoCodingArchive() throws {
        let p = Example.Person()
        p.name = "Grace"
        let graph = try ArchiveGraph(bytes: [UInt8](KeyedArchiveEncoder().encode(p)))
        let object = try #require(graph.root?.object)
        #expect(object.className == "AutoCodingTests.Example.Person")
        #expect(object["name"]?.string == "Grace")
        #expect(object.fields.keys.contains("age"))
    }

    // MARK: Other coders: the generated code falls back to a keyed container

    @Test func modelsDecodeThroughOtherDecodersWithFallbackKeysAndTypeErrors() throws {
        let point = try JSONDecoder().decode(Point.self, from: Data(#"{"x": 1.5, "label": "p"}"#.utf8))
        #expect(point.x == 1.5 && point.y == 0 && point.label == "p")
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Point.self, from: Data(#"{"x": 1}"#.utf8)) }

        let animal = try JSONDecoder().decode(Animal.self, from: Data(#"{"name": "Rex", "_legs": 3}"#.utf8))
        #expect(animal.name == "Rex" && animal.legCount == 3)
        let owner = try JSONDecoder().decode(Owner.self, from: Data(#"{"name": "Ann", "nickname": null}"#.utf8))
        #expect(owner.name == "Ann" && owner.nickname == nil)
        do {
            _ = try JSONDecoder().decode(Animal.self, from: Data(#"{"name": 7}"#.utf8))
            Issue.record("a number decoded as a String")
        } catch let DecodingError.typeMismatch(_, context) {
            #expect(context.debugDescription.contains("Animal.name"))
        }
    }
}
