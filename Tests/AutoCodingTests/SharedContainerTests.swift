import AutoCoding
import AutoCodingFast
import Foundation
import Testing

/// `KeyedUnarchiver.decodeObject(forKey:)` decodes a shared `NSArray` or `NSDictionary` once, as Apple's
/// unarchiver makes one object of it, whatever the number of entries that refer to it.
@Suite("Objective-C parity: a shared container decodes once without a static type")
struct SharedContainerTests {
    static let nsArray: ArchiveValue = .dictionary([
        "$classname": .string("NSArray"), "$classes": .array([.string("NSArray"), .string("NSObject")]),
    ])

    /// A thousand references to one list of a thousand strings: a million values as copies, which the expansion
    /// budget refuses in a typed decode, and one list to `decodeObject(forKey:)`, as to corelibs.
    @Test func aListSharedAThousandTimesDecodesOnce() throws {
        let bytes = TypedExpansionTests.listOfOneSharedList(count: 1000)
        let root = try #require(try KeyedUnarchiver(bytes: bytes).decodeObject(forKey: "root") as? [Any])
        #expect(root.count == 1000)
        let lists = root.compactMap { $0 as? [Any] }
        #expect(lists.count == 1000 && lists.allSatisfy { $0.count == 1000 && $0.first as? String == "shared" })
        // corelibs decodes it too (one NSArray of the shared list, which its bridging to Swift hides).
        let foundation = try NSKeyedUnarchiver(forReadingFrom: Data(bytes))
        foundation.requiresSecureCoding = false
        let nsRoot = try #require(foundation.decodeObject(forKey: "root") as? [Any])
        #expect(nsRoot.count == 1000 && nsRoot.allSatisfy { ($0 as? [Any])?.count == 1000 })
        // The typed decoders still decode a copy per reference, within their budget.
        #expect(throws: DecodingError.self) { _ = try KeyedArchiveDecoder().decode([[String]].self, from: bytes) }
    }

    /// Secure decoding checks every reference with its own call's classes, so it never takes a list remembered
    /// by an unchecked call.
    @Test func secureDecodingChecksASharedListAgain() throws {
        let objects: [ArchiveValue] = [
            .string("$null"),
            .dictionary(["$class": .uid(ArchiveUID(4)), "NS.objects": .array([.uid(ArchiveUID(2)), .uid(ArchiveUID(3))])]),
            .string("x"), .string("y"), Self.nsArray,
        ]
        let bytes = KeyedArchive(top: ["a": .uid(ArchiveUID(1)), "b": .uid(ArchiveUID(1))], objects: objects).binaryPlist()
        let unarchiver = try KeyedUnarchiver(bytes: bytes)
        #expect(try unarchiver.decodeObject(forKey: "a") as? [String] == ["x", "y"])
        #expect(throws: DecodingError.self) { try unarchiver.decodeObject(ofClasses: [[Int].self, Int.self], forKey: "b") }
        #expect(try unarchiver.decodeObject(ofClasses: [[String].self, String.self], forKey: "b") as? [String] == ["x", "y"])
        #expect(try unarchiver.decodeObject(forKey: "b") as? [String] == ["x", "y"])
    }

    /// A call that throws forgets the lists it decoded, as it forgets the instances it registered: a later call
    /// decodes them again and hands out what they hold (an object of an unknown class kept whole).
    @Test func aFailedCallForgetsTheListsItDecoded() throws {
        let unknown: ArchiveValue = .dictionary([
            "$classname": .string("Unknown"), "$classes": .array([.string("Unknown"), .string("NSObject")]),
        ])
        let objects: [ArchiveValue] = [
            .string("$null"),
            // "bad": the shared list, then a C array whose count lies (a valid file, refused by the decode).
            .dictionary(["$class": .uid(ArchiveUID(5)), "NS.objects": .array([.uid(ArchiveUID(2)), .uid(ArchiveUID(6))])]),
            .dictionary(["$class": .uid(ArchiveUID(5)), "NS.objects": .array([.uid(ArchiveUID(3))])]),
            .dictionary(["$class": .uid(ArchiveUID(4)), "name": .uid(ArchiveUID(7))]),
            unknown, Self.nsArray,
            .dictionary(["$class": .uid(ArchiveUID(8)), "NS.count": .integer(2), "$0": .integer(1)]),
            .string("kept"),
            .dictionary([
                "$classname": .string("_NSKeyedCoderOldStyleArray"),
                "$classes": .array([.string("_NSKeyedCoderOldStyleArray"), .string("NSObject")]),
            ]),
        ]
        let bytes = KeyedArchive(top: ["bad": .uid(ArchiveUID(1)), "good": .uid(ArchiveUID(2))], objects: objects)
            .binaryPlist()
        var kept: ArchivedObject?
        do {
            let unarchiver = try KeyedUnarchiver(bytes: bytes)
            #expect(throws: (any Error).self) { try unarchiver.decodeObject(forKey: "bad") }
            let good = try #require(try unarchiver.decodeObject(forKey: "good") as? [Any])
            kept = good.first as? ArchivedObject
        }
        // The unarchiver is gone, and with it what no call handed out (emptied, for its cycles).
        #expect(kept?.className == "Unknown")
        #expect(kept?.fields["name"]?.string == "kept")
    }
}
