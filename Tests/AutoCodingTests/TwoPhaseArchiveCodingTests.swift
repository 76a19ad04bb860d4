import AutoCoding
import Foundation
import Testing

/// An NSCoding-style tree node decoded in two phases, so that its children's `parent` can point back to it.
final class ParityNode: TwoPhaseArchiveCoding, ArchiveCodable {
    static let archiveClassName = "ParityNode"
    var name = ""
    var children: [ParityNode] = []
    weak var parent: ParityNode?
    /// A strong reference, for a cycle of any length (broken by the tests that make one).
    var next: ParityNode?
    /// A one-phase object that may point back to this node.
    var link: ParityLink?
    /// How many children the parent had when `decode(with:)` saw it: none yet, as it is still being filled.
    var parentChildrenSeen: Int?

    init() {}

    func encode(with coder: KeyedArchiver) throws {
        coder.encode(name, forKey: "name")
        try coder.encode(children, forKey: "children")
        coder.encodeConditionalObject(parent, forKey: "parent")
        try coder.encode(next, forKey: "next")
        try coder.encode(link, forKey: "link")
    }

    func decode(with coder: KeyedUnarchiver) throws {
        name = try coder.decodeString(forKey: "name") ?? ""
        children = try coder.decodeObject(of: [ParityNode].self, forKey: "children") ?? []
        parent = try coder.decodeObject(of: ParityNode.self, forKey: "parent")
        parentChildrenSeen = parent?.children.count
        next = try coder.decodeObject(of: ParityNode.self, forKey: "next")
        link = try coder.decodeObject(of: ParityLink.self, forKey: "link")
    }
}

/// A one-phase NSCoding-style class (its own `init(coder:)`) that refers to a ``ParityNode``.
final class ParityLink: ArchiveCoding, ArchiveCodable {
    static let archiveClassName = "ParityLink"
    var node: ParityNode?
    init() {}
    func encode(with coder: KeyedArchiver) throws { try coder.encode(node, forKey: "node") }
    init(coder: KeyedUnarchiver) throws { node = try coder.decodeObject(of: ParityNode.self, forKey: "node") }
}

@Suite("Objective-C parity: cycles through two-phase NSCoding-style classes")
struct TwoPhaseCodingTests {
    @Test func backReferencesDecodeToTheObjectBeingFilled() throws {
        let root = ParityNode()
        root.name = "root"
        for name in ["a", "b"] {
            let child = ParityNode()
            child.name = name
            child.parent = root
            root.children.append(child)
        }
        let data = try KeyedArchiver.archivedData(withRootObject: root)
        let back = try #require(try KeyedUnarchiver.unarchivedObject(ofType: ParityNode.self, from: data))
        #expect(back.children.map(\.name) == ["a", "b"])
        #expect(back.children.allSatisfy { $0.parent === back })
        // A back reference gets the object while it is being filled (its children not set yet), as in Foundation.
        #expect(back.children.map(\.parentChildrenSeen) == [0, 0])
        // The same through the Codable bridge, inside an array.
        let list = try KeyedArchiveDecoder().decode([ParityNode].self, from: KeyedArchiveEncoder().encode([root]))
        #expect(list.first?.children.first?.parent === list.first)
    }

    @Test func aStrongCycleKeepsIdentity() throws {
        let a = ParityNode()
        let b = ParityNode()
        (a.name, b.name) = ("a", "b")
        (a.next, b.next) = (b, a)
        defer { a.next = nil }
        let back = try #require(try KeyedUnarchiver.unarchivedObject(
            ofType: ParityNode.self, from: KeyedArchiver.archivedData(withRootObject: a)))
        defer { back.next = nil }
        #expect(back.name == "a" && back.next?.name == "b")
        #expect(back.next?.next === back)
    }

    @Test func aCycleThroughAOnePhaseClassKeepsItsError() throws {
        // link → node → link: the link's init(coder:) has not returned when the node refers back to it.
        let link = ParityLink()
        let node = ParityNode()
        node.name = "n"
        (link.node, node.link) = (node, link)
        defer { node.link = nil }
        let message = decodingError {
            _ = try KeyedUnarchiver.unarchivedObject(ofType: ParityLink.self, from: KeyedArchiver.archivedData(withRootObject: link))
        }
        #expect(message?.contains(
            "reference cycle ParityLink (UID 1) → ParityNode (UID 2) → ParityLink (UID 1) cannot be decoded through "
                + "init(coder:), which hands out the object only when it returns; make a class on the cycle "
                + "TwoPhaseArchiveCoding (init(), then decode(with:))") == true, "\(message ?? "no error")")
        // Entered through the two-phase class, the same cycle decodes: the link gets the node being filled.
        let back = try #require(try KeyedUnarchiver.unarchivedObject(
            ofType: ParityNode.self, from: KeyedArchiver.archivedData(withRootObject: node)))
        defer { back.link = nil }
        #expect(back.link?.node === back && back.name == "n")
    }

    @Test func aChainDeeperThanMaxDepthIsAnError() throws {
        // Filling recurses (decode(with:) reads its children finished), so the depth limit bounds it.
        func chain(_ length: Int) -> ParityNode {
            let head = ParityNode()
            var last = head
            for _ in 1..<length {
                let next = ParityNode()
                last.next = next
                last = next
            }
            return head
        }
        var decoder = KeyedArchiveDecoder()
        decoder.options.decodingDepthLimit = 40
        let short = try KeyedArchiver.archivedData(withRootObject: chain(30))
        let back = try decoder.decode(ParityNode.self, from: short)
        var length = 1
        var node = back
        while let next = node.next { (node, length) = (next, length + 1) }
        #expect(length == 30)
        let long = try KeyedArchiver.archivedData(withRootObject: chain(50))
        let message = decodingError { _ = try decoder.decode(ParityNode.self, from: long) }
        #expect(message?.contains("values nest deeper than options.decodingDepthLimit 40") == true, "\(message ?? "no error")")
    }
}
