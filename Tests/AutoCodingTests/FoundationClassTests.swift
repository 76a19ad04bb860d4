import AutoCoding
import Foundation
import OrderedCollections
import Testing
import _AutoCodingTestSupport

@Suite("Foundation classes")
struct FoundationClassTests {
    // MARK: Swift values written with Apple's shapes

    @Test func geometryValuesRoundTripAsNSValue() throws {
        struct Shapes: Codable, Equatable {
            var range = ArchiveRange(location: 3, length: 9)
            var point = ArchivePoint(x: 1.5, y: -2)
            var size = ArchiveSize(width: 640, height: 480)
            var rect = ArchiveRect(x: 0.1, y: 0.2, width: 30, height: 40)
            var insets = ArchiveEdgeInsets(top: 1, left: 2, bottom: 3, right: 4)
        }
        let archive = try KeyedArchiveEncoder().encodeArchive(Shapes())
        #expect(archive.objects.contains(.string("{{0.1, 0.2}, {30, 40}}")))
        #expect(archive.objects.contains(.string("{1.5, -2}")))
        #expect(try KeyedArchiveDecoder().decode(Shapes.self, from: archive.binaryPlist()) == Shapes())
    }

    @Test func orderedSetsUseNumberedKeys() throws {
        let set: OrderedSet = ["b", "a", "c"]
        let archive = try KeyedArchiveEncoder().encodeArchive(set)
        let root = try #require(archive.rootUID)
        #expect(archive.archiveClass(of: root)?.name == "NSOrderedSet")
        #expect(archive[root]?["NS.object.2"] != nil)
        #expect(try KeyedArchiveDecoder().decode(OrderedSet<String>.self, from: archive.binaryPlist()) == set)
    }

    @Test func attributedStringsRoundTripWithTheirRuns() throws {
        let text = ArchiveAttributedString(
            string: "héllo world",
            runs: [.init(range: 0..<5, attributes: ["Bold": true]), .init(range: 5..<11, attributes: ["Size": 12.5])])
        let data = try KeyedArchiver.archivedData(withRootObject: text)
        let back = try #require(try KeyedUnarchiver(forReadingFrom: data).decodeObject(forKey: "root") as? ArchiveAttributedString)
        #expect(back.string == "héllo world")
        #expect(back.runs.map(\.range) == [0..<5, 5..<11])
        #expect(back.runs[0].attributes["Bold"] as? Bool == true)
        #expect(back.runs[1].attributes["Size"] as? Double == 12.5)
    }

    @Test func attributeInfoRejectsRunsOutsideTheText() throws {
        let archive = KeyedArchive(
            top: ["root": .uid(ArchiveUID(1))],
            objects: [
                .string("$null"),
                .dictionary(["NSString": .uid(ArchiveUID(2)), "NSAttributeInfo": .data([50, 0]), "NSAttributes": .uid(ArchiveUID(4)), "$class": .uid(ArchiveUID(3))]),
                .string("short"),
                .dictionary(["$classname": .string("NSAttributedString")]),
                .dictionary(["NS.keys": .array([]), "NS.objects": .array([]), "$class": .uid(ArchiveUID(5))]),
                .dictionary(["$classname": .string("NSDictionary")]),
            ])
        let unarchiver = try KeyedUnarchiver(bytes: archive.binaryPlist())
        #expect(throws: DecodingError.self) { try unarchiver.decodeObject(forKey: "root") }
    }

    // MARK: Archives made by Apple (shared corpus)

    @Test(.enabled(if: SharedCorpus.isAvailable, "needs ../shared/corpus"))
    func appleGeometryAndValueClassesDecode() throws {
        func root(_ name: String) throws -> Any? {
            try KeyedUnarchiver(bytes: SharedCorpus.bytes("apple", name)).decodeObject(forKey: "root")
        }
        #expect(try root("corelibs-foundation_NSKeyedUnarchiver-RangeTest.plist") as? ArchiveRange
            == ArchiveRange(location: 97_345, length: 98_345))
        #expect(try root("corelibs-foundation_NSKeyedUnarchiver-RectTest.plist") as? ArchiveRect
            == ArchiveRect(x: 400, y: 300, width: 200, height: 300))
        #expect(try root("corelibs-foundation_NSKeyedUnarchiver-EdgeInsetsTest.plist") as? ArchiveEdgeInsets
            == ArchiveEdgeInsets(top: 1, left: 2, bottom: 3, right: 4))
        #expect(try root("corelibs-foundation_NSKeyedUnarchiver-URLTest.plist") as? URL
            == URL(string: "foo.xml", relativeTo: URL(string: "https://www.example.com")))
        #expect(try root("corelibs-foundation_NSKeyedUnarchiver-UUIDTest.plist") as? UUID
            == UUID(uuidString: "0AD863BA-7584-40CF-8896-BD87B3280C34"))
        #expect(try root("corelibs-foundation_NSKeyedUnarchiver-ArrayTest.plist") as? [String] == ["baa", "baa", "black", "sheep"])
        #expect(try root("corelibs-foundation_macOS-10.14_NSOrderedSet-Numbers.archive") as? [Int] == [1, 2, 3, 4, 5])
        #expect((try root("corelibs-foundation_macOS-10.14_NSOrderedSet-Empty.archive") as? [Any])?.isEmpty == true)
        let text = try #require(try root("corelibs-foundation_macOS-10.14_NSAttributedString.archive") as? ArchiveAttributedString)
        #expect(text.string == "0123456789")
        #expect(text.runs.last?.range.upperBound == 10)
        let mutable = try #require(try root("corelibs-foundation_macOS-10.14_NSMutableAttributedString.archive") as? ArchiveAttributedString)
        #expect(mutable.isMutable && mutable.string == "0123456789")
    }

    @Test(.enabled(if: SharedCorpus.isAvailable, "needs ../shared/corpus"))
    func typedDecodingOfAppleArchives() throws {
        let decoder = KeyedArchiveDecoder()
        #expect(try decoder.decode([String].self, from: SharedCorpus.bytes("apple", "corelibs-foundation_NSKeyedUnarchiver-ArrayTest.plist"))
            == ["baa", "baa", "black", "sheep"])
        #expect(try decoder.decode(ArchiveRange.self, from: SharedCorpus.bytes("apple", "corelibs-foundation_NSKeyedUnarchiver-RangeTest.plist"))
            == ArchiveRange(location: 97_345, length: 98_345))
        #expect(try decoder.decode(Set<Int>.self, from: SharedCorpus.bytes("apple", "corelibs-foundation_macOS-10.14_NSSet-Numbers.archive")).count > 0)
        #expect(try decoder.decode(OrderedSet<Int>.self, from: SharedCorpus.bytes("apple", "corelibs-foundation_macOS-10.14_NSMutableOrderedSet-Numbers.archive"))
            == [1, 2, 3, 4, 5])
    }

    /// Every Apple archive decodes to a fully resolved value: Foundation classes to Swift values, the rest
    /// kept as `ArchivedObject`, and re-encodes to an equivalent graph.
    @Test(.enabled(if: SharedCorpus.isAvailable, "needs ../shared/corpus"), arguments: SharedCorpus.files(in: "apple"))
    func everyAppleArchiveDecodesDynamicallyAndRoundTrips(name: String) throws {
        let bytes = try SharedCorpus.bytes("apple", name)
        let unarchiver = try KeyedUnarchiver(bytes: bytes)
        let view = try KeyedArchiveView(bytes: bytes)
        for key in view.topKeys {
            _ = try unarchiver.decodeObject(forKey: key)
        }
        let graph = try ArchiveGraph(bytes: bytes)
        let again = graph.binaryPlist()
        #expect(try ArchiveGraph(bytes: again).isEquivalent(to: graph))
        // Within 5 % of Apple's size, or smaller (we unique every string and UID Apple's writer repeats).
        #expect(Double(again.count) <= Double(bytes.count) * 1.05)
    }
}
