import AutoCodingFast
import Foundation
import OrderedCollections
import Testing
import _AutoCodingTestSupport

@testable import AutoCodingCore

/// `ArchiveGraph(bytes:)` builds its objects in one pass over the validated table (issue 19). It must answer
/// exactly as the path through a materialized ``KeyedArchive`` did: the same graph, or the same error.
@Suite struct GraphOnePassTests {
    /// The graph through a whole ``KeyedArchive``, validated again: the path `init(bytes:)` took before.
    static func throughKeyedArchive(_ bytes: [UInt8]) throws(ArchiveError) -> ArchiveGraph {
        try ArchiveGraph(archive: KeyedArchiveView(bytes: bytes).keyedArchive())
    }

    static func outcome(_ build: () throws(ArchiveError) -> ArchiveGraph) -> Result<ArchiveGraph, ArchiveError> {
        do throws(ArchiveError) { return .success(try build()) } catch { return .failure(error) }
    }

    @Test(.enabled(if: SharedCorpus.isAvailable, SharedCorpus.skipReason),
          arguments: SharedCorpus.paths(in: "apple", "corelibs", "malformed", "plain"))
    func answersAsTheKeyedArchivePathDoes(_ path: String) throws {
        let bytes = try SharedCorpus.bytes(path)
        let onePass = Self.outcome { () throws(ArchiveError) in try ArchiveGraph(bytes: bytes) }
        let twoPass = Self.outcome { () throws(ArchiveError) in try Self.throughKeyedArchive(bytes) }
        switch (onePass, twoPass) {
        case (.success(let a), .success(let b)):
            #expect(a.archiver == b.archiver)
            #expect(Array(a.roots.keys) == Array(b.roots.keys))
            #expect(a.isEquivalent(to: b))
            #expect(a.binaryPlist() == b.binaryPlist(), "the same objects in the same order write the same bytes")
        case (.failure(let a), .failure(let b)):
            #expect(a == b)
            #expect(a.reason == b.reason)
        default:
            Issue.record("one pass: \(onePass), through KeyedArchive: \(twoPass)")
        }
    }

    /// An instance holding `$class` twice is refused as any dictionary with a duplicate key is, though the
    /// graph leaves `$class` out of the fields.
    @Test func refusesAnInstanceWithTwoClassKeys() throws {
        let objects: [ArchiveValue] = [
            .string(ArchiveKey.null), ArchiveClass(name: "Item").descriptor,
            .dictionary(["$class": .uid(ArchiveUID(1)), "$clasZ": .uid(ArchiveUID(1))]),
        ]
        let archive = KeyedArchive(top: ["root": .uid(ArchiveUID(2))], objects: objects)
        try Self.expectDuplicateKey("$class", renaming: "$clasZ", in: archive)
    }

    /// Renames the key `written` of `archive` to `key` in its binary plist (its last byte, in the key's string
    /// object, which the writer stored apart from `key`'s), and expects both paths to refuse the duplicate alike.
    static func expectDuplicateKey(_ key: String, renaming written: String, in archive: KeyedArchive) throws {
        var bytes = archive.binaryPlist()
        let object = [0x50 | UInt8(written.utf8.count)] + Array(written.utf8)  // a short ASCII string object
        let at = try #require(
            (0...(bytes.count - object.count)).first { bytes[$0..<$0 + object.count].elementsEqual(object) })
        bytes[at + object.count - 1] = try #require(key.utf8.last)
        let onePass = #expect(throws: ArchiveError.self) { try ArchiveGraph(bytes: bytes) }
        #expect(onePass?.code == .invalidObject)
        #expect(onePass?.reason.contains("has the key \"\(key)\" twice") == true, "\(onePass.map { "\($0)" } ?? "")")
        let twoPass = #expect(throws: ArchiveError.self) { try Self.throughKeyedArchive(bytes) }
        #expect(onePass?.reason == twoPass?.reason)
    }

    /// A field name held twice by an instance of a class whose earlier instances held it once (its key a string
    /// object of its own, as corelibs writes them) is refused as the other readers refuse it; instances before
    /// and after it in the class read as usual.
    @Test func refusesAnInstanceWithAFieldNameTwice() throws {
        let objects: [ArchiveValue] = [
            .string(ArchiveKey.null), ArchiveClass(name: "Item").descriptor,
            .dictionary(["$class": .uid(ArchiveUID(1)), "name": .integer(1), "size": .integer(2)]),
            .dictionary(["$class": .uid(ArchiveUID(1)), "size": .integer(3), "namZ": .integer(4), "name": .integer(5)]),
            .dictionary(["$class": .uid(ArchiveUID(1)), "name": .integer(6), "size": .integer(7)]),
        ]
        let top: OrderedDictionary<String, ArchiveValue> = ["a": .uid(ArchiveUID(2)), "b": .uid(ArchiveUID(4))]
        let valid = KeyedArchive(top: top, objects: objects)
        let graph = try ArchiveGraph(bytes: valid.binaryPlist())
        let fields = try #require(graph.roots["b"]?.object?.fields)
        #expect(Array(fields.keys) == ["name", "size"])
        #expect(fields.values.map(\.scalar) == [.integer(6), .integer(7)])
        let top2: OrderedDictionary<String, ArchiveValue> = ["a": .uid(ArchiveUID(2)), "b": .uid(ArchiveUID(3))]
        try Self.expectDuplicateKey("name", renaming: "namZ", in: KeyedArchive(top: top2, objects: objects))
    }

    /// Instances of one class whose keys come in several orders (corelibs writes each instance's keys in its
    /// own hash order) keep each its own order, whichever earlier instance's names they share.
    @Test func instancesKeepTheirOwnKeyOrderAcrossLayouts() throws {
        let orders = [
            ["a", "b", "c"], ["c", "a", "b"], ["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"], ["a", "b", "c"],
        ]
        var objects: [ArchiveValue] = [.string(ArchiveKey.null), ArchiveClass(name: "Item").descriptor]
        var top: OrderedDictionary<String, ArchiveValue> = [:]
        for (i, order) in orders.enumerated() {
            var fields: OrderedDictionary<String, ArchiveValue> = [:]
            for key in order { fields[key] = .string("\(key)\(i)") }
            // `$class` first, between or last, as the hash order puts it: one place per order, so that instances
            // of one order share a layout.
            let classPlace = ["a": 0, "c": 1, "b": 3][order[0]] ?? 0
            fields.updateValue(.uid(ArchiveUID(1)), forKey: "$class", insertingAt: classPlace)
            top["o\(i)"] = .uid(ArchiveUID(UInt32(objects.count)))
            objects.append(.dictionary(fields))
        }
        let graph = try ArchiveGraph(bytes: KeyedArchive(top: top, objects: objects).binaryPlist())
        for (i, order) in orders.enumerated() {
            let fields = try #require(graph.roots["o\(i)"]?.object?.fields)
            #expect(Array(fields.keys) == order, "instance \(i)")
            #expect(fields.values.map(\.scalar) == order.map { .string("\($0)\(i)") }, "instance \(i)")
        }
    }

    /// A plain array entry holding a UID would dangle once re-encoded: both paths refuse it, naming the entry.
    @Test func refusesAPlainEntryHoldingUIDs() throws {
        let objects: [ArchiveValue] = [
            .string(ArchiveKey.null), ArchiveClass(name: "Box").descriptor,
            .dictionary(["$class": .uid(ArchiveUID(1)), "items": .uid(ArchiveUID(3))]),
            .array([.uid(ArchiveUID(2))]),
        ]
        let bytes = KeyedArchive(top: ["root": .uid(ArchiveUID(2))], objects: objects).binaryPlist()
        let onePass = #expect(throws: ArchiveError.self) { try ArchiveGraph(bytes: bytes) }
        #expect(onePass?.code == .unexpectedType)
        #expect(onePass?.reason == "$objects[3] is a plain array holding UIDs, not an instance; the graph cannot keep it")
        let twoPass = #expect(throws: ArchiveError.self) { try Self.throughKeyedArchive(bytes) }
        #expect(onePass?.reason == twoPass?.reason)
    }

    /// Forward references: an instance referring to later entries (an instance, twice, and a string through it)
    /// gets one object per entry, filled; of two plain entries holding UIDs, the error names the first in the
    /// file though an instance refers to the later one. (A builder that makes entries when first referred to,
    /// tried in the nineteenth step of BENCHMARKS.md, must keep both.)
    @Test func forwardReferencesAndFirstPlainEntryInFileOrder() throws {
        let forward: [ArchiveValue] = [
            .string(ArchiveKey.null), ArchiveClass(name: "Node").descriptor,
            .dictionary(["$class": .uid(ArchiveUID(1)), "next": .uid(ArchiveUID(4)), "also": .uid(ArchiveUID(4))]),
            .string("name"),
            .dictionary(["$class": .uid(ArchiveUID(1)), "name": .uid(ArchiveUID(3)), "back": .uid(ArchiveUID(2))]),
        ]
        let archive = KeyedArchive(top: ["root": .uid(ArchiveUID(2))], objects: forward)
        let graph = try ArchiveGraph(bytes: archive.binaryPlist())
        let root = try #require(graph.root?.object)
        let next = try #require(root.fields["next"]?.object)
        #expect(root.fields["also"]?.object === next)
        #expect(next.fields["name"]?.scalar == .string("name"))
        #expect(next.fields["back"]?.object === root)

        let twoPlain: [ArchiveValue] = [
            .string(ArchiveKey.null), ArchiveClass(name: "Box").descriptor,
            .dictionary(["$class": .uid(ArchiveUID(1)), "items": .uid(ArchiveUID(4))]),
            .array([.uid(ArchiveUID(2))]),
            .array([.uid(ArchiveUID(2))]),
        ]
        let bytes = KeyedArchive(top: ["root": .uid(ArchiveUID(2))], objects: twoPlain).binaryPlist()
        let onePass = #expect(throws: ArchiveError.self) { try ArchiveGraph(bytes: bytes) }
        #expect(onePass?.reason == "$objects[3] is a plain array holding UIDs, not an instance; the graph cannot keep it")
        let twoPass = #expect(throws: ArchiveError.self) { try Self.throughKeyedArchive(bytes) }
        #expect(onePass?.reason == twoPass?.reason)
    }

    /// graph fuzz target: an `$objects` entry that is itself a UID (not inside a container) was kept as an opaque
    /// scalar whose UID then dangled in the re-encoded archive (`invalidUID: UID 2 ≥ object count 2`).
    @Test func refusesAnEntryThatIsAUID() throws {
        let objects: [ArchiveValue] = [.string(ArchiveKey.null), .uid(ArchiveUID(2)), .string("yo")]
        let bytes = KeyedArchive(top: ["root": .uid(ArchiveUID(1))], objects: objects).binaryPlist()
        let onePass = #expect(throws: ArchiveError.self) { try ArchiveGraph(bytes: bytes) }
        #expect(onePass?.reason == "$objects[1] is a plain UID holding UIDs, not an instance; the graph cannot keep it")
        let twoPass = #expect(throws: ArchiveError.self) { try Self.throughKeyedArchive(bytes) }
        #expect(onePass?.reason == twoPass?.reason)
    }

    /// graph fuzz target (AddressSanitizer: a read past the bytes): a dictionary with both `$classname` and a
    /// `$class` that is not a UID. The view checks `$class` only in dictionaries without `$classname`, and the
    /// one pass read the string as a UID. It is an instance of an unnamed class, as on the other path.
    @Test func readsAClassThatIsNotAUIDBesideAClassName() throws {
        let objects: [ArchiveValue] = [
            .string(ArchiveKey.null),
            .dictionary(["$classname": .string("Odd"), "$class": .string("not a UID but long enough"), "x": .integer(7)]),
        ]
        let bytes = KeyedArchive(top: ["root": .uid(ArchiveUID(1))], objects: objects).binaryPlist()
        let graph = try ArchiveGraph(bytes: bytes)
        let object = try #require(graph.root?.object)
        #expect(object.archiveClass == ArchiveClass(name: ""))
        #expect(object.fields["x"]?.scalar == .integer(7))
        #expect(graph.isEquivalent(to: try Self.throughKeyedArchive(bytes)))
    }

    /// graph fuzz target: a class descriptor no instance names, whose `$classes` is not an array of strings.
    /// `KeyedArchive.validate()` refused it and the view let it pass (it checked only descriptors in use): the
    /// view checks every descriptor now, so both paths, and every reader of the view, refuse it alike.
    @Test func refusesAnUnusedDescriptorWithABadChain() throws {
        let objects: [ArchiveValue] = [
            .string(ArchiveKey.null), .bool(false),
            .dictionary(["$classname": .string("Stray"), "$classes": .array([.integer(1)])]),
        ]
        let bytes = KeyedArchive(top: ["root": .uid(ArchiveUID(1))], objects: objects).binaryPlist()
        let view = #expect(throws: ArchiveError.self) { try KeyedArchiveView(bytes: bytes) }
        #expect(view?.reason == "object 2: $classes is not an array of strings")
        let onePass = #expect(throws: ArchiveError.self) { try ArchiveGraph(bytes: bytes) }
        #expect(onePass?.reason == view?.reason)
        let eager = #expect(throws: ArchiveError.self) { try KeyedArchive(bytes: bytes).validate() }
        #expect(eager?.reason == view?.reason)
    }

    /// Instances of one class share one class value, read once from its descriptor; a cycle resolves to the
    /// same object.
    @Test func sharesClassesAndKeepsCycles() throws {
        let objects: [ArchiveValue] = [
            .string(ArchiveKey.null), ArchiveClass(name: "Node", chain: ["Node", "NSObject"]).descriptor,
            .dictionary(["$class": .uid(ArchiveUID(1)), "next": .uid(ArchiveUID(3)), "name": .uid(ArchiveUID(4))]),
            .dictionary(["$class": .uid(ArchiveUID(1)), "next": .uid(ArchiveUID(2)), "name": .uid(ArchiveUID(4))]),
            .string("shared"),
        ]
        let bytes = KeyedArchive(top: ["root": .uid(ArchiveUID(2))], objects: objects).binaryPlist()
        let graph = try ArchiveGraph(bytes: bytes)
        let first = try #require(graph.root?.object)
        let second = try #require(first.fields["next"]?.object)
        #expect(second.fields["next"]?.object === first)
        #expect(first.archiveClass == ArchiveClass(name: "Node", chain: ["Node", "NSObject"]))
        #expect(second.archiveClass == first.archiveClass)
        #expect(Array(first.fields.keys) == ["next", "name"])
        #expect(first.fields["name"]?.string == "shared")
        #expect(try ArchiveGraph(bytes: graph.binaryPlist()).isEquivalent(to: graph))
    }

    /// A string entry is made where a field first refers to it, and a `$top` entry or a later field finds the
    /// same string: shared by two fields and two objects, non-ASCII (UTF-16 in the file), referenced from `$top`
    /// alone, or never referenced. Numbers and data entries read as before, the data one value for both fields.
    @Test func makesEachStringEntryWhereFirstReferenced() throws {
        let long = "a string longer than fifteen bytes, stored apart"
        let objects: [ArchiveValue] = [
            .string(ArchiveKey.null), ArchiveClass(name: "Item").descriptor,
            .dictionary([
                "$class": .uid(ArchiveUID(1)), "a": .uid(ArchiveUID(4)), "b": .uid(ArchiveUID(4)),
                "text": .uid(ArchiveUID(5)), "count": .uid(ArchiveUID(8)), "blob": .uid(ArchiveUID(9)),
            ]),
            .dictionary(["$class": .uid(ArchiveUID(1)), "c": .uid(ArchiveUID(4)), "blob": .uid(ArchiveUID(9))]),
            .string(long), .string("héllo ✓ wörld, in UTF-16"), .string("only in $top, and long enough"),
            .string("never referenced by anything"), .integer(7), .data(Array(repeating: 0xAB, count: 40)),
        ]
        let top: OrderedDictionary<String, ArchiveValue> = [
            "root": .uid(ArchiveUID(2)), "other": .uid(ArchiveUID(3)), "label": .uid(ArchiveUID(6)),
        ]
        let bytes = KeyedArchive(top: top, objects: objects).binaryPlist()
        let graph = try ArchiveGraph(bytes: bytes)
        let first = try #require(graph.roots["root"]?.object)
        let second = try #require(graph.roots["other"]?.object)
        #expect(first.fields["a"]?.scalar == .string(long))
        #expect(first.fields["b"]?.scalar == .string(long))
        #expect(second.fields["c"]?.scalar == .string(long))
        #expect(first.fields["text"]?.scalar == .string("héllo ✓ wörld, in UTF-16"))
        #expect(first.fields["count"]?.scalar == .integer(7))
        #expect(graph.roots["label"]?.scalar == .string("only in $top, and long enough"))
        guard case .reference? = graph.roots["label"] else {
            Issue.record("a string entry reads as a referenced value: \(String(describing: graph.roots["label"]))")
            return
        }
        #expect(first.fields["blob"]?.bytes == Array(repeating: 0xAB, count: 40))
        #expect(try ArchiveGraph(bytes: graph.binaryPlist()).isEquivalent(to: graph))
        #expect(graph.isEquivalent(to: try Self.throughKeyedArchive(bytes)))
        // The data entry stays one entry when written again; the strings, by content, too.
        let rewritten = try KeyedArchive(bytes: graph.binaryPlist())
        #expect(rewritten.objects.filter { if case .data = $0 { true } else { false } }.count == 1)
        #expect(rewritten.objects.filter { $0 == .string(long) }.count == 1)
    }
}
