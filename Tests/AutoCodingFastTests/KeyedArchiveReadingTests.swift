import Foundation
import OrderedCollections
import Testing
import _AutoCodingTestSupport

@testable import AutoCodingFast

/// Reading the committed fixtures: the values `scripts/make-fixtures.py` and
/// `scripts/make-foundation-fixtures.swift` wrote, `$top` keys, class chains, and every scalar kind.
@Suite("KeyedArchive reading")
struct KeyedArchiveReadingTests {
    static func uid(_ n: UInt32) -> ArchiveValue { .uid(ArchiveUID(n)) }

    /// The element UIDs of an `NS.objects` array, resolved to their objects.
    static func members(of object: ArchiveValue?, in archive: KeyedArchive) -> [ArchiveValue] {
        guard case .array(let refs)? = object?["NS.objects"] else { return [] }
        return refs.compactMap { $0.uidValue.flatMap { archive[$0] } }
    }

    // MARK: Object graphs

    @Test func readsThePersonGraphWithSharedReferencesAndACycle() throws {
        let archive = try Fixtures.archive("keyed-person-graph.bplist")
        #expect(archive.archiver == "NSKeyedArchiver")
        #expect(archive.version == 100_000)
        #expect(Array(archive.top.keys) == ["root"])
        #expect(archive.rootUID == ArchiveUID(1))
        #expect(archive.objects.count == 15)
        #expect(archive[.null] == .string("$null"))

        let alice = try #require(archive[ArchiveUID(1)])
        #expect(alice["name"] == Self.uid(2))
        #expect(archive[ArchiveUID(2)] == .string("Alice"))
        #expect(alice["age"] == .integer(30))
        // Alice and Bob are each other's spouse: a cycle through UIDs, which the archive format allows.
        #expect(alice["spouse"] == Self.uid(3))
        #expect(archive[ArchiveUID(3)]?["spouse"] == Self.uid(1))
        // One Address object, referred to by all three people.
        #expect(alice["home"] == Self.uid(4))
        #expect(archive[ArchiveUID(3)]?["home"] == Self.uid(4))
        #expect(archive[ArchiveUID(11)]?["home"] == Self.uid(4))
        #expect(archive[ArchiveUID(4)]?["number"] == .integer(12))
        // Bob has no friends: UID 0 is $null.
        #expect(archive[ArchiveUID(3)]?["friends"] == Self.uid(0))
        let friends = Self.members(of: archive[ArchiveUID(9)], in: archive)
        #expect(friends.compactMap { $0["name"]?.uidValue.flatMap { archive[$0]?.stringValue } } == ["Bob", "Carol"])
    }

    @Test func readsClassChainsOfEveryLength() throws {
        let archive = try Fixtures.archive("keyed-person-graph.bplist")
        #expect(
            archive.archiveClass(of: ArchiveUID(1))
                == ArchiveClass(name: "AC.Person", chain: ["AC.Person", "NSObject"])
        )
        #expect(archive.archiveClass(of: ArchiveUID(4))?.name == "AC.Address")
        #expect(
            archive.archiveClass(of: ArchiveUID(9)) == ArchiveClass(name: "NSArray", chain: ["NSArray", "NSObject"])
        )
        #expect(archive.archiveClass(of: ArchiveUID(11))?.chain == ["AC.Employee", "AC.Person", "NSObject"])
        // Strings, descriptors themselves, $null and UIDs out of range have no class.
        #expect(archive.archiveClass(of: ArchiveUID(2)) == nil)
        #expect(archive.archiveClass(of: ArchiveUID(6)) == nil)
        #expect(archive.archiveClass(of: .null) == nil)
        #expect(archive.archiveClass(of: ArchiveUID(15)) == nil)
        #expect(archive.isClassDescriptor(ArchiveUID(6)))
        #expect(archive.isClassDescriptor(ArchiveUID(13)))
        #expect(!archive.isClassDescriptor(ArchiveUID(1)))
    }

    @Test func readsUIDsNestedInsideArraysAndDictionariesOfAnObject() throws {
        let archive = try Fixtures.archive("keyed-nested-uid-containers.bplist")
        let object = try #require(archive[ArchiveUID(1)])
        #expect(object["matrix"] == .array([.array([Self.uid(3), Self.uid(4)]), .array([Self.uid(5)]), .array([])]))
        #expect(
            object["lookup"]
                == .dictionary([
                    "a": Self.uid(3), "b": .dictionary(["c": Self.uid(4), "d": .array([Self.uid(5), Self.uid(0)])]),
                ])
        )
        #expect(
            object["mixed"]
                == .array([
                    .integer(1), .string("two"), Self.uid(3), .dictionary(["k": Self.uid(4)]),
                    .array([.array([.array([Self.uid(5)])])]),
                ])
        )
        #expect(archive.archiveClass(of: ArchiveUID(1))?.name == "AC.Container")
    }

    // MARK: $top

    @Test func readsTopWithRootAndNumberedKeysInFileOrder() throws {
        let archive = try Fixtures.archive("keyed-top-multiple-roots.bplist")
        #expect(Array(archive.top.keys) == ["root", "$0", "$1", "$2"])
        #expect(archive.rootUID == ArchiveUID(1))
        #expect(archive.top["$0"] == Self.uid(4))
        #expect(archive[ArchiveUID(4)] == .string("second"))
        #expect(archive[ArchiveUID(5)] == .integer(17))
        // A scalar stored inline in $top, as nibs do.
        #expect(archive.top["$2"] == .bool(true))
        #expect(archive.archiveClass(of: ArchiveUID(1))?.chain == ["NSMutableString", "NSString", "NSObject"])
    }

    @Test func usesTheOnlyTopEntryAsRootWhenItIsNotCalledRoot() throws {
        let archive = try Fixtures.archive("keyed-top-non-root-key.bplist")
        #expect(Array(archive.top.keys) == ["payload"])
        #expect(archive.rootUID == ArchiveUID(1))
        #expect(archive[ArchiveUID(3)] == .string("payload string"))
    }

    @Test func hasNoRootWhenSeveralTopEntriesAndNoneIsRoot() {
        let archive = KeyedArchive(
            top: ["$0": Self.uid(1), "$1": Self.uid(1)],
            objects: [.string("$null"), .string("x")]
        )
        #expect(archive.rootUID == nil)
        let scalarRoot = KeyedArchive(top: ["root": .integer(3)], objects: [.string("$null")])
        #expect(scalarRoot.rootUID == nil)
    }

    // MARK: Foundation classes

    @Test func readsNSDictionaryKeysAndObjects() throws {
        let archive = try Fixtures.archive("keyed-nsdictionary.bplist")
        let root = try #require(archive.rootUID.flatMap { archive[$0] })
        #expect(archive.archiveClass(of: ArchiveUID(1))?.name == "NSDictionary")
        guard case .array(let keys)? = root["NS.keys"], case .array(let values)? = root["NS.objects"] else {
            Issue.record("NS.keys / NS.objects missing in \(root)")
            return
        }
        let resolvedKeys = keys.compactMap { $0.uidValue.flatMap { archive[$0]?.stringValue } }
        let resolvedValues = values.compactMap { $0.uidValue.flatMap { archive[$0] } }
        #expect(resolvedKeys == ["name", "count", "ratio"])
        #expect(resolvedValues == [.string("widget"), .integer(3), .real(0.25)])
    }

    @Test func readsNSDateTimes() throws {
        let archive = try Fixtures.archive("keyed-nsdate.bplist")
        let dates = Self.members(of: archive[ArchiveUID(1)], in: archive)
        #expect(dates.map { $0["NS.time"] } == [.real(700_000_000.5), .real(-978_307_200)])
        #expect(archive.archiveClass(of: ArchiveUID(2))?.name == "NSDate")
    }

    @Test func readsNSDataPayloads() throws {
        let archive = try Fixtures.archive("keyed-nsdata.bplist")
        let data = Self.members(of: archive[ArchiveUID(1)], in: archive).map { $0["NS.data"] }
        #expect(data == [.data([0xDE, 0xAD, 0xBE, 0xEF]), .data([]), .data((0..<300).map { UInt8($0 % 256) })])
    }

    // MARK: Scalars

    static let unicodeStrings = [
        "", "plain ASCII", "café", "日本語テキスト", "👍🏽", "𝄞 clef", "e\u{301}", "\u{FEFF}BOM-led",
        String(repeating: "x", count: 20), String(repeating: "é", count: 20),
    ]

    @Test func readsASCIIAndUTF16StringsScalarForScalar() throws {
        let archive = try Fixtures.archive("keyed-unicode-strings.bplist")
        let strings = Self.members(of: archive[ArchiveUID(1)], in: archive).compactMap(\.stringValue)
        #expect(strings.count == Self.unicodeStrings.count)
        for (read, expected) in zip(strings, Self.unicodeStrings) {
            // Scalars, not ==: "e\u{301}" must not come back as "é".
            #expect(Array(read.unicodeScalars) == Array(expected.unicodeScalars))
            #expect(read.utf16.count == expected.utf16.count)
        }
    }

    @Test func readsIntegersOfOneToSixteenBytes() throws {
        let archive = try Fixtures.archive("keyed-integers.bplist")
        let integers = Self.members(of: archive[ArchiveUID(1)], in: archive)
        #expect(
            integers == [
                .integer(0), .integer(255), .integer(256), .integer(65_535), .integer(65_536), .integer(4_294_967_295),
                .integer(4_294_967_296), .integer(.max), .integer(-1), .integer(.min),
                .unsignedInteger(1 << 63), .unsignedInteger(.max),
            ]
        )
        #expect(integers.last?.int64Value == nil)
        #expect(integers.first?.int64Value == 0)
    }

    @Test func readsRealsBitForBitAndBooleans() throws {
        let archive = try Fixtures.archive("keyed-reals-bools.bplist")
        let object = try #require(archive[ArchiveUID(1)])
        guard case .array(let refs)? = object["reals"] else {
            Issue.record("no reals array in \(object)")
            return
        }
        let reals = refs.compactMap { ref -> Double? in
            guard let uid = ref.uidValue, case .real(let d)? = archive[uid] else { return nil }
            return d
        }
        let expected = [1.5, -0.0, 3.141592653589793, 1e308, .leastNonzeroMagnitude, .infinity, -.infinity]
        #expect(reals.map(\.bitPattern) == expected.map(\.bitPattern))
        #expect(object["yes"] == .bool(true))
        #expect(object["no"] == .bool(false))
    }

    // MARK: XML archives

    @Test func readsAnXMLArchiveWithCFUIDDictionaries() throws {
        let archive = try Fixtures.archive("keyed-cfuid.xml")
        #expect(archive.rootUID == ArchiveUID(1))
        #expect(archive[ArchiveUID(1)]?["$class"] == Self.uid(4))
        #expect(archive[ArchiveUID(1)]?["NS.keys"] == .array([Self.uid(2)]))
        #expect(archive[ArchiveUID(3)] == .string("héllo wörld"))
        #expect(
            archive.archiveClass(of: ArchiveUID(1))
                == ArchiveClass(name: "NSDictionary", chain: ["NSDictionary", "NSObject"])
        )
    }

    @Test(arguments: Fixtures.keyed)
    func readsTheSameArchiveFromItsBinaryAndXMLForms(fixture: String) throws {
        let archive = try Fixtures.archive(fixture)
        let fromBinary = try KeyedArchive(bytes: archive.binaryPlist())
        let fromXML = try KeyedArchive(bytes: archive.xmlPlist())
        #expect(fromBinary == archive)
        #expect(fromXML.propertyList.firstDifference(from: archive.propertyList.withWholeSecondDates) == nil)
    }

    // MARK: Plain property lists

    @Test(arguments: [
        ("plain-scalar-true.bplist", ArchiveValue.bool(true)),
        ("plain-scalar-false.bplist", .bool(false)),
        ("plain-scalar-int.bplist", .integer(123_456)),
        ("plain-scalar-negative-int.bplist", .integer(-9)),
        ("plain-scalar-uint64-max.bplist", .unsignedInteger(.max)),
        ("plain-scalar-real.bplist", .real(0.1)),
        ("plain-scalar-float32.bplist", .real(1.5)),
        ("plain-scalar-date.bplist", .date(Date(timeIntervalSinceReferenceDate: 700_000_000))),
        ("plain-scalar-data.bplist", .data(Array("bytes".utf8) + [0x00, 0x80])),
        ("plain-scalar-ascii-string.bplist", .string("ascii")),
        ("plain-scalar-utf16-string.bplist", .string("ünïcödé")),
        ("plain-scalar-empty-string.bplist", .string("")),
        ("plain-scalar-uid.bplist", .uid(ArchiveUID(7))),
    ])
    func readsEachScalarAtTheRoot(fixture: String, expected: ArchiveValue) throws {
        #expect(try Fixtures.value(fixture) == expected)
    }

    @Test(arguments: ["plain-dict.bplist", "plain-dict.xml"])
    func readsAPlainDictionaryOfEveryType(fixture: String) throws {
        let value = try Fixtures.value(fixture)
        #expect(
            value.dictionaryValue.map { Array($0.keys) } == [
                "string", "unicode", "int", "negative", "big", "real", "true", "false", "date", "data", "array",
                "nested", "empty array", "empty dict",
            ]
        )
        #expect(value["unicode"] == .string("grüße 🌍"))
        #expect(value["negative"] == .integer(-42))
        #expect(value["big"] == .unsignedInteger(.max))
        #expect(value["date"] == .date(Date(timeIntervalSinceReferenceDate: 86_400)))
        #expect(value["data"] == .data([0x00, 0x01, 0x02, 0xFF]))
        #expect(value["nested"]?["inner"]?["deeper"] == .array([.string("x")]))
        #expect(value["empty dict"] == .dictionary([:]))
    }

    @Test func readsAPlainArrayWithASharedContainer() throws {
        let value = try Fixtures.value("plain-array.bplist")
        let elements = try #require(value.arrayValue)
        #expect(elements.count == 5)
        #expect(elements[0] == .array((0..<20).map { .integer(Int64($0)) }))
        #expect(elements[1] == .array([.string("shared"), .string("container")]))
        #expect(elements[2] == elements[1])
        #expect(elements[4] == .string(String(repeating: "z", count: 15)))
        // The file stores the shared list once.
        #expect(try BPlistTrailer(try Fixtures.bytes("plain-array.bplist")).objectCount < 40)
    }

    // MARK: Foundation-written archives

    @Test func readsACustomCodingClassGraphWithSharedNodes() throws {
        let archive = try Fixtures.archive("foundation-custom-node-graph.archive")
        let root = try #require(archive.rootUID.flatMap { archive[$0] })
        #expect(
            archive.archiveClass(of: archive.rootUID!)
                == ArchiveClass(name: "main.Node", chain: ["main.Node", "NSObject"])
        )
        #expect(root["count"] == .integer(3))
        let children = try #require(root["children"]?.uidValue.flatMap { archive[$0]?["NS.objects"]?.arrayValue })
        // [leaf1, leaf2, leaf1]: the first and last children are one object.
        #expect(children.count == 3)
        #expect(children[0] == children[2])
        #expect(children[0] != children[1])
        // Every node's tag is the one shared "tag" node.
        let tags = children.compactMap { $0.uidValue.flatMap { archive[$0]?["tag"] } }
        #expect(Set(tags + [root["tag"]!]).count == 1)
    }

    @Test func readsFoundationNumbersIncludingUInt64Max() throws {
        let archive = try Fixtures.archive("foundation-nsnumber-array.archive")
        let numbers = Self.members(of: archive[ArchiveUID(1)], in: archive)
        #expect(
            numbers == [
                .integer(0), .integer(-1), .integer(.max), .integer(.min), .unsignedInteger(.max), .real(2.5),
                .bool(true), .real(0.5),
            ]
        )
    }

    @Test func readsFoundationScalarsAndValueClasses() throws {
        #expect(try Fixtures.archive("foundation-nsstring.archive")[ArchiveUID(1)] == .string("héllo, 世界 👋"))
        #expect(try Fixtures.archive("foundation-nsdata.archive")[ArchiveUID(1)] == .data([0xDE, 0xAD, 0xBE, 0xEF]))
        let date = try Fixtures.archive("foundation-nsdate.archive")
        #expect(date[ArchiveUID(1)]?["NS.time"] == .real(730_900_800))
        let uuid = try Fixtures.archive("foundation-nsuuid.archive")
        #expect(uuid.archiveClass(of: ArchiveUID(1))?.name == "NSUUID")
        #expect(
            uuid[ArchiveUID(1)]?["NS.uuidbytes"]
                == .data(Array(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!.uuidBytesArray))
        )
        let url = try Fixtures.archive("foundation-nsurl.archive")
        #expect(url[ArchiveUID(1)]?["NS.base"] == Self.uid(0))
        #expect(
            url[ArchiveUID(1)]?["NS.relative"]?.uidValue.flatMap { url[$0] } == .string("https://example.com/path?q=1")
        )
    }

    @Test func readsSharedStringsInFoundationArchivesAsOneObject() throws {
        let archive = try Fixtures.archive("foundation-nsarray-shared.archive")
        #expect(archive[ArchiveUID(1)]?["NS.objects"] == .array([Self.uid(2), Self.uid(2), Self.uid(3)]))
        #expect(archive[ArchiveUID(2)] == .string("shared"))
        let mixed = try Fixtures.archive("foundation-mixed-graph.archive")
        let shared = mixed.objects.indices.filter { mixed.objects[$0] == .string("shared") }
        #expect(shared.count == 1)
    }
}

extension UUID {
    /// The 16 bytes of the UUID.
    fileprivate var uuidBytesArray: [UInt8] {
        withUnsafeBytes(of: uuid) { Array($0) }
    }
}
