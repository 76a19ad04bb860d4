import AutoCoding
import AutoCodingFast
import Foundation
import Testing

/// Types with neither `@AutoCoding` nor `Codable`: archived through `Mirror`.
private enum Plain {
    enum Mood { case calm, busy }
    enum Shape { case circle(radius: Double), label(String) }

    struct Address {
        var city: String
        var zip: Int
    }

    final class Link {
        var value: Int
        var next: Link?
        init(value: Int) { self.value = value }
    }

    class Base {
        var id = 7
    }

    final class Member: Base {
        var name: String
        var address: Address
        var birthday = Date(timeIntervalSinceReferenceDate: 1_000)
        var tags: Set<String> = ["a"]
        var scores: [String: Double] = ["x": 1.5]
        var mood = Mood.busy
        var shape = Shape.circle(radius: 2)
        var nickname: String?
        var friends: [Member] = []
        weak var best: Member?
        lazy var cached = name.count

        init(name: String, city: String) {
            self.name = name
            address = Address(city: city, zip: 10_000)
        }
    }
}

/// The same shape with `@AutoCoding`, to read a reflected archive back into a model.
@AutoCoding
final class ReflectedMember {
    var name = ""
    var id = 0
    var friends: [ReflectedMember] = []
    weak var best: ReflectedMember?
}

@Suite("Reflection fallback (Mirror, encode only)")
struct ReflectionTests {
    @Test func plainClassesArchiveWithSharingCyclesAndFoundationForms() throws {
        let ann = Plain.Member(name: "Ann", city: "Oslo")
        let bob = Plain.Member(name: "Bob", city: "Lima")
        ann.friends = [bob, bob]
        bob.friends = [ann]
        ann.best = bob
        bob.best = ann
        _ = ann.cached  // lazy storage is not archived, filled or not

        let data = try KeyedArchiver.archivedData(withRootObject: ann)
        let graph = try ArchiveGraph(bytes: [UInt8](data))
        let root = try #require(graph.root?.object)
        #expect(root.className.hasSuffix("Plain.Member"))
        #expect(root.archiveClass.chain.count == 3)  // Member, Base, NSObject
        #expect(root["name"]?.string == "Ann")
        #expect(root["id"]?.int == 7)
        #expect(root["cached"] == nil && root["$__lazy_storage_$_cached"] == nil)
        #expect(root["nickname"] == nil)
        #expect(root["address"]?.object?["city"]?.string == "Oslo")
        #expect(root["address"]?.object?["zip"]?.int == 10_000)
        #expect(root["birthday"]?.object?.className == "NSDate")
        #expect(root["birthday"]?.object?["NS.time"]?.double == 1_000)
        #expect(root["tags"]?.object?.className == "NSSet")
        #expect(root["scores"]?.object?["NS.keys"]?.elements?.first?.string == "x")
        #expect(root["mood"]?.string == "busy")
        #expect(root["shape"]?.object?["$case"]?.string == "circle")
        #expect(root["shape"]?.object?["radius"]?.double == 2)

        let friends = try #require(root["friends"]?.object?["NS.objects"]?.elements)
        #expect(friends.count == 2)
        #expect(friends[0].object === friends[1].object)  // one instance, archived once
        let bobObject = try #require(friends[0].object)
        #expect(bobObject["best"]?.object === root)  // the cycle back to the root
        #expect(bobObject["friends"]?.object?["NS.objects"]?.elements?.first?.object === root)
    }

    @Test func reflectedArchiveReadsBackIntoAModelOfTheSameShape() throws {
        let ann = Plain.Member(name: "Ann", city: "Oslo")
        let bob = Plain.Member(name: "Bob", city: "Lima")
        ann.friends = [bob]
        bob.best = ann
        let registry = ArchiveClassRegistry()
        registry.register(className: "Member", for: Plain.Member.self)
        let graph = try ArchiveGraph(reflecting: ann, registry: registry)
        #expect(graph.root?.object?.className == "Member")

        registry.register(ReflectedMember.self, forClassName: "Member")
        var decoder = KeyedArchiveDecoder()
        decoder.registry = registry
        let back = try decoder.decode(ReflectedMember.self, from: graph.binaryPlist())
        #expect(back.name == "Ann" && back.id == 7)
        #expect(back.friends.first?.name == "Bob")
        #expect(back.friends.first?.best === back)
    }

    @Test func longChainsReflectWithoutRecursion() throws {
        let chain = (0..<20_000).map { Plain.Link(value: $0) }
        for (link, next) in zip(chain, chain.dropFirst()) { link.next = next }
        // Unlinked before release: the chain's own release would recurse once per link.
        defer { for link in chain { link.next = nil } }
        let graph = try ArchiveGraph(reflecting: chain[0])
        let back = try ArchiveGraph(bytes: graph.binaryPlist())
        #expect(back.isEquivalent(to: graph))
        #expect(back.root?.object?["next"]?.object?["value"]?.int == 1)
    }

    @Test func deepValueNestingIsAnErrorNotACrash() throws {
        var nested: Any = 0
        for _ in 0..<600 { nested = [nested] }
        #expect(throws: ArchiveError.self) { try ArchiveGraph(reflecting: nested) }
        #expect(throws: EncodingError.self) { try KeyedArchiver.archivedData(withRootObject: nested) }
    }
}
