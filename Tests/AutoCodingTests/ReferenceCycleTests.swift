import AutoCoding
import AutoCodingFast
import Foundation
import OrderedCollections
import Testing

@testable import AutoCodingCore

/// Graphs whose objects reference each other in a cycle are freed: by `breakReferenceCycles()` for the graphs a
/// caller holds, and by the readers themselves for the objects no caller can reach.
@Suite("Reference cycles")
struct ReferenceCycleTests {
    /// Weak references to objects, to see whether they were freed.
    final class Watched {
        private var objects: [() -> AnyObject?] = []
        func watch(_ object: AnyObject) { objects.append { [weak object] in object } }
        var alive: Int { objects.count(where: { $0() != nil }) }
        var count: Int { objects.count }
    }

    /// Two instances that reference each other, the first the root.
    static func cyclicPairArchive() -> [UInt8] {
        let first = ArchivedObject(className: "Node")
        let second = ArchivedObject(className: "Node", fields: ["next": .object(first)])
        first.fields = ["next": .object(second), "name": .reference(.string("first"))]
        let graph = ArchiveGraph(root: .object(first))
        defer { graph.breakReferenceCycles() }
        return graph.binaryPlist()
    }

    static let node: ArchiveValue = .dictionary(["$classname": .string("Node"), "$classes": .array([.string("Node")])])

    /// An archive whose root holds one object, and whose `$objects` also hold a cycle that `$top` does not
    /// reach, such as a crafted archive (Apple's archivers write only what the root reaches).
    static func orphanCycleArchive() throws -> [UInt8] {
        let objects: [ArchiveValue] = [
            .string("$null"),
            .dictionary(["$class": .uid(ArchiveUID(3)), "value": .integer(1)]),
            .dictionary(["$class": .uid(ArchiveUID(3)), "next": .uid(ArchiveUID(4))]),
            node,
            .dictionary(["$class": .uid(ArchiveUID(3)), "next": .uid(ArchiveUID(2))]),
        ]
        return KeyedArchive(top: ["root": .uid(ArchiveUID(1))], objects: objects).binaryPlist()
    }

    @Test func aCyclicGraphIsFreedOnceItsCyclesAreBroken() throws {
        let bytes = Self.cyclicPairArchive()
        let kept = Watched()
        let broken = Watched()
        do {
            let graph = try ArchiveGraph(bytes: bytes)
            let first = try #require(graph.root?.object)
            kept.watch(first)
            kept.watch(try #require(first.fields["next"]?.object))
            let other = try ArchiveGraph(bytes: bytes)
            broken.watch(try #require(other.root?.object))
            broken.watch(try #require(other.root?.object?.fields["next"]?.object))
            other.breakReferenceCycles()
            #expect(other.root?.object?.fields.isEmpty == true)
        }
        #expect(broken.alive == 0)
        // ARC alone keeps a cycle: what the call is for.
        #expect(kept.alive == 2)
    }

    @Test func objectsThatTheTopDoesNotReachAreFreedWithTheGraph() throws {
        let bytes = try Self.orphanCycleArchive()
        let watched = Watched()
        do {
            let graph = try ArchiveGraph(bytes: bytes)
            graph.objectNumbers?.forEachObject { watched.watch($0) }
            #expect(watched.count == 3)
            graph.breakReferenceCycles()
        }
        #expect(watched.alive == 0)
    }

    @Test func objectsAddedToAGraphReadFromBytesAreEmptiedToo() throws {
        let bytes = try Self.orphanCycleArchive()
        let watched = Watched()
        do {
            let graph = try ArchiveGraph(bytes: bytes)
            let root = try #require(graph.root?.object)
            // A cycle that only an archived object reaches: the walk from `$top` must find it.
            let first = ArchivedObject(className: "Added")
            let second = ArchivedObject(className: "Added", fields: ["next": .object(first)])
            first.fields = ["next": .object(second)]
            root.fields["added"] = .array([.object(first)])
            watched.watch(first)
            watched.watch(second)
            graph.breakReferenceCycles()
            #expect(root.fields.isEmpty)
        }
        #expect(watched.alive == 0)
    }

    /// An in-place array shared by both elements of its parent, 64 levels deep: 2⁶⁴ references, each array walked
    /// once. (Without its set of containers seen, the walk does not end: this test then hangs until CI's limit.)
    @Test func aSharedInPlaceArrayIsWalkedOnce() throws {
        let watched = Watched()
        do {
            let first = ArchivedObject(className: "Node")
            let second = ArchivedObject(className: "Node", fields: ["next": .object(first)])
            first.fields = ["next": .object(second)]
            watched.watch(first)
            watched.watch(second)
            var shared: ArchivedValue = .array([.object(first)])
            for _ in 0..<64 { shared = .array([shared, shared]) }
            let graph = ArchiveGraph(root: .object(ArchivedObject(className: "Holder", fields: ["all": shared])))
            graph.breakReferenceCycles()
        }
        #expect(watched.alive == 0)
    }

    /// A small array and a small dictionary that hold no container are walked again each time they are met rather
    /// than remembered: the objects they hold, a cycle, are emptied the first time, and met empty afterwards.
    @Test func smallSharedContainersAreWalkedAgainAndTheirCyclesBroken() throws {
        let watched = Watched()
        do {
            let first = ArchivedObject(className: "Node")
            let second = ArchivedObject(className: "Node", fields: ["next": .object(first)])
            first.fields = ["next": .object(second), "name": .reference(.string("a name longer than fifteen bytes"))]
            watched.watch(first)
            watched.watch(second)
            let pair: ArchivedValue = .array([.object(first), .object(second)])
            let byName: ArchivedValue = .dictionary(["first": .object(first), "second": .object(second)])
            let holders = (0..<1_000).map { i -> ArchivedValue in
                let holder = ArchivedObject(className: "Holder", fields: ["pair": pair, "byName": byName])
                if i.isMultiple(of: 100) { watched.watch(holder) }
                return .object(holder)
            }
            let graph = ArchiveGraph(root: .array(holders))
            graph.breakReferenceCycles()
            #expect(first.fields.isEmpty && second.fields.isEmpty)
        }
        #expect(watched.count == 12)
        #expect(watched.alive == 0)
    }

    @Test func aTypedGraphIsFreedOnceItsCyclesAreBroken() throws {
        let object = TypedObject(classes: [TypedClass("Node", version: 0)])
        object.groups = [TypedGroup(encoding: "@i", values: [.object(object), .signed(7, type: UInt8(ascii: "i"))])]
        let bytes = TypedGraph(groups: [TypedGroup(encoding: "@", values: [.object(object)])]).typedstreamBytes()
        object.groups = []
        let watched = Watched()
        do {
            let graph = try TypedGraph(bytes: bytes)
            let root = try #require(graph.root)
            #expect(root.groups.first?.values.first?.object === root)
            watched.watch(root)
            graph.breakReferenceCycles()
        }
        #expect(watched.alive == 0)
    }

    /// Cycles through a structure's field and through objects that several others reference: the walk empties each
    /// object once and frees them all.
    @Test func aTypedGraphWithCyclesThroughStructuresIsFreed() throws {
        let node = [TypedClass("Node", version: 0)]
        let root = TypedObject(classes: node)
        let first = TypedObject(classes: node)
        let second = TypedObject(classes: node)
        let pair: TypedValue = .structure([.object(second), .signed(1, type: UInt8(ascii: "i"))], encoding: "{p=@i}")
        root.groups = [TypedGroup(encoding: "@{p=@i}", values: [.object(first), pair])]
        first.groups = [TypedGroup(encoding: "@@", values: [.object(root), .object(second)])]
        second.groups = [TypedGroup(encoding: "@", values: [.object(first)])]
        let bytes = TypedGraph(groups: [TypedGroup(encoding: "@", values: [.object(root)])]).typedstreamBytes()
        TypedGraph(groups: [TypedGroup(encoding: "@", values: [.object(root)])]).breakReferenceCycles()
        let watched = Watched()
        do {
            let graph = try TypedGraph(bytes: bytes)
            let objects = graph.objects
            #expect(objects.count == 3)
            objects.forEach(watched.watch)
            graph.breakReferenceCycles()
            #expect(objects.allSatisfy { $0.groups.isEmpty })
        }
        #expect(watched.alive == 0)
        #expect([root, first, second].allSatisfy { $0.groups.isEmpty })
    }

    /// A model with one graph-valued property, decoded from an archive whose root also holds a cycle the model
    /// never reads.
    struct Holder: Decodable {
        var payload: ArchivedValue
    }

    @Test func aTypedDecodeEmptiesOnlyTheGraphObjectsItDidNotHandOut() throws {
        // Root (Holder) → payload: P ⇄ Q, a cycle the caller gets; junk: R ⇄ S, one no caller can reach.
        let objects: [ArchiveValue] = [
            .string("$null"),
            .dictionary(["$class": .uid(ArchiveUID(3)), "payload": .uid(ArchiveUID(2)), "junk": .uid(ArchiveUID(5))]),
            .dictionary(["$class": .uid(ArchiveUID(3)), "peer": .uid(ArchiveUID(4)), "value": .integer(42)]),
            Self.node,
            .dictionary(["$class": .uid(ArchiveUID(3)), "peer": .uid(ArchiveUID(2))]),
            .dictionary(["$class": .uid(ArchiveUID(3)), "peer": .uid(ArchiveUID(6))]),
            .dictionary(["$class": .uid(ArchiveUID(3)), "peer": .uid(ArchiveUID(5))]),
        ]
        let bytes = KeyedArchive(top: ["root": .uid(ArchiveUID(1))], objects: objects).binaryPlist()
        let unreachable = Watched()
        let holder: Holder
        do {
            let context = DecodingContext(
                decoder: KeyedArchiveDecoder(), table: try ArchiveRecordTable(lazy: bytes, options: .init()))
            holder = try context.decodeRoot(Holder.self)
            let shells = try context.resolver(at: .root).shells
            for uid in [5, 6] { unreachable.watch(try #require(shells[uid])) }
        }
        #expect(unreachable.alive == 0)
        // What the caller holds is whole.
        let p = try #require(holder.payload.object)
        #expect(p.fields["value"]?.int == 42)
        let q = try #require(p.fields["peer"]?.object)
        #expect(q.fields["peer"]?.object === p)
        // The caller's own cycle, broken by the caller.
        holder.payload.breakReferenceCycles()
        #expect(p.fields.isEmpty && q.fields.isEmpty)
    }

    /// A list whose first element is a cyclic object of a class no Swift type maps (handed out as an
    /// `ArchivedObject`) and whose second is an NSString entry without its string, so that decoding the list fails
    /// after the first element; and, under `other`, the cyclic object alone.
    static func failingListArchive() -> [UInt8] {
        let cyclic = ArchivedObject(className: "Node")
        cyclic.fields = ["me": .object(cyclic)]
        let broken = ArchivedObject(className: "NSString", chain: ["NSString", "NSObject"])
        let list = ArchivedObject(
            className: "NSArray", chain: ["NSArray", "NSObject"], fields: ["NS.objects": .array([.object(cyclic), .object(broken)])])
        let graph = ArchiveGraph(roots: ["root": .object(list), "other": .object(cyclic)])
        defer { graph.breakReferenceCycles() }
        return graph.binaryPlist()
    }

    @Test func aFailedUnarchiverCallFreesTheGraphObjectsItHandedOut() throws {
        let watched = Watched()
        do {
            let unarchiver = try KeyedUnarchiver(bytes: Self.failingListArchive())
            #expect(throws: DecodingError.self) { _ = try unarchiver.decodeObject(forKey: "root") }
            for case let object? in try unarchiver.context.resolver(at: .root).shells { watched.watch(object) }
        }
        #expect(watched.count == 3)
        #expect(watched.alive == 0)
    }

    @Test func aCallAfterAFailedOneKeepsWhatItHandsOut() throws {
        let watched = Watched()
        let other: ArchivedObject
        do {
            let unarchiver = try KeyedUnarchiver(bytes: Self.failingListArchive())
            #expect(throws: DecodingError.self) { _ = try unarchiver.decodeObject(forKey: "root") }
            other = try #require(try unarchiver.decodeObject(forKey: "other") as? ArchivedObject)
            for case let object? in try unarchiver.context.resolver(at: .root).shells where object !== other {
                watched.watch(object)
            }
        }
        #expect(watched.alive == 0)
        #expect(other.fields["me"]?.object === other)
        ArchivedValue.object(other).breakReferenceCycles()
    }

    /// A model whose graph-valued property decodes before a property that fails.
    struct FailingHolder: Decodable {
        var payload: ArchivedValue
        var count: Int
    }

    @Test func aFailedTypedDecodeFreesTheGraphObjectsItHandedOut() throws {
        // Root → payload: P ⇄ Q; count: a string, which fails after the payload was handed out.
        let objects: [ArchiveValue] = [
            .string("$null"),
            .dictionary(["$class": .uid(ArchiveUID(3)), "payload": .uid(ArchiveUID(2)), "count": .uid(ArchiveUID(5))]),
            .dictionary(["$class": .uid(ArchiveUID(3)), "peer": .uid(ArchiveUID(4))]),
            Self.node,
            .dictionary(["$class": .uid(ArchiveUID(3)), "peer": .uid(ArchiveUID(2))]),
            .string("not a number"),
        ]
        let bytes = KeyedArchive(top: ["root": .uid(ArchiveUID(1))], objects: objects).binaryPlist()
        let watched = Watched()
        do {
            let context = DecodingContext(
                decoder: KeyedArchiveDecoder(), table: try ArchiveRecordTable(lazy: bytes, options: .init()))
            #expect(throws: DecodingError.self) { _ = try context.decodeRoot(FailingHolder.self) }
            for case let object? in try context.resolver(at: .root).shells { watched.watch(object) }
        }
        #expect(watched.count == 3)
        #expect(watched.alive == 0)
    }

    /// An NSDictionary listing one key twice, each time with a cyclic object of a class no Swift type maps.
    @Test func aRepeatedDictionaryKeyIsRefusedAndFreesWhatItWouldHaveDropped() throws {
        let first = ArchivedObject(className: "Node")
        first.fields = ["me": .object(first)]
        let second = ArchivedObject(className: "Node")
        second.fields = ["me": .object(second)]
        let dictionary = ArchivedObject(
            className: "NSDictionary", chain: ["NSDictionary", "NSObject"],
            fields: ["NS.keys": .array([.reference(.string("k")), .reference(.string("k"))]),
                     "NS.objects": .array([.object(first), .object(second)])])
        let graph = ArchiveGraph(root: .object(dictionary))
        let bytes = graph.binaryPlist()
        graph.breakReferenceCycles()
        let watched = Watched()
        do {
            let unarchiver = try KeyedUnarchiver(bytes: bytes)
            let error = try #require(throws: DecodingError.self) { _ = try unarchiver.decodeObject(forKey: "root") }
            guard case .dataCorrupted(let context) = error else { throw error }
            #expect(context.debugDescription == "the dictionary has the key k twice")
            for case let object? in try unarchiver.context.resolver(at: .root).shells { watched.watch(object) }
        }
        #expect(watched.count == 3)
        #expect(watched.alive == 0)
    }
}
