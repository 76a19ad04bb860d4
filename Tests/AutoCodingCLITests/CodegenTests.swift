#if canImport(_AutoCodingCommands)
import AutoCoding
import Foundation
import OrderedCollections
import Testing
import _AutoCodingTestSupport

@testable import AutoCodingCodegen
@testable import _AutoCodingCommands

/// `autocoding codegen` over the project's own sample archives. The generated models are committed beside this
/// file (`GeneratedSampleModels.swift`), so the test target compiles them with no extra build: the test checks
/// that codegen still writes exactly that file, then decodes every archive into the typed models and
/// re-encodes it to a graph-equal archive. (`scripts/codegen-corpus.sh` does the same for the real corpus in a
/// temporary package.)
@Suite("codegen")
struct CodegenTests {
    /// The sample archives the committed models come from: the kinds whose classes the Codable bridge wrote.
    static let archives = [
        "000000-people.plist", "000001-notes.plist", "000006-accounts.plist", "000007-chain.plist",
        "000008-people.plist", "000009-notes.plist", "000015-chain.plist",
    ]

    static let committed = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("GeneratedSampleModels.swift")

    static func graphs(in samples: TemporaryDirectory) throws -> [(name: String, graph: ArchiveGraph)] {
        try archives.map { ($0, try ArchiveGraph(contentsOf: samples.url.appendingPathComponent("archives/\($0)").path)) }
    }

    @Test func generatesTheCommittedModels() throws {
        let samples = try makeSamples(count: 16)
        let (text, notes) = Self.generate(try Self.graphs(in: samples))
        let committed = try String(contentsOf: Self.committed, encoding: .utf8)
        #expect(text == committed, "regenerate with: autocoding sample -o S --count 16 --rows 12; cd S/archives; autocoding codegen \(Self.archives.joined(separator: " ")) -o \(Self.committed.path)")
        #expect(notes.isEmpty, "\(notes)")
    }

    /// Every sample archive comes back graph-equal, including those with fields stored as `$null` (the chains'
    /// last `next`, an account's unarchived conditional `referrer`, `$null` as `nil` writes by default) and those with fields
    /// sometimes missing, which codegen marks `.omitWhenNil`.
    @Test func typedModelsRoundTripEverySampleArchive() throws {
        let samples = try makeSamples(count: 16)
        for (name, original) in try Self.graphs(in: samples) {
            let back = try ArchiveGraph(bytes: [UInt8](try GeneratedModels.reencode(Data(original.binaryPlist()))))
            #expect(back.isEquivalent(to: original), "\(name)")
        }
    }

    /// Forms are written where the instances stored a field other than its Swift type stores by default, and
    /// a field no single type or form reproduces keeps the archived value.
    @Test func writesTheFormsTheInstancesUsed() throws {
        func instance(_ fields: OrderedDictionary<String, ArchivedValue>) -> ArchivedValue {
            .object(ArchivedObject(className: "Thing", chain: ["Thing", "NSObject"], fields: fields))
        }
        let mutableArray = ArchiveClass(name: "NSMutableArray", chain: ["NSMutableArray", "NSArray", "NSObject"])
        let mutableData = ArchiveClass(name: "NSMutableData", chain: ["NSMutableData", "NSData", "NSObject"])
        func fields(count: Int64, tags: [String], color: [UInt8], owner: ArchivedValue, extra: ArchivedValue)
            -> OrderedDictionary<String, ArchivedValue>
        {
            [
                "count": .reference(.integer(count)),
                "tags": .object(ArchivedObject(archiveClass: mutableArray, fields: ["NS.objects": .array(tags.map { .reference(.string($0)) })])),
                "color": .object(ArchivedObject(archiveClass: mutableData, fields: ["NS.bytes": .inline(.data(color))])),
                "owner": owner, "extra": extra, "label": .inline(.string("x")),
            ]
        }
        let roots: OrderedDictionary<String, ArchivedValue> = [
            "a": instance(fields(count: 1, tags: ["x"], color: [1], owner: .null, extra: .reference(.string("s")))
                .merging(["ref": .null], uniquingKeysWith: { $1 })),
            "b": instance(fields(count: 2, tags: [], color: [2], owner: .reference(.string("o")), extra: .inline(.integer(3)))
                .merging(["ref": .reference(.string("r"))], uniquingKeysWith: { $1 })),
            "c": instance(fields(count: 3, tags: [], color: [3], owner: .null, extra: .null)),
        ]
        let (text, notes) = Self.generate([("things", ArchiveGraph(roots: roots))])
        #expect(text.contains("@ArchiveAs(.referenced) var count: Int = 0"))
        #expect(text.contains(#"@ArchiveAs(.archiveClass("NSMutableArray", "NSArray", "NSObject")) var tags: [String] = []"#))
        #expect(text.contains(#"@ArchiveAs(.archiveClass("NSMutableData", "NSData", "NSObject", valueKey: "NS.bytes")) var color: Data = Data()"#))
        #expect(text.contains("var owner: String? = nil"))
        #expect(!text.contains(".nullWhenNil"))
        #expect(text.contains("@ArchiveAs(.inline) var label: String = \"\""))
        #expect(text.contains("var extra: ArchivedValue = .null"))
        // `$null` in one instance and missing in another: a double optional keeps the two apart.
        #expect(text.contains("var ref: String?? = nil"))
        #expect(notes == ["Thing keeps an ArchivedValue: Thing.extra holds int and string"])
    }

    @Test func namesKeysThatAreNotIdentifiers() {
        #expect(ModelSource.identifier("NS.keys", capitalized: false) == "nsKeys")
        #expect(ModelSource.identifier("$0", capitalized: false) == "_0")
        #expect(ModelSource.identifier("class", capitalized: false) == "`class`")
        #expect(ModelSource.identifier("App.Foo-Bar", capitalized: true) == "AppFooBar")
        #expect(ModelSource.identifier("_UIName", capitalized: false) == "uIName")
    }

    /// Structure-aware `keyed` fuzz target (oracle time): 9,371 instances of a class whose `$classes` chain held
    /// 100 KB of strings made codegen hash the chain once per field, 1.9 s of CPU for a 294 KB archive. A field
    /// shape hashes its class by the name, so the chain's length no longer counts per field.
    @Test func aFieldShapeIsHashedWithoutItsClassChain() {
        let short = ArchiveClass(name: "App.Node", chain: ["App.Node"])
        let long = ArchiveClass(name: "App.Node", chain: ["App.Node", String(repeating: "é", count: 100_000)])
        #expect(FieldShape.instance(short, valueKey: nil).hashValue == FieldShape.instance(long, valueKey: nil).hashValue)
        #expect(FieldShape.instance(short, valueKey: nil) != FieldShape.instance(long, valueKey: nil))
        #expect(Set([FieldShape.instance(short, valueKey: nil), .instance(long, valueKey: nil), .inline]).count == 3)
    }

    private static func generate(_ graphs: [(name: String, graph: ArchiveGraph)]) -> (text: String, notes: [String]) {
        let output = ModelCodegen.generate(graphs)
        return (output.source, output.notes)
    }
}
#endif
