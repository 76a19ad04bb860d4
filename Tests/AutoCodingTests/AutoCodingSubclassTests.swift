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

/// A subclass without the macro: it inherits the superclass's coding.
final class SubclassTree: SubclassPlant {
    var rings = 0
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

    @Test func aSubclassWithoutTheMacroCodesItsSuperclassProperties() throws {
        let tree = SubclassTree()
        tree.height = 12
        tree.rings = 40
        let graph = try ArchiveGraph(bytes: [UInt8](KeyedArchiver.archivedData(withRootObject: tree)))
        #expect(graph.root?.object.map { Array($0.fields.keys) } == ["height"])
        #expect(tree == tree && tree != SubclassTree())  // identity equality, inherited
    }
}

private struct AutoCodingSubclassFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
