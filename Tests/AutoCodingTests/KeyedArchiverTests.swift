import AutoCoding
import Foundation
import Testing

/// An NSCoding-style class with a shared reference and a conditional back-pointer.
final class Note: ArchiveCoding, ArchiveCodable {
    static let archiveClassName = "Note"
    var title: String
    var created: Date
    var tags: [String]
    var related: Note?
    weak var parent: Note?

    init(title: String, related: Note? = nil) {
        self.title = title
        created = Date(timeIntervalSinceReferenceDate: 1_000)
        tags = ["a", "b"]
        self.related = related
    }

    func encode(with coder: KeyedArchiver) throws {
        coder.encode(title, forKey: "title")
        try coder.encode(created, forKey: "created")
        try coder.encode(tags, forKey: "tags")
        try coder.encode(related, forKey: "related")
        coder.encodeConditionalObject(parent, forKey: "parent")
    }

    init(coder: KeyedUnarchiver) throws {
        title = try coder.decodeString(forKey: "title") ?? ""
        created = try coder.decodeObject(of: Date.self, forKey: "created") ?? .distantPast
        tags = try coder.decodeObject(of: [String].self, forKey: "tags") ?? []
        related = try coder.decodeObject(of: Note.self, forKey: "related")
    }
}

/// Archives itself as another object (replacement) and comes back substituted (awakeAfter).
final class Legacy: ArchiveCoding {
    let value: Int
    init(value: Int) { self.value = value }
    func encode(with coder: KeyedArchiver) throws { coder.encode(value, forKey: "v") }
    init(coder: KeyedUnarchiver) throws { value = try coder.decodeInteger(forKey: "v") }
    var classForKeyedArchiver: ArchiveClass? { ArchiveClass(name: "OldLegacy", chain: ["OldLegacy", "NSObject"]) }
    func awakeAfter(using unarchiver: KeyedUnarchiver) throws -> Any { Legacy(value: value * 10) }
}

@Suite("KeyedArchiver and KeyedUnarchiver")
struct KeyedArchiverTests {
    @Test func archiveCodingObjectsRoundTripWithSharing() throws {
        let shared = Note(title: "shared")
        let archiver = KeyedArchiver()
        try archiver.encode(Note(title: "one", related: shared), forKey: "first")
        try archiver.encode(Note(title: "two", related: shared), forKey: "second")
        let data = try archiver.encodedData()

        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        let first = try #require(try unarchiver.decodeObject(of: Note.self, forKey: "first"))
        let second = try #require(try unarchiver.decodeObject(of: Note.self, forKey: "second"))
        #expect(first.title == "one")
        #expect(first.tags == ["a", "b"])
        #expect(first.created == Date(timeIntervalSinceReferenceDate: 1_000))
        #expect(first.related === second.related)
        #expect(first.related?.title == "shared")
    }

    @Test func conditionalObjectIsNullUnlessArchivedElsewhere() throws {
        let parent = Note(title: "parent")
        let child = Note(title: "child")
        child.parent = parent
        let alone = try KeyedArchive(bytes: [UInt8](KeyedArchiver.archivedData(withRootObject: child)))
        let childUID = try #require(alone.rootUID)
        #expect(alone[childUID]?["parent"] == .uid(.null))

        parent.related = child
        let archiver = KeyedArchiver()
        try archiver.encode(parent, forKey: "root")
        let both = try archiver.finishEncoding()
        let parentUID = try #require(both.rootUID)
        let childRef = try #require(both[parentUID]?["related"]?.uidValue)
        #expect(both[childRef]?["parent"] == .uid(parentUID))
    }

    @Test func classSubstitutionAndAwakeAfterHooks() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: Legacy(value: 4))
        let archive = try KeyedArchive(bytes: [UInt8](data))
        #expect(archive.archiveClass(of: try #require(archive.rootUID))?.name == "OldLegacy")

        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        unarchiver.setClass(Legacy.self, forClassName: "OldLegacy")
        let back = try #require(try unarchiver.decodeObject(forKey: "root") as? Legacy)
        #expect(back.value == 40)
    }

    @Test func unknownClassesAreKeptAsArchivedObjects() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: Note(title: "x"))
        let object = try #require(try KeyedUnarchiver(forReadingFrom: data).decodeObject(forKey: "root") as? ArchivedObject)
        #expect(object.className == "Note")
        #expect(object["title"]?.string == "x")
        // Re-encoding the kept object gives the same archive shape.
        let again = try ArchiveGraph(bytes: [UInt8](KeyedArchiver.archivedData(withRootObject: object)))
        #expect(try again.isEquivalent(to: ArchiveGraph(bytes: [UInt8](data))))

        let strict = try KeyedUnarchiver(forReadingFrom: data)
        strict.unknownClassPolicy = .fail
        #expect(throws: DecodingError.self) { try strict.decodeObject(forKey: "root") }
    }

    @Test func foundationCollectionsDecodeDynamically() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: ["k": [1, 2], "s": [3]] as [String: [Int]])
        let value = try #require(try KeyedUnarchiver(forReadingFrom: data).decodeObject(forKey: "root") as? [AnyHashable: Any])
        #expect(value["k"] as? [Int] == [1, 2])
    }

    // MARK: Secure decoding

    @Test func secureDecodingRejectsAClassOutsideTheAllowedSet() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: ["a", "b"])
        #expect(try KeyedUnarchiver.unarchivedObject(ofClasses: [[String].self, String.self], from: data) as? [String] == ["a", "b"])
        let error = #expect(throws: DecodingError.self) {
            try KeyedUnarchiver.unarchivedObject(ofClasses: [[String].self, Int.self], from: data)
        }
        #expect(String(describing: error).contains("found NSString"))
    }

    @Test func secureDecodingChecksEveryReferenceOfASharedObject() throws {
        // The same string is referenced under an allowed key and under a key that allows only numbers.
        let archiver = KeyedArchiver()
        let builderShared = "shared"
        try archiver.encode([builderShared], forKey: "strings")
        let archive = try archiver.finishEncoding()
        var top = archive.top
        let list = try #require(top["strings"]?.uidValue)
        let element = try #require(archive[list]?["NS.objects"]?.arrayValue?.first)
        top["number"] = element
        let bytes = KeyedArchive(top: top, objects: archive.objects).binaryPlist()

        let unarchiver = try KeyedUnarchiver(bytes: bytes)
        unarchiver.requiresSecureCoding = true
        #expect(try unarchiver.decodeObject(ofClasses: [[String].self, String.self], forKey: "strings") as? [String] == ["shared"])
        #expect(throws: DecodingError.self) { try unarchiver.decodeObject(ofClasses: [Int.self], forKey: "number") }
    }

    @Test func secureDecodingRejectsAnInlineStringWhereANumberIsAllowed() throws {
        let bytes = KeyedArchive(top: ["root": .uid(ArchiveUID(1))], objects: [.string("$null"), .string("5")]).binaryPlist()
        let unarchiver = try KeyedUnarchiver(bytes: bytes)
        unarchiver.requiresSecureCoding = true
        #expect(throws: DecodingError.self) { try unarchiver.decodeObject(ofClasses: [Int.self], forKey: "root") }
        #expect(throws: DecodingError.self) { try unarchiver.decodeObject(forKey: "root") }
    }
}
