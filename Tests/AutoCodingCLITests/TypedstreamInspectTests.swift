// The commands are the `_AutoCodingCommands` library; until the package declares it, these tests build empty.
#if canImport(_AutoCodingCommands)
import AutoCoding
import Foundation
import Testing
import _AutoCodingTestSupport

@testable import _AutoCodingCommands

/// Typedstreams on par with keyed archives: the Foundation-aware `inspect` tree, `convert --to xml|binary|keyed`,
/// and `inspect --dot` for both kinds of archive, on streams the tests build at the object level.
@Suite("typedstream inspect, convert and dot")
struct TypedstreamInspectTests {
    static func bytes(_ root: TypedObject) -> [UInt8] {
        let archiver = TypedstreamArchiver()
        archiver.encodeObject(root)
        return archiver.archivedBytes()
    }

    /// `{"name": "Priya", "count": 3, "tags": ["a", "b"], "again": <the same "Priya" object>}`.
    static func dictionary() -> TypedObject {
        let name = TypedObject.string("Priya")
        let tags = TypedObject.array([.object(.string("a")), .object(.string("b"))])
        return .dictionary([
            (.object(.string("name")), .object(name)),
            (.object(.string("count")), .object(.number(Int64(3)))),
            (.object(.string("tags")), .object(tags)),
            (.object(.string("again")), .object(name)),
        ])
    }

    /// An NSMutableArray that contains itself.
    static func cycle() -> TypedObject {
        let array = TypedObject.array([.nil], mutable: true)
        array.groups[1] = TypedGroup(encoding: "@", values: [.object(array)])
        return array
    }

    /// Arrays nested `depth` deep.
    static func nested(_ depth: Int) -> TypedObject {
        var inner = TypedObject.array([])
        for _ in 0..<depth { inner = TypedObject.array([.object(inner)]) }
        return inner
    }

    static func file(_ directory: TemporaryDirectory, _ name: String, _ bytes: [UInt8]) throws -> String {
        let path = directory.path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    // MARK: inspect

    @Test func inspectPrintsFoundationValuesAndBackReferences() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.file(directory, "dict.typedstream", Self.bytes(Self.dictionary()))
        let result = try CLI.run(["inspect", path])
        #expect(result.status == 0, "\(result.stderr)")
        let out = result.stdout
        #expect(out.hasPrefix("typedstream (NSArchiver), "))
        #expect(out.contains("[0]: NSDictionary #0, 4 entries"))
        #expect(out.contains("├─ \"name\": NSString #2 \"Priya\""), "\(out)")
        #expect(out.contains("\"count\": NSNumber #4 3"), "\(out)")
        #expect(out.contains("\"tags\": NSArray #6, 2 elements"), "\(out)")
        #expect(out.contains("│  ├─ [0]: NSString #7 \"a\""), "\(out)")
        #expect(out.contains("└─ \"again\": ↩︎ #2 NSString"), "\(out)")
        #expect(!out.contains("b'"), "no raw event dump")
    }

    @Test func inspectHonoursDepthAndClasses() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.file(directory, "dict.typedstream", Self.bytes(Self.dictionary()))
        let shallow = try CLI.run(["inspect", "--depth", "0", path])
        #expect(shallow.status == 0)
        #expect(shallow.lines == [shallow.lines[0], "[0]: NSDictionary #0, 4 entries", "└─ … 4 more"])
        let classes = try CLI.run(["inspect", "--classes", path])
        #expect(classes.status == 0)
        #expect(classes.stdout.contains("    7  NSString  (NSString → NSObject)"), "\(classes.stdout)")
        #expect(classes.stdout.contains("    1  NSDictionary"))
        #expect(classes.stdout.contains("10  objects of 4 classes"), "\(classes.stdout)")
    }

    @Test func inspectShowsAnAttributedStringsTextAndRuns() throws {
        let directory = try TemporaryDirectory()
        let body = SampleGenerator.attributedBody([("Hello ", []), ("there", [(IMessageText.Key.link, .string("x"))])])
        let path = try Self.file(directory, "body.typedstream", body)
        let result = try CLI.run(["inspect", path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("[0]: NSMutableAttributedString #0 \"Hello there\", 2 runs"), "\(result.stdout)")
        #expect(result.stdout.contains("run 0 @0+6: NSDictionary"))
        #expect(result.stdout.contains("run 1 @6+5: NSDictionary"))
        #expect(result.stdout.contains("\"__kIMMessagePartAttributeName\": NSNumber"))
    }

    @Test func inspectEscapesTextAndShowsCyclesAndUnknownClasses() throws {
        let directory = try TemporaryDirectory()
        let thing = TypedObject(
            classes: [TypedClass("MyThing", version: 2), TypedClass("NSObject", version: 0)],
            groups: [TypedGroup(encoding: "i@", values: [.signed(5, type: UInt8(ascii: "i")), .object(.string("\u{1B}[2Jx\u{9B}"))])]
        )
        let root = TypedObject.array([.object(Self.cycle()), .object(thing)])
        let result = try CLI.run(["inspect", try Self.file(directory, "odd.typedstream", Self.bytes(root))])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x9B })
        #expect(result.stdout.contains("\\u001b[2Jx\\u{9B}"), "\(result.stdout)")
        #expect(result.stdout.contains("[0]: NSMutableArray #1, 1 element"))
        #expect(result.stdout.contains("[0]: ↩︎ #1 NSMutableArray"))
        #expect(result.stdout.contains("MyThing #"))
        #expect(result.stdout.contains("$0: 5"))
    }

    @Test func aDeepStreamPrintsAndDepthBoundsIt() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.file(directory, "deep.typedstream", Self.bytes(Self.nested(200)))
        let full = try CLI.run(["inspect", path])
        #expect(full.status == 0, "\(full.stderr)")
        #expect(full.lines.count == 202)
        let bounded = try CLI.run(["inspect", "--depth", "2", path])
        #expect(bounded.lines.count == 5)
        let dot = try CLI.run(["inspect", "--dot", "--depth", "2", path])
        #expect(dot.status == 0)
        #expect(dot.stdout.components(separatedBy: " -> ").count - 1 == 3)
        // Past the reader's depth limit: one clear error, no crash.
        let tooDeep = try CLI.run(["inspect", try Self.file(directory, "deeper", Self.bytes(Self.nested(20_000)))])
        #expect(tooDeep.status == 1)
        #expect(tooDeep.stderr.contains("nested deeper than"), "\(tooDeep.stderr)")
    }

    // MARK: convert

    @Test func convertWritesWhatItSays() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.file(directory, "dict.typedstream", Self.bytes(Self.dictionary()))
        let expected: ArchiveValue = .dictionary([
            "name": .string("Priya"), "count": .integer(3), "tags": .array([.string("a"), .string("b")]),
            "again": .string("Priya"),
        ])
        for target in ["xml", "binary"] {
            let out = directory.path("out.\(target)")
            let result = try CLI.run(["convert", "--to", target, path, "-o", out])
            #expect(result.status == 0, "\(result.stderr)")
            let bytes = try InputFiles.read(out)
            #expect(bytes.starts(with: Array((target == "xml" ? "<?xml" : "bplist00").utf8)), "\(target)")
            #expect(try ArchiveValue(propertyList: bytes) == expected, "\(target)")
        }
        let keyed = directory.path("out.keyed")
        let result = try CLI.run(["convert", "--to", "keyed", path, "-o", keyed])
        #expect(result.status == 0, "\(result.stderr)")
        let graph = try ArchiveGraph(bytes: try InputFiles.read(keyed))
        #expect(graph.archiver == "NSKeyedArchiver")
        guard case .object(let root)? = graph.root else { Issue.record("no root object"); return }
        #expect(root.className == "NSDictionary")
    }

    @Test func convertRefusesWhatAPlainPropertyListCannotHold() throws {
        let directory = try TemporaryDirectory()
        // A DAG of 64 levels, each array holding the one below twice: 2^64 values if copied.
        var dag = TypedObject.array([.object(.string("leaf"))])
        for _ in 0..<64 { dag = TypedObject.array([.object(dag), .object(dag)]) }
        let cases: [(String, [UInt8], String)] = [
            ("body", SampleGenerator.attributedBody([("hi", [])]), "NSMutableAttributedString #0 has no property-list form"),
            ("cycle", Self.bytes(Self.cycle()), "a cycle through NSMutableArray #0"),
            ("dag", Self.bytes(dag), "more values than the budget"),
            ("keys", Self.bytes(.dictionary([(.object(.number(Int64(1))), .object(.string("x")))])), "a key that is not a string"),
        ]
        for (name, bytes, message) in cases {
            let path = try Self.file(directory, "\(name).typedstream", bytes)
            let out = directory.path("\(name).xml")
            let start = Date()
            let result = try CLI.run(["convert", "--to", "xml", path, "-o", out])
            #expect(Date().timeIntervalSince(start) < 20)
            #expect(result.status == 1, "\(name)")
            #expect(result.stderr.contains(message), "\(name): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out), "\(name): no partial output")
            let keyed = try CLI.run(["convert", "--to", "keyed", path, "-o", directory.path("\(name).keyed")])
            #expect(keyed.status == 0, "\(name): --to keyed keeps any graph: \(keyed.stderr)")
        }
    }

    // MARK: dot

    @Test func dotDrawsAKeyedArchiveWithSharedReferences() throws {
        let directory = try TemporaryDirectory()
        let people = try SampleGenerator(seed: 1).archive(0)
        let path = try Self.file(directory, "people.plist", people)
        let result = try CLI.run(["inspect", "--dot", path])
        #expect(result.status == 0, "\(result.stderr)")
        let out = result.stdout
        #expect(out.hasPrefix("digraph archive {"))
        #expect(out.hasSuffix("}\n"))
        // Every edge's target is a declared node.
        let edges = out.split(separator: "\n").filter { $0.contains(" -> ") }
        #expect(!edges.isEmpty)
        let targets = edges.map { $0.split(separator: " ")[2] }
        for target in Set(targets) where target != "top" {
            #expect(out.contains("  \(target) [label="), "\(target)")
        }
        // Shared objects and cycles: some node has more than one edge into it.
        var incoming: [Substring: Int] = [:]
        for target in targets { incoming[target, default: 0] += 1 }
        #expect(incoming.values.contains { $0 > 1 }, "\(out)")
        try Self.checkWithGraphviz(out, directory)
    }

    @Test func dotDrawsATypedstreamWithCyclesAndEscapedLabels() throws {
        let directory = try TemporaryDirectory()
        let root = TypedObject.dictionary([
            (.object(.string("say \"hi\"\\\n")), .object(.string("a \"quoted\" \\ value\nline 2"))),
            (.object(.string("loop")), .object(Self.cycle())),
        ])
        let result = try CLI.run(["inspect", "--dot", try Self.file(directory, "odd.typedstream", Self.bytes(root))])
        #expect(result.status == 0, "\(result.stderr)")
        let out = result.stdout
        #expect(out.contains("label=\"say \\\"hi\\\"\\\\\\n\""), "\(out)")
        // The array's edge to itself.
        let loop = out.split(separator: "\n").last { $0.contains("label=\"[0]\"") }
        let parts = loop.map { $0.split(separator: " ") } ?? []
        #expect(parts.count > 2 && parts[0] == parts[2], "\(out)")
        #expect(DotGraph.quoted("a\u{1B}b") == "\"a\\\\u{1b}b\"")
        try Self.checkWithGraphviz(out, directory)
    }

    @Test func dotRefusesAPlainPropertyListAndDepthZeroDrawsOnlyTheRoots() throws {
        let directory = try TemporaryDirectory()
        let plain = try Self.file(directory, "plain.plist", ArchiveValue.array([.integer(1)]).binaryPropertyList())
        let refused = try CLI.run(["inspect", "--dot", plain])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("a plain property list has no object graph"))
        let people = try Self.file(directory, "people.plist", try SampleGenerator(seed: 1).archive(0))
        let shallow = try CLI.run(["inspect", "--dot", "--depth", "0", people])
        #expect(shallow.status == 0)
        #expect(shallow.stdout.contains("dashed"))
        #expect(shallow.stdout.split(separator: "\n").filter { $0.contains(" -> ") && !$0.contains("top ->") }.isEmpty)
        let both = try CLI.run(["inspect", "--dot", "--classes", people])
        #expect(both.status == 2)
    }

    /// Runs Graphviz's `dot` on the text when it is installed: the syntax is valid.
    static func checkWithGraphviz(_ text: String, _ directory: TemporaryDirectory) throws {
        let candidates = ["/usr/bin/dot", "/usr/local/bin/dot", "/opt/homebrew/bin/dot"]
        guard let dot = candidates.first(where: FileManager.default.isExecutableFile(atPath:)) else { return }
        let input = directory.path("graph.dot")
        try text.write(toFile: input, atomically: false, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: dot)
        process.arguments = ["-Tsvg", "-o", directory.path("graph.svg"), input]
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "dot rejected:\n\(text)")
    }
}
#endif
