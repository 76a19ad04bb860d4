import AutoCoding
import AutoCodingFast
import Foundation
import Testing

@Suite("Dynamic object graph")
struct ArchiveGraphTests {
    @Test func cyclesKeepIdentityThroughAGraphRoundTrip() throws {
        let parent = ArchivedObject(className: "Node")
        let child = ArchivedObject(className: "Node", fields: ["parent": .object(parent), "n": .inline(.integer(2))])
        parent.fields["children"] = .object(ArchivedObject(className: "NSArray", fields: ["NS.objects": .array([.object(child)])]))
        parent.fields["name"] = .reference(.string("root"))
        let graph = ArchiveGraph(root: .object(parent))
        let back = try ArchiveGraph(bytes: graph.binaryPlist())
        #expect(back.isEquivalent(to: graph))
        let root = try #require(back.root?.object)
        let kid = try #require(root["children"]?.object?["NS.objects"]?.elements?.first?.object)
        #expect(kid["parent"]?.object === root)
        #expect(root["name"]?.string == "root")
    }

    @Test func releasingALongChainOfObjectsDoesNotRecurse() {
        // Regression: the iterative deinit once checked uniqueness while the enum's box still held the object,
        // so every link was released inside the previous link's deinit and a long chain overflowed the stack.
        var head = ArchivedObject(className: "Link")
        for i in 0..<200_000 {
            head = ArchivedObject(className: "Link", fields: ["n": .inline(.integer(Int64(i))), "next": .object(head)])
        }
        let shared = ArchivedObject(className: "Shared")
        head.fields["a"] = .object(shared)
        head.fields["b"] = .array([.object(shared)])
        let survivor = shared
        head = ArchivedObject(className: "Empty")  // releases the chain
        #expect(survivor.className == "Shared")
    }

    @Test func equivalenceNoticesLostSharing() throws {
        let shared = ArchivedObject(className: "X")
        let one = ArchiveGraph(root: .array([.object(shared), .object(shared)]))
        let two = ArchiveGraph(root: .array([.object(ArchivedObject(className: "X")), .object(ArchivedObject(className: "X"))]))
        #expect(!one.isEquivalent(to: two))
        #expect(one.isEquivalent(to: one))
    }

    @Test func codableArchiveDecodesAsAGraph() throws {
        let bytes = try KeyedArchiveEncoder().encodeBytes(Person(name: "Ann", age: 4))
        let graph = try ArchiveGraph(bytes: bytes)
        let person = try #require(graph.root?.object)
        #expect(person.className == "AutoCodingTests.Person")
        #expect(person["name"]?.string == "Ann")
        #expect(person["age"]?.int == 4)
        #expect(person["address"]?.object?["zip"]?.int == 10_004)
    }
}
