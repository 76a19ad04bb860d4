import AutoCoding
import Testing

/// A model class coded the NSCoding way: a name, a version-dependent field, children and a weak parent.
private final class Node: TypedstreamEncodable, TypedstreamDecodable {
    static let typedstreamClassNames = ["Node"]
    var name: String
    var weight: Int32
    var children: [Node] = []
    weak var parent: Node?

    init(name: String, weight: Int32) {
        self.name = name
        self.weight = weight
    }

    var typedstreamClasses: [TypedClass] { [TypedClass("Node", version: 2), TypedClass("NSObject", version: 0)] }

    func encode(typedstreamCoder coder: TypedstreamArchiver.ObjectCoder) {
        coder.encodeValues(
            ofObjCTypes: "*i",
            [.cString(TypedCString(name)), .signed(Int64(weight), type: UInt8(ascii: "i"))]
        )
        coder.encodeValues(ofObjCTypes: "i", [.signed(Int64(children.count), type: UInt8(ascii: "i"))])
        for child in children { coder.encodeObject(child) }
        coder.encodeConditionalObject(parent)
    }

    init(typedstreamCoder coder: TypedstreamUnarchiver.ObjectCoder) throws {
        var coder = coder
        let head = try coder.decodeValues(ofObjCTypes: "*i")
        guard case .cString(let string) = head[0], let weight = head[1].integer else {
            throw TypedstreamDecodingError(.unexpectedLayout, "bad Node header")
        }
        name = string.text
        // Version 1 had no weight; the chain tells which layout was written.
        self.weight = coder.version(of: "Node") == 1 ? 0 : Int32(weight)
        let count: Int = try coder.decodeInteger()
        for _ in 0..<count {
            if let child = try coder.decodeObject() as? Node { children.append(child) }
        }
        parent = try coder.decodeObject() as? Node
    }
}

/// Replaced on decoding by its awakeAfter hook.
private final class Placeholder: TypedstreamDecodable {
    static let typedstreamClassNames = ["OldPlaceholder"]
    init(typedstreamCoder coder: TypedstreamUnarchiver.ObjectCoder) throws {}
    func awakeAfter(using coder: TypedstreamUnarchiver) -> AnyObject { TypedObject.string("replaced") }
}

@Suite("Typedstream archiver and unarchiver")
struct TypedstreamArchiverTests {
    @Test func roundTripsValuesObjectsAndIdentity() throws {
        let root = Node(name: "root", weight: 7)
        let shared = Node(name: "shared", weight: -300)
        let a = Node(name: "a", weight: 70_000)
        a.children = [shared]
        a.parent = root
        root.children = [a, shared]
        shared.parent = root
        let archiver = TypedstreamArchiver()
        archiver.encodeValues(
            ofObjCTypes: "iq",
            [.signed(1, type: UInt8(ascii: "i")), .signed(1 << 40, type: UInt8(ascii: "q"))]
        )
        archiver.encodeObject(root)
        archiver.encodeObject("text" as AnyObject)
        for order in Typedstream.ByteOrder.allCases {
            let bytes = archiver.archivedBytes(byteOrder: order)
            let unarchiver = try TypedstreamUnarchiver(forReadingWith: bytes)
            unarchiver.register(Node.self)
            #expect(unarchiver.versionForClassName("Node") == 2)
            let head = try unarchiver.decodeValues(ofObjCTypes: "iq")
            #expect(head.map(\.integer) == [1, 1 << 40])
            let decoded = try #require(try unarchiver.decodeObject() as? Node)
            #expect(decoded.name == "root" && decoded.weight == 7)
            #expect(decoded.children.map(\.name) == ["a", "shared"])
            #expect(decoded.children[0].weight == 70_000)
            #expect(decoded.children[0].children[0] === decoded.children[1], "a shared object decodes once")
            #expect(decoded.children[1].weight == -300)
            let text = try #require(try unarchiver.decodeObject() as? TypedObject)
            guard case .string(let s)? = text.foundation else {
                Issue.record("NSString")
                return
            }
            #expect(s == "text")
            #expect(unarchiver.isAtEnd)
        }
    }

    @Test func writesAConditionalObjectOnlyWhenItIsAlsoWrittenUnconditionally() throws {
        let orphanParent = Node(name: "never archived", weight: 0)
        let child = Node(name: "child", weight: 1)
        child.parent = orphanParent
        let archiver = TypedstreamArchiver()
        archiver.encodeObject(child)
        let unarchiver = try TypedstreamUnarchiver(forReadingWith: archiver.archivedBytes())
        unarchiver.register(Node.self)
        let decoded = try #require(try unarchiver.decodeObject() as? Node)
        #expect(decoded.parent == nil)

        // The same parent archived unconditionally (after the child) is kept, and the child's back-reference
        // resolves to it.
        let second = TypedstreamArchiver()
        second.encodeObject(child)
        second.encodeObject(orphanParent)
        let again = try TypedstreamUnarchiver(forReadingWith: second.archivedBytes())
        again.register(Node.self)
        let child2 = try #require(try again.decodeObject() as? Node)
        let parent2 = try #require(try again.decodeObject() as? Node)
        #expect(child2.parent === parent2)
    }

    @Test func mapsClassNamesAndSubstitutesOnAwake() throws {
        let archiver = TypedstreamArchiver()
        archiver.encodeObject(TypedObject(classes: [TypedClass("OldPlaceholder", version: 0)]))
        archiver.encodeObject(
            TypedObject(
                classes: [TypedClass("Unknown", version: 3)],
                groups: [
                    TypedGroup(
                        encoding: "{_NSRange=QQ}",
                        values: [
                            .structure(
                                [.unsigned(1, type: UInt8(ascii: "Q")), .unsigned(2, type: UInt8(ascii: "Q"))],
                                encoding: "{_NSRange=QQ}"
                            )
                        ]
                    )
                ]
            )
        )
        let bytes = archiver.archivedBytes()
        let unarchiver = try TypedstreamUnarchiver(forReadingWith: bytes)
        unarchiver.register(Placeholder.self)
        let replaced = try #require(try unarchiver.decodeObject() as? TypedObject)
        #expect(replaced.className == "NSString")
        // An unknown class stays a TypedObject with its version and groups, and writes back unchanged.
        let unknown = try #require(try unarchiver.decodeObject() as? TypedObject)
        #expect(unknown.className == "Unknown" && unknown.version(of: "Unknown") == 3)
        let same = unarchiver.graph.typedstreamBytes() == bytes
        #expect(same)

        let renamed = try TypedstreamUnarchiver(forReadingWith: bytes)
        renamed.decodeClassName("OldPlaceholder", asClassName: "Node")
        renamed.register(Node.self)
        #expect(throws: TypedstreamDecodingError.self) { try renamed.decodeObject() }
    }
}

// MARK: - Writers refuse what readers refuse (issue 17)

extension TypedstreamArchiverTests {
    @Test func refusesToWriteObjectsNestedDeeperThanTheReaderReads() throws {
        // 600 objects, each holding the next in its one `@` group: the reader stops at depth 512.
        var inner = TypedObject(classes: [TypedClass("Node", version: 0)])
        for _ in 0..<600 {
            inner = TypedObject(
                classes: [TypedClass("Node", version: 0)],
                groups: [TypedGroup(encoding: "@", values: [.object(inner)])]
            )
        }
        let archiver = TypedstreamArchiver()
        archiver.encodeObject(inner)
        let unchecked = archiver.archivedBytes()
        #expect(throws: ArchiveError.self) { try Typedstream(bytes: unchecked) }
        let error = #expect(throws: ArchiveError.self) { try archiver.archivedBytes(readableWith: ArchiveReadingOptions()) }
        #expect(error?.code == .depthLimitExceeded)
        #expect(error?.reason.contains("512") == true, "\(error.map { "\($0)" } ?? "")")
        // Within the limit the checked form writes the same bytes.
        let shallow = TypedstreamArchiver()
        shallow.encodeObject(TypedObject(classes: [TypedClass("Node", version: 0)]))
        #expect(try shallow.archivedBytes(readableWith: ArchiveReadingOptions()) == shallow.archivedBytes())
    }
}
