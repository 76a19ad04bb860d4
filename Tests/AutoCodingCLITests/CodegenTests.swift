#if canImport(_AutoCodingCommands)
import AutoCoding
import Foundation
import Testing

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
        let (text, notes) = Codegen.generate(try Self.graphs(in: samples))
        let committed = try String(contentsOf: Self.committed, encoding: .utf8)
        #expect(text == committed, "regenerate with: autocoding sample -o S --count 16 --rows 12; cd S/archives; autocoding codegen \(Self.archives.joined(separator: " ")) -o \(Self.committed.path)")
        #expect(notes.isEmpty, "\(notes)")
    }

    /// Archives with a field stored as `$null` (the chains' last `next`, an account's unarchived conditional
    /// `referrer`): a Swift optional that is nil is not written, so they come back without those keys.
    static let withNullFields: Set<String> = ["000006-accounts.plist", "000007-chain.plist", "000015-chain.plist"]

    @Test func typedModelsRoundTripEverySampleArchive() throws {
        let samples = try makeSamples(count: 16)
        for (name, original) in try Self.graphs(in: samples) {
            let again = try #require(try GeneratedModels.reencode(Data(original.binaryPlist())), "\(name)")
            let back = try ArchiveGraph(bytes: [UInt8](again))
            guard Self.withNullFields.contains(name) else {
                #expect(back.isEquivalent(to: original), "\(name)")
                continue
            }
            #expect(!back.isEquivalent(to: original), "\(name)")
            // Without its `$null` fields, the archive is graph-equal to its typed round trip.
            Self.removeNullFields(original)
            #expect(back.isEquivalent(to: original), "\(name)")
        }
    }

    /// Removes every field stored as `$null` from the objects of `graph` (a worklist: graphs have cycles).
    static func removeNullFields(_ graph: ArchiveGraph) {
        var seen = Set<ObjectIdentifier>()
        var work = graph.roots.values.compactMap(\.object)
        func visit(_ value: ArchivedValue) {
            switch value {
            case .object(let object): work.append(object)
            case .array(let values): values.forEach(visit)
            case .dictionary(let entries): entries.values.forEach(visit)
            default: break
            }
        }
        while let object = work.popLast() {
            guard seen.insert(ObjectIdentifier(object)).inserted else { continue }
            object.fields = object.fields.filter { if case .null = $0.value { false } else { true } }
            object.fields.values.forEach(visit)
        }
    }

    @Test func namesKeysThatAreNotIdentifiers() {
        #expect(ModelSource.identifier("NS.keys", capitalized: false) == "nsKeys")
        #expect(ModelSource.identifier("$0", capitalized: false) == "_0")
        #expect(ModelSource.identifier("class", capitalized: false) == "`class`")
        #expect(ModelSource.identifier("App.Foo-Bar", capitalized: true) == "AppFooBar")
        #expect(ModelSource.identifier("_UIName", capitalized: false) == "uIName")
    }
}
#endif
