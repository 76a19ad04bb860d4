import AutoCoding
import Foundation
import Testing

@AutoCoding
class SubclassAnimal {
    var name = ""
    var friends: [SubclassAnimal] = []
}

@AutoCoding
final class SubclassDog: SubclassAnimal {
    var legs = 4
    weak var owner: SubclassAnimal?
}

@AutoCoding(identityEquality: true)
class SubclassPlant {
    var height = 0.0
}

/// A subclass without the macro, with a stored property of its own: refused when encoded.
final class SubclassTree: SubclassPlant {
    var rings = 0
}

/// A subclass without the macro or stored properties: it inherits the superclass's coding.
final class SubclassShrub: SubclassPlant {
    var isEvergreen: Bool { true }
}

@Suite("subclasses of @AutoCoding classes")
struct AutoCodingSubclassTests {
    static let dogName = String(reflecting: SubclassDog.self)
    static let animalName = String(reflecting: SubclassAnimal.self)

    /// A cat whose friends are a dog (owned by the cat) and the cat itself.
    static func household() -> SubclassAnimal {
        let cat = SubclassAnimal()
        cat.name = "cat"
        let dog = SubclassDog()
        dog.name = "rex"
        dog.legs = 3
        dog.owner = cat
        cat.friends = [dog, cat]
        return cat
    }

    @Test func archivesSuperclassPropertiesFirstWithTheClassChain() throws {
        let graph = try ArchiveGraph(bytes: [UInt8](KeyedArchiver.archivedData(withRootObject: Self.household())))
        guard case .array(let friends)? = graph.root?.object?["friends"]?.object?["NS.objects"], let dog = friends.first?.object
        else { throw AutoCodingSubclassFailure("no friends array: \(String(describing: graph.root))") }
        #expect(dog.archiveClass == ArchiveClass(name: Self.dogName, chain: [Self.dogName, Self.animalName, "NSObject"]))
        #expect(Array(dog.fields.keys) == ["name", "friends", "legs", "owner"])
        #expect(SubclassDog.codableProperties.map(\.name) == ["legs", "owner"])
        #expect(SubclassDog().codableProperties.map(\.name) == ["name", "friends", "legs", "owner"])
    }

    @Test func aRegisteredSubclassDecodesAsItselfWithIdentity() throws {
        var decoder = KeyedArchiveDecoder()
        decoder.registry = ArchiveClassRegistry()
        decoder.registry.register(SubclassDog.self, forClassName: Self.dogName)
        let data = try KeyedArchiver.archivedData(withRootObject: Self.household())
        let cat = try decoder.decode(SubclassAnimal.self, from: data)
        let dog = try #require(cat.friends.first as? SubclassDog)
        #expect(dog.name == "rex" && dog.legs == 3)
        #expect(dog.owner === cat)
        #expect(cat.friends[1] === cat)
        #expect(cat == Self.household())
        #expect(dog != SubclassDog())
    }

    @Test func anUnregisteredSubclassDecodesAsTheSuperclass() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: Self.household())
        var decoder = KeyedArchiveDecoder()
        decoder.registry = ArchiveClassRegistry()
        let cat = try decoder.decode(SubclassAnimal.self, from: data)
        #expect(type(of: cat.friends[0]) == SubclassAnimal.self)
        #expect(cat.friends[0].name == "rex")
    }

    /// Its own stored property would be silently cut: encoding refuses it, naming the property.
    @Test func aSubclassWithoutTheMacroWithStoredPropertiesIsRefused() throws {
        let tree = SubclassTree()
        tree.height = 12
        tree.rings = 40
        do {
            _ = try KeyedArchiver.archivedData(withRootObject: tree)
            Issue.record("rings was silently left out")
        } catch let error as EncodingError {
            #expect("\(error)".contains("SubclassTree.rings"))
        }
        #expect(tree == tree && tree != SubclassTree())  // identity equality, inherited
    }

    /// Without stored properties of its own, it codes its superclass's properties.
    @Test func aSubclassWithoutTheMacroOrStoredPropertiesCodesItsSuperclassProperties() throws {
        let shrub = SubclassShrub()
        shrub.height = 2
        let graph = try ArchiveGraph(bytes: [UInt8](KeyedArchiver.archivedData(withRootObject: shrub)))
        #expect(graph.root?.object.map { Array($0.fields.keys) } == ["height"])
    }

    /// A list element that refers to an instance decoded already is taken by its UID alone when the list's
    /// element type is exactly the instance's class, and goes through the full decode otherwise: a subclass
    /// instance still comes back as itself, and an instance of an unrelated class is a type mismatch.
    @Test func listElementsDecodedAlreadyKeepTheirIdentityAndTheirChecks() throws {
        let cat = SubclassAnimal()
        let dog = SubclassDog()
        dog.owner = cat
        cat.friends = [dog, dog, cat, cat]
        var decoder = KeyedArchiveDecoder()
        decoder.registry = ArchiveClassRegistry()
        decoder.registry.register(SubclassDog.self, forClassName: Self.dogName)
        let back = try decoder.decode(SubclassAnimal.self, from: KeyedArchiver.archivedData(withRootObject: cat))
        #expect(back.friends.count == 4)
        #expect(back.friends[0] is SubclassDog && back.friends[0] === back.friends[1])
        #expect(back.friends[2] === back && back.friends[3] === back)

        let plant = CodablePlant()
        let bytes = try KeyedArchiveEncoder().encodeBytes(PlantsHolder(first: plant, others: [plant, plant]))
        let plants = try KeyedArchiveDecoder().decode(PlantsHolder.self, from: bytes)
        #expect(plants.others.count == 2 && plants.others.allSatisfy { $0 === plants.first })
        #expect(throws: DecodingError.self) { try KeyedArchiveDecoder().decode(AnimalsHolder.self, from: bytes) }
    }
}

/// A plant and a list referring to it twice (Codable classes, which lists share by reference), and the same keys
/// read as animals.
private final class CodablePlant: Codable {}
private final class CodableAnimal: Codable {}

private struct PlantsHolder: Codable {
    var first: CodablePlant
    var others: [CodablePlant]
}

private struct AnimalsHolder: Codable {
    var first: CodablePlant
    var others: [CodableAnimal]
}

private struct AutoCodingSubclassFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
