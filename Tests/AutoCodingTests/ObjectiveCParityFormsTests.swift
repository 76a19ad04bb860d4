import AutoCoding
import Foundation
import Testing

/// A folder tree whose children point back to their parent conditionally (`encodeConditionalObject:`).
@AutoCoding
final class ParityFolder {
    var name = ""
    var children: [ParityFolder] = []
    @ArchiveAs(.conditional) weak var parent: ParityFolder?
}

/// `.conditional` on a value type, which has no identity to refer to.
@AutoCoding
final class ParityMisconditioned {
    @ArchiveAs(.conditional) var count = 0
}

@Suite("Objective-C parity: conditional references and dictionaryRepresentation")
struct ConditionalFormTests {
    static func tree() -> (parent: ParityFolder, child: ParityFolder) {
        let parent = ParityFolder()
        parent.name = "root"
        let child = ParityFolder()
        child.name = "leaf"
        child.parent = parent
        parent.children = [child]
        return (parent, child)
    }

    @Test func aConditionalPropertyIsNullWhenItsObjectIsNotArchivedElsewhere() throws {
        let (parent, child) = Self.tree()
        for data in [try KeyedArchiver.archivedData(withRootObject: child), try KeyedArchiveEncoder().encode(child)] {
            #expect(try rootFields(data)["parent"]?.isNull == true)
            // The parent is not dragged in: its name is nowhere in the archive.
            #expect(try KeyedArchive(bytes: [UInt8](data)).objects.contains(.string("root")) == false)
            let back = try KeyedArchiveDecoder().decode(ParityFolder.self, from: data)
            #expect(back.parent == nil && back.name == "leaf")
        }
        withExtendedLifetime(parent) {}
    }

    @Test func aConditionalPropertyReferencesItsObjectWhenArchivedElsewhere() throws {
        let (parent, _) = Self.tree()
        for data in [try KeyedArchiver.archivedData(withRootObject: parent), try KeyedArchiveEncoder().encode(parent)] {
            let back = try KeyedArchiveDecoder().decode(ParityFolder.self, from: data)
            #expect(back.children.count == 1)
            #expect(back.children.first?.parent === back)
        }
    }

    @Test func aConditionalReferenceWrittenBeforeItsObjectIsResolved() throws {
        // The child is archived first (as the root), the parent only later through `$top`'s second key.
        let (parent, child) = Self.tree()
        let archiver = KeyedArchiver()
        try archiver.encode(child, forKey: "root")
        try archiver.encode(parent, forKey: "parent")
        let unarchiver = try KeyedUnarchiver(forReadingFrom: try archiver.encodedData())
        let back = try #require(try unarchiver.decodeObject(of: ParityFolder.self, forKey: "root"))
        let backParent = try #require(try unarchiver.decodeObject(of: ParityFolder.self, forKey: "parent"))
        #expect(back.parent === backParent)
        #expect(backParent.children.first === back)
    }

    @Test func otherEncodersLeaveAConditionalReferenceOut() throws {
        // Written through JSONEncoder, the back reference would lead round the cycle for ever.
        let (parent, _) = Self.tree()
        let json = String(decoding: try JSONEncoder().encode(parent), as: UTF8.self)
        // Only the root's nil parent is written (as null); the child's reference to the root is left out.
        #expect(json.components(separatedBy: "\"parent\"").count == 2)
        #expect(json.contains("\"parent\":null") && json.contains("\"leaf\""))
    }

    @Test func conditionalOnAValueTypeIsAnEncodingError() {
        let message: String
        do {
            _ = try KeyedArchiveEncoder().encode(ParityMisconditioned())
            message = "no error"
        } catch let EncodingError.invalidValue(_, context) {
            message = context.debugDescription
        } catch {
            message = "\(error)"
        }
        #expect(message == "@ArchiveAs(.conditional) on a Int: it applies to class instances")
    }

    @Test func dictionaryRepresentationLeavesNilOut() {
        let (parent, child) = Self.tree()
        #expect(ParityFolder().dictionaryRepresentation.keys.sorted() == ["children", "name"])
        #expect(child.dictionaryRepresentation.keys.sorted() == ["children", "name", "parent"])
        #expect((child.dictionaryRepresentation["parent"] as? ParityFolder) === parent)
    }
}
