// The commands are the `_AutoCodingCommands` library; until the package declares it, these tests build empty.
#if canImport(_AutoCodingCommands)
import AutoCoding
import Foundation
import Testing
import _AutoCodingTestSupport

@testable import _AutoCodingCommands

/// The archives of the engine's fixtures, plus the Apple corpus when it is beside the package.
private func archivePaths() -> [String] {
    var paths = InputFiles.expand([Fixtures.directory.path]).filter { (try? ArchiveGraph(contentsOf: $0)) != nil }
    if SharedCorpus.isAvailable { paths += InputFiles.expand([SharedCorpus.directory.appendingPathComponent("apple").path]) }
    return paths
}

@Suite("json and encode")
struct JSONEncodeTests {
    @Test func fixturesHoldArchives() {
        #expect(archivePaths().count >= 15)
    }

    /// `encode(json(x))` is graph-equal to `x`, in process, for every fixture and corpus archive, both formats.
    @Test(arguments: archivePaths())
    func encodeOfJSONIsGraphEqual(_ path: String) throws {
        let original = try ArchiveGraph(contentsOf: path)
        let json = Array(original.json(prettyPrinted: true).utf8)
        #expect(Encode.isArchiveGraph(json))
        for format in ArchiveFile.Format.allCases {
            let bytes = try Encode.encode(json: json, format: format)
            let decoded = try ArchiveGraph(bytes: bytes)
            #expect(decoded.isEquivalent(to: original), "\(path) as \(format)")
        }
    }

    /// The same round trip through the executable: `json FILE > x.json; encode x.json -o y`.
    @Test(arguments: ["keyed-person-graph.bplist", "foundation-custom-node-graph.archive", "keyed-cfuid.xml"])
    func executableRoundTrip(_ name: String) throws {
        let directory = try TemporaryDirectory()
        let input = Fixtures.directory.appendingPathComponent(name).path
        let json = try CLI.run(["json", input])
        #expect(json.status == 0)
        try Data(json.stdout.utf8).write(to: URL(fileURLWithPath: directory.path("graph.json")))
        for format in ["binary", "xml"] {
            let output = directory.path("out-\(format).plist")
            let encoded = try CLI.run(["encode", directory.path("graph.json"), "-o", output, "--format", format])
            #expect(encoded.status == 0, "\(encoded.stderr)")
            #expect(try ArchiveGraph(contentsOf: output).isEquivalent(to: try ArchiveGraph(contentsOf: input)))
        }
    }

    @Test func encodesPlainPropertyLists() throws {
        let directory = try TemporaryDirectory()
        let input = Fixtures.directory.appendingPathComponent("plain-dict.bplist").path
        let json = try CLI.run(["json", "--compact", input])
        try Data(json.stdout.utf8).write(to: URL(fileURLWithPath: directory.path("plain.json")))
        let result = try CLI.run(["encode", directory.path("plain.json"), "-o", directory.path("plain.plist")])
        #expect(result.status == 0, "\(result.stderr)")
        let original = try ArchiveValue(propertyList: InputFiles.read(input))
        #expect(try ArchiveValue(propertyList: InputFiles.read(directory.path("plain.plist"))) == original)
    }

    @Test func rejectsJSONThatIsNotTheGraphForm() throws {
        let directory = try TemporaryDirectory()
        try Data(#"{"$archiver": "NSKeyedArchiver", "$top": {"root": {"$ref": 9}}}"#.utf8)
            .write(to: URL(fileURLWithPath: directory.path("bad.json")))
        let result = try CLI.run(["encode", directory.path("bad.json"), "-o", directory.path("out.plist")])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("error:"))
        #expect(!FileManager.default.fileExists(atPath: directory.path("out.plist")))
    }
}

@Suite("inspect, convert, validate and sample")
struct CommandTests {
    // MARK: inspect

    @Test func inspectMarksSharedAndCyclicReferences() throws {
        let samples = try makeSamples(count: 3, rows: 0)
        // Archive 2 is a ring of nodes sharing one palette: every node is reached again through `previous`.
        let result = try CLI.run(["inspect", samples.path("archives/000002-graph.plist")])
        #expect(result.status == 0)
        let lines = result.lines
        #expect(lines.first?.hasPrefix("NSKeyedArchiver, ") == true)
        #expect(lines.contains { $0.hasPrefix("root: Sample.Ring #") })
        #expect(lines.contains { $0.contains("↩︎ #") && $0.hasSuffix("Sample.Node") })
        #expect(lines.contains { $0.contains("↩︎ #") && $0.hasSuffix("Sample.Palette") })
        #expect(lines.contains { $0.contains("├─ ") || $0.contains("└─ ") })
    }

    @Test func inspectStopsAtTheGivenDepth() throws {
        let samples = try makeSamples(count: 8, rows: 0)
        let chain = samples.path("archives/000007-chain.plist")
        let full = try CLI.run(["inspect", chain])
        let shallow = try CLI.run(["inspect", "--depth", "2", chain])
        #expect(shallow.status == 0)
        #expect(shallow.lines.count < 10)
        #expect(shallow.stdout.contains("… "))
        #expect(full.lines.count > 100, "a chain of 50 or more links prints every link")
    }

    @Test func inspectCountsClasses() throws {
        let result = try CLI.run([
            "inspect", "--classes", Fixtures.directory.appendingPathComponent("keyed-person-graph.bplist").path,
        ])
        #expect(result.status == 0)
        #expect(result.lines.first?.hasSuffix("count  class") == true)
        #expect(result.lines.last?.contains("instances of") == true)
    }

    @Test func inspectPrintsPlainPropertyLists() throws {
        let result = try CLI.run(["inspect", Fixtures.directory.appendingPathComponent("plain-dict.bplist").path])
        #expect(result.status == 0)
        #expect(result.lines.first == "plain dictionary property list")
        let missing = try CLI.run(["inspect", "/nonexistent.plist"])
        #expect(missing.status == 1)
    }

    // MARK: convert

    @Test(arguments: ["keyed-person-graph.bplist", "keyed-cfuid.xml", "plain-dict.bplist", "plain-dict.xml"])
    func convertKeepsTheValue(_ name: String) throws {
        let directory = try TemporaryDirectory()
        let input = Fixtures.directory.appendingPathComponent(name).path
        let original = try ArchiveValue(propertyList: InputFiles.read(input))
        let xml = try CLI.run(["convert", "--to", "xml", input, "-o", directory.path("a.xml")])
        #expect(xml.status == 0, "\(xml.stderr)")
        let xmlBytes = try InputFiles.read(directory.path("a.xml"))
        #expect(ArchiveFormat.detect(xmlBytes) == .xmlPlist)
        let binary = try CLI.run([
            "convert", "--to", "binary", directory.path("a.xml"), "-o", directory.path("b.plist"),
        ])
        #expect(binary.status == 0)
        let binaryBytes = try InputFiles.read(directory.path("b.plist"))
        #expect(ArchiveFormat.detect(binaryBytes) == .binaryPlist)
        #expect(try ArchiveValue(propertyList: binaryBytes) == original)
    }

    @Test func convertRefusesDamagedArchives() throws {
        let samples = try makeSamples(count: 0, rows: 0)
        let result = try CLI.run([
            "convert", "--to", "xml", samples.path("other/bad-uid.plist"), "-o", samples.path("x.xml"),
        ])
        #expect(result.status == 1)
        #expect(result.stderr.contains("UID"))
    }

    // MARK: validate --json

    @Test func validatePrintsJSONRecords() throws {
        let samples = try makeSamples(count: 2, rows: 0)
        let result = try CLI.run(["validate", "--json", samples.path("archives"), samples.path("other/bad-uid.plist")])
        #expect(result.status == 1)
        let records = try result.records()
        try #require(records.count == 3)
        #expect(records[0]["ok"] as? Bool == true)
        #expect((records[0]["summary"] as? String)?.hasPrefix("keyed NSKeyedArchiver") == true)
        let error = try #require(records[2]["error"] as? [String: Any])
        #expect(error["code"] as? String == "invalidUID")
        #expect(result.stderr.contains("2 passed, 1 failed"))
    }

    // MARK: sample

    @Test func sampleIsDeterministic() throws {
        let generator = SampleGenerator(seed: 1)
        for index in 0..<16 {
            #expect(try generator.archive(index) == generator.archive(index))
        }
        #expect(try SampleGenerator(seed: 2).archive(0) != generator.archive(0))
        let first = try makeSamples(count: 10, rows: 5)
        let second = try makeSamples(count: 10, rows: 5)
        for name in try FileManager.default.contentsOfDirectory(atPath: first.path("archives")) + ["../messages.db"] {
            let a = try InputFiles.read(first.path("archives/" + name))
            let b = try InputFiles.read(second.path("archives/" + name))
            #expect(a == b, "\(name)")
        }
    }

    @Test func sampleWritesEveryKindAndRefusesToOverwrite() throws {
        let samples = try makeSamples(count: 16, rows: 3)
        let names = try FileManager.default.contentsOfDirectory(atPath: samples.path("archives"))
        for kind in SampleGenerator.Kind.allCases {
            #expect(names.contains { $0.hasSuffix("-\(kind.rawValue).plist") }, "\(kind)")
        }
        let again = try CLI.run(["sample", "-o", samples.url.path, "--count", "1"])
        #expect(again.status == 2)
        let forced = try CLI.run(["sample", "-o", samples.url.path, "--count", "1", "--rows", "1", "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: samples.path("archives")).count == 1)
    }
}
#endif
