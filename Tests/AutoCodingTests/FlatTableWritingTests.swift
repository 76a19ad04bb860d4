import AutoCoding
import Foundation
import OrderedCollections
import Testing
import _AutoCodingTestSupport

/// The encoders write binary plists straight from their flat `$objects` table. These tests hold those bytes to
/// the ones the same archive gives through its value tree (`KeyedArchive.binaryPlist()`), the writer every
/// interop and round-trip test checks.
@Suite struct FlatTableWritingTests {
    @Test(.enabled(if: SharedCorpus.isAvailable, SharedCorpus.skipReason),
          arguments: SharedCorpus.paths(in: "apple", "corelibs", "plain"))
    func aGraphWritesTheBytesOfItsArchive(path: String) throws {
        guard let graph = try? ArchiveGraph(bytes: try SharedCorpus.bytes(path)) else { return }  // Not keyed.
        #expect(graph.binaryPlist() == graph.keyedArchive().binaryPlist())
    }

    @Test func codableValuesWriteTheBytesOfTheirArchive() throws {
        let friend = Person(name: "Ann", age: 30)
        let people = [Person(name: "Bob", age: 41, friends: [friend]), friend]
        let encoder = KeyedArchiveEncoder()
        #expect(try encoder.encodeBytes(people) == encoder.encodeArchive(people).binaryPlist())
        // `encode` writes into its Data's own buffer: the same bytes, large and small.
        #expect(try [UInt8](encoder.encode(people)) == encoder.encodeBytes(people))
        #expect(try [UInt8](encoder.encode(7)) == encoder.encodeBytes(7))
        let everything = Everything()
        #expect(try encoder.encodeBytes(everything) == encoder.encodeArchive(everything).binaryPlist())
        let unusual = Unusual()
        let bytes = try encoder.encodeBytes(unusual)
        #expect(bytes == (try encoder.encodeArchive(unusual).binaryPlist()))
        // The later write of a key replaces the first in its place, and nested containers sit where asked.
        let archive = try KeyedArchive(bytes: bytes)
        guard case .uid(let root) = archive.top["root"], case .dictionary(let fields) = archive[root] else {
            Issue.record("no root instance")
            return
        }
        #expect(Array(fields.keys) == ["twice", "inner", "nested", "super", "$class"])
        #expect(fields["twice"] == .integer(2))
    }

    @Test func aFieldNamedClassGivesWayToTheClassReferenceInItsPlace() throws {
        let encoder = KeyedArchiveEncoder()
        let bytes = try encoder.encodeBytes(ClassNamedField())
        #expect(bytes == (try encoder.encodeArchive(ClassNamedField()).binaryPlist()))
        let archive = try KeyedArchive(bytes: bytes)
        guard case .uid(let root) = archive.top["root"], case .dictionary(let fields) = archive[root] else {
            Issue.record("no root instance")
            return
        }
        #expect(Array(fields.keys) == ["a", "$class", "b"])
        #expect(fields["$class"]?.uidValue != nil)
    }

    @Test func archiverWritesTheBytesOfItsArchiveWithConditionals() throws {
        let parent = Note(title: "parent")
        let child = Note(title: "child")
        child.parent = parent
        let shared = Note(title: "shared")
        let archiver = KeyedArchiver()
        try archiver.encode(child, forKey: "child")
        try archiver.encode(Note(title: "two", related: shared), forKey: "second")
        try archiver.encode(parent, forKey: "parent")  // Archived after all: the conditional resolves to it.
        let data = try archiver.encodedData()
        #expect([UInt8](data) == (try archiver.finishEncoding().binaryPlist()))
        let graph = try ArchiveGraph(bytes: [UInt8](data))
        guard case .object(let decodedChild) = graph.roots["child"], case .object(let decodedParent) = graph.roots["parent"],
            case .object(let linked) = decodedChild.fields["parent"]
        else {
            Issue.record("missing roots")
            return
        }
        #expect(linked === decodedParent)
    }

    /// Arrays and sets of strings and of objects keep their references in the table's list storage (a `.list`
    /// entry), other lists an array value: both write the bytes of the value tree, in the same order, whatever
    /// nests in them, and read back.
    @Test func listsInTheTablesListStorageWriteTheBytesOfTheirArchive() throws {
        let ann = Person(name: "Ann", age: 30)
        let value = Lists(
            names: ["a", "b", "a"], people: [ann, Person(name: "Bob", age: 41, friends: [ann]), ann],
            nested: [["x"], [], ["y", "z"]], numbers: [1, 2], set: ["s"], ordered: ["o", "p"], empty: [],
            mutable: FormedNote())
        let encoder = KeyedArchiveEncoder()
        let bytes = try encoder.encodeBytes(value)
        #expect(bytes == (try encoder.encodeArchive(value).binaryPlist()))
        let decoded = try KeyedArchiveDecoder().decode(Lists.self, from: bytes)
        #expect(decoded.names == value.names && decoded.nested == value.nested && decoded.numbers == value.numbers)
        #expect(decoded.set == value.set && decoded.ordered == value.ordered && decoded.empty.isEmpty)
        #expect(decoded.people.map(\.name) == ["Ann", "Bob", "Ann"] && decoded.people[0] === decoded.people[2])
        #expect(decoded.people[1].friends.first === decoded.people[0])
        // An ordered set keys its elements one by one; `@ArchiveAs` renames a list's class.
        let graph = try ArchiveGraph(bytes: bytes)
        guard case .object(let root) = graph.roots["root"], case .object(let ordered) = root["ordered"],
            case .object(let names) = root["names"], case .object(let formed) = root["mutable"],
            case .object(let tags) = formed["tags"]
        else {
            Issue.record("no root instance")
            return
        }
        #expect(Array(ordered.fields.keys) == ["NS.object.0", "NS.object.1"])
        #expect(names.archiveClass.name == "NSArray" && tags.archiveClass.name == "NSMutableArray")
        #expect(tags["NS.objects"]?.elements?.map(\.string) == ["a"])
    }

    /// The encoder reuses one instance's field list for the next; a container an `encode(to:)` kept must not be
    /// that list, or a later write through it would land in another object.
    @Test func aKeptContainerDoesNotWriteIntoTheNextObject() throws {
        let kept = KeptContainer()
        let bytes = try KeyedArchiveEncoder().encodeBytes([Leaky(kept: kept, tag: 1), Leaky(kept: kept, tag: 2), Leaky(kept: kept, tag: 3)])
        let graph = try ArchiveGraph(bytes: bytes)
        guard case .object(let list) = graph.roots["root"], let elements = list.fields["NS.objects"]?.elements else {
            Issue.record("no root list")
            return
        }
        let fields = elements.map { $0.object.map { Array($0.fields.keys) } }
        #expect(fields == [["tag"], ["tag"], ["tag"]])
        #expect(elements.map { $0.object?["tag"]?.int } == [1, 2, 3])
    }

    /// The encoder of one object serves the next when nothing kept it; an encoder an `encode(to:)` kept is not
    /// reused, so it still describes its own object afterwards.
    @Test func aKeptEncoderIsNotReusedForTheNextObject() throws {
        let kept = KeptEncoders()
        let objects = [KeepsEncoder(kept: kept, tag: 1), KeepsEncoder(kept: kept, tag: 2)]
        let bytes = try KeyedArchiveEncoder().encodeBytes(objects)
        #expect(kept.encoders.count == 2 && (kept.encoders[0] as AnyObject) !== (kept.encoders[1] as AnyObject))
        #expect(kept.encoders.map { $0.codingPath.map(\.stringValue) } == kept.paths)
        let graph = try ArchiveGraph(bytes: bytes)
        guard case .object(let list) = graph.roots["root"], let elements = list.fields["NS.objects"]?.elements else {
            Issue.record("no root list")
            return
        }
        #expect(elements.map { $0.object?["tag"]?.int } == [1, 2])
    }

    /// A string is archived once however often it is encoded, as `NSKeyedArchiver` archives an object once; equal
    /// strings in separate storage stay separate entries, as two equal `NSString` objects do in Apple's archives.
    @Test func aStringEncodedTwiceIsOneEntry() throws {
        let shared = "Ann Example, 1 Long Street, Springfield"
        let copy = String(decoding: Array(shared.utf8), as: UTF8.self)
        let bytes = try KeyedArchiveEncoder().encodeBytes([shared, shared, copy, "small", "small"])
        let archive = try KeyedArchive(bytes: bytes)
        // $null, the array, `shared`, `copy`, "small", the class.
        #expect(archive.objects.count == 6)
        guard case .uid(let root) = archive.top["root"], case .dictionary(let list) = archive[root],
            let elements = list["NS.objects"]?.arrayValue?.compactMap(\.uidValue)
        else {
            Issue.record("no root list")
            return
        }
        #expect(elements.count == 5)
        #expect(elements[0] == elements[1] && elements[1] != elements[2] && elements[3] == elements[4])
        let decoded = try KeyedArchiveDecoder().decode([String].self, from: bytes)
        #expect(decoded == [shared, shared, copy, "small", "small"])
    }

    /// Keys are `NSString`s, equal when their code units are: `"\u{E9}"` and `"e\u{301}"` are two fields (Swift's
    /// `==` calls them equal, and the encoder once kept the second's value under the first key).
    @Test func canonicallyEquivalentKeysAreTwoFields() throws {
        let value = EquivalentKeys(precomposed: 1, decomposed: 2)
        let bytes = try KeyedArchiveEncoder().encodeBytes(value)
        #expect(try KeyedArchiveDecoder().decode(EquivalentKeys.self, from: bytes) == value)
    }

    /// A dictionary nested in place, `$top` and an instance with a `$class` field are written through a Swift
    /// dictionary, which holds one of two canonically equivalent keys: an error that names both, not a trap
    /// or a lost field.
    @Test(arguments: [EquivalentKeysIn.nestedContainer, .instanceWithClassField])
    func canonicallyEquivalentKeysADictionaryCannotHoldAreAnError(_ form: EquivalentKeysIn) throws {
        #expect {
            _ = try KeyedArchiveEncoder().encodeBytes(form)
        } throws: { error in
            guard case EncodingError.invalidValue(_, let context) = error else { return false }
            return context.debugDescription.contains("U+E9) and") && context.debugDescription.contains("U+65 U+301")
        }
    }

    @Test func canonicallyEquivalentTopKeysAreAnError() throws {
        let archiver = KeyedArchiver()
        archiver.encode(1, forKey: "\u{E9}")
        archiver.encode(2, forKey: "e\u{301}")
        #expect(throws: EncodingError.self) { try archiver.encodedData() }
        // Apart from each other, each key is written.
        let single = KeyedArchiver()
        single.encode(2, forKey: "e\u{301}")
        let archive = try KeyedArchive(bytes: [UInt8](try single.encodedData()))
        #expect(archive.top.keys.map { Array($0.unicodeScalars) } == [Array("e\u{301}".unicodeScalars)])
    }
}

/// Where two canonically equivalent keys are written.
enum EquivalentKeysIn: Encodable, CustomTestStringConvertible {
    case nestedContainer, instanceWithClassField

    enum Key: String, CodingKey {
        case precomposed = "\u{E9}"
        case decomposed = "e\u{301}"
        case klass = "$class"
    }

    var testDescription: String { "\(self)" }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        switch self {
        case .nestedContainer:
            try container.encode(EquivalentKeys(precomposed: 1, decomposed: 2), forKey: .precomposed)
            var nested = container.nestedContainer(keyedBy: Key.self, forKey: .decomposed)
            try nested.encode(1, forKey: .precomposed)
            try nested.encode(2, forKey: .decomposed)
        case .instanceWithClassField:
            try container.encode(1, forKey: .precomposed)
            try container.encode(2, forKey: .decomposed)
            try container.encode(3, forKey: .klass)
        }
    }
}

/// Two fields whose keys are canonically equivalent but not the same bytes.
private struct EquivalentKeys: Codable, Equatable {
    var precomposed: Int
    var decomposed: Int
    enum CodingKeys: String, CodingKey {
        case precomposed = "\u{E9}"
        case decomposed = "e\u{301}"
    }
}

/// Where ``Leaky`` keeps the container of the instance before.
private final class KeptContainer {
    var container: KeyedEncodingContainer<Leaky.Key>?
}

/// The encoders ``KeepsEncoder`` kept, with their coding paths when they were handed over.
private final class KeptEncoders {
    var encoders: [any Encoder] = []
    var paths: [[String]] = []
}

/// A class whose `encode(to:)` keeps its encoder.
private final class KeepsEncoder: Encodable {
    enum Key: String, CodingKey { case tag }
    let kept: KeptEncoders
    let tag: Int
    init(kept: KeptEncoders, tag: Int) { (self.kept, self.tag) = (kept, tag) }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(tag, forKey: .tag)
        kept.encoders.append(encoder)
        kept.paths.append(encoder.codingPath.map(\.stringValue))
    }
}

/// A class whose `encode(to:)` writes through the container the previous instance kept, then keeps its own.
private final class Leaky: Encodable {
    enum Key: String, CodingKey { case tag, late }
    let kept: KeptContainer
    let tag: Int
    init(kept: KeptContainer, tag: Int) { (self.kept, self.tag) = (kept, tag) }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(tag, forKey: .tag)
        try kept.container?.encode(tag, forKey: .late)
        kept.container = container
    }
}

/// A value whose `encode(to:)` writes a key twice, a nested container and a super encoder.
private struct Unusual: Encodable {
    enum Key: String, CodingKey { case twice, nested, inner }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(1, forKey: .twice)
        var nested = container.nestedContainer(keyedBy: Key.self, forKey: .nested)
        try nested.encode("in place", forKey: .inner)
        try container.encode(2, forKey: .twice)
        try container.encode(["x", "y"], forKey: .inner)
        let parent = container.superEncoder()
        var single = parent.singleValueContainer()
        try single.encode(3.5)
    }
}

/// A value that writes a field named `$class` between two others.
private struct ClassNamedField: Encodable {
    enum Key: String, CodingKey {
        case a
        case klass = "$class"
        case b
    }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(1, forKey: .a)
        try container.encode(2, forKey: .klass)
        try container.encode(3, forKey: .b)
    }
}

/// Lists of every kind the encoder writes: strings, objects (shared), lists of lists, numbers, a set, an ordered
/// set, an empty list, and a list whose class `@ArchiveAs` renames.
private struct Lists: Codable {
    var names: [String]
    var people: [Person]
    var nested: [[String]]
    var numbers: [Int]
    var set: Set<String>
    var ordered: OrderedSet<String>
    var empty: [String]
    var mutable: FormedNote
}
