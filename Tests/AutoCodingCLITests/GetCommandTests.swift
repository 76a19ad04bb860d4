#if canImport(_AutoCodingCommands)
import AutoCoding
import Foundation
import Testing
import _AutoCodingTestSupport

@testable import _AutoCodingCommands

@Suite("get")
struct GetCommandTests {
    /// An NSArray of two people at `$top.root`, Ann's `best` is Bob and Bob's is Ann.
    static func archive(in directory: TemporaryDirectory) throws -> String {
        let ann = ArchivedObject(className: "Person", fields: ["name": .reference(.string("Ann")), "age": .inline(.integer(30))])
        let bob = ArchivedObject(className: "Person", fields: ["name": .reference(.string("Bob")), "age": .inline(.integer(40))])
        ann["best"] = .object(bob)
        bob["best"] = .object(ann)
        let list = ArchivedObject(className: "NSArray", fields: ["NS.objects": .array([.object(ann), .object(bob)])])
        let path = directory.path("people.archive")
        try Data(ArchiveGraph(root: .object(list)).binaryPlist()).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test(arguments: [false, true])
    func printsOneJSONLinePerPath(eager: Bool) throws {
        let directory = try TemporaryDirectory()
        let file = try Self.archive(in: directory)
        let result = try CLI.run(
            ["get"] + (eager ? ["--eager"] : []) + [file, "$top.root[1].name", "$top.root[\"NS.objects\"][*].age", "$top.root[0].best"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == """
            "Bob"
            [30,40]
            {"$class":"Person","$uid":3,"name":"Bob","age":40,"best":{"$class":"Person","$uid":2,"name":"Ann","age":30,"best":{"$ref":3}}}

            """)
    }

    /// One numbering (issue 20): `get` names an object by its archive UID, the `$uid` of `json` and the `#n` of
    /// `inspect`, whichever reader answers.
    @Test(arguments: [false, true])
    func numbersObjectsAsJSONDoes(eager: Bool) throws {
        let directory = try TemporaryDirectory()
        let file = try Self.archive(in: directory)
        let json = try CLI.run(["json", "--compact", file])
        #expect(json.status == 0, "\(json.stderr)")
        let get = try CLI.run(["get"] + (eager ? ["--eager"] : []) + [file, "$top.root[0].best"])
        #expect(get.status == 0, "\(get.stderr)")
        for name in ["Ann", "Bob"] {
            let pattern = try Regex(#""\$uid":(\d+),"name":""# + name + "\"")
            let inJSON = try #require(json.stdout.firstMatch(of: pattern)).output[1].substring
            let inGet = try #require(get.stdout.firstMatch(of: pattern)).output[1].substring
            #expect(inGet == inJSON, "\(name): get says \(String(describing: inGet)), json \(String(describing: inJSON))")
        }
    }

    @Test func aPathThatDoesNotResolveExitsOneNamingTheStep() throws {
        let directory = try TemporaryDirectory()
        let file = try Self.archive(in: directory)
        let result = try CLI.run(["get", file, "$top.root[0].name", "$top.root[5].name"])
        #expect(result.status == 1)
        #expect(result.stdout == "\"Ann\"\n")
        #expect(result.stderr == "error: \(file): $top.root[5].name: step 2: [5]: index 5 is beyond the 2 elements of NSArray instance (UID 1)\n")
        let negative = try CLI.run(["get", file, "$top.root[-3]"])
        #expect(negative.status == 1)
        #expect(negative.stderr == "error: \(file): $top.root[-3]: step 2: [-3]: index -3 counts back past the first of the 2 elements of NSArray instance (UID 1)\n")
        let missing = try CLI.run(["get", directory.path("missing.archive"), "$top.root"])
        #expect(missing.status == 1)
        // The same file-failure message as every other command (one error for a file failure in every layer).
        let path = directory.path("missing.archive")
        #expect(missing.stderr == "error: \(path): open \(path): No such file or directory (errno 2)\n")
    }

    /// A path that does not parse is a usage error: exit status 2, one line naming the byte offset, nothing
    /// printed for the paths before it and the file never read.
    @Test func aPathSyntaxErrorIsAUsageError() throws {
        let directory = try TemporaryDirectory()
        let file = try Self.archive(in: directory)
        for (path, message) in [
            ("$top.root[x]", "error: $top.root[x]: at byte 10: expected *, an index or a quoted key after '['\n"),
            ("root..name", "error: root..name: at byte 5: expected a key (a key path has no empty keys; write $top[\"\"] for one)\n"),
            ("$top[-]", "error: $top[-]: at byte 6: expected digits after '-'\n"),
        ] {
            let result = try CLI.run(["get", file, "$top.root[0].name", path])
            #expect(result.status == 2, "\(path)")
            #expect(result.stdout == "", "\(path)")
            #expect(result.stderr == message)
        }
        let unread = try CLI.run(["get", directory.path("missing.archive"), "$top.root[x]"])
        #expect(unread.status == 2)
    }

    /// plutil habits: key paths (`root.0.name`), `.key` on an NSDictionary, `[-1]`.
    @Test(arguments: [false, true])
    func takesPlutilKeyPathsAndNegativeIndices(eager: Bool) throws {
        let directory = try TemporaryDirectory()
        let file = try Self.archive(in: directory)
        let result = try CLI.run(
            ["get"] + (eager ? ["--eager"] : []) + [file, "root.0.name", "root.-1.best.name", "$top.root[-1].age", "root.1.best.best.age"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "\"Ann\"\n\"Ann\"\n40\n40\n")
    }

    /// An NSDictionary archived by the encoder: `.kernel0` finds the element as `["kernel0"]` does.
    @Test(arguments: [false, true])
    func aKeyFindsAnNSDictionaryElement(eager: Bool) throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("dict.archive")
        let dict = ArchivedObject(
            className: "NSDictionary", chain: ["NSDictionary", "NSObject"],
            fields: ["NS.keys": .array([.reference(.string("kernel0")), .reference(.string("x.y"))]),
                     "NS.objects": .array([.reference(.string("vmlinuz")), .inline(.integer(2))])])
        try Data(ArchiveGraph(root: .object(dict)).binaryPlist()).write(to: URL(fileURLWithPath: file))
        let result = try CLI.run(
            ["get"] + (eager ? ["--eager"] : []) + [file, "$top.root.kernel0", "$top.root[\"kernel0\"]", "root.kernel0", "root.x\\.y"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "\"vmlinuz\"\n\"vmlinuz\"\n\"vmlinuz\"\n2\n")
    }

    /// `--raw`: strings and numbers without JSON quoting, one line per value of a fan-out; a container is an
    /// error naming what it is.
    @Test(arguments: [false, true])
    func rawPrintsScalarsAsTheyAre(eager: Bool) throws {
        let directory = try TemporaryDirectory()
        let file = try Self.archive(in: directory)
        let flags = ["get", "--raw"] + (eager ? ["--eager"] : [])
        let result = try CLI.run(flags + [file, "root.0.name", "$top.root[*].age", "root.1.best.name"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "Ann\n30\n40\nAnn\n")
        let container = try CLI.run(flags + [file, "root.0.name", "root.0"])
        #expect(container.status == 1)
        #expect(container.stdout == "Ann\n")
        #expect(container.stderr == "error: \(file): $top.root.0: the value is an instance of Person, which has no raw form: "
            + "--raw prints strings, numbers, booleans, dates and data; drop --raw for its JSON\n")
    }

    /// Plain property lists (binary, XML, on standard input): `$top` is the root value.
    @Test func readsPlainPropertyLists() throws {
        let directory = try TemporaryDirectory()
        let plist = ArchiveValue.dictionary([
            "items": .array([.dictionary(["name": .string("first")]), .dictionary(["name": .string("last \"quoted\"")])]),
            "when": .date(Date(timeIntervalSinceReferenceDate: 0)), "blob": .data([1, 2, 3]),
        ])
        let binary = directory.path("plain.plist")
        try Data(plist.binaryPropertyList()).write(to: URL(fileURLWithPath: binary))
        let paths = ["items.-1.name", "$top.items[*].name", "when", "blob"]
        let result = try CLI.run(["get", binary] + paths)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == #"""
            "last \"quoted\""
            ["first","last \"quoted\""]
            {"$date":"2001-01-01T00:00:00Z"}
            {"$data":"AQID"}

            """#)
        let raw = try CLI.run(["get", "--raw", "-"] + paths, stdin: Data(plist.binaryPropertyList()))
        #expect(raw.status == 0, "\(raw.stderr)")
        #expect(raw.stdout == "last \"quoted\"\nfirst\nlast \"quoted\"\n2001-01-01T00:00:00Z\nAQID\n")
        let missing = try CLI.run(["get", binary, "items.2"])
        #expect(missing.status == 1)
        #expect(missing.stderr == "error: \(binary): $top.items.2: step 2: .2: index 2 is beyond the 2 elements of an array\n")
    }

    /// A typedstream is answered through its keyed form: `root` is its first value.
    @Test func readsTypedstreams() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("stream.typedstream")
        let array = TypedObject.array([.object(.string("one")), .object(.number(Int64(2))), .object(.string("three"))])
        try Data(TypedGraph(groups: [TypedGroup(encoding: "@", values: [.object(array)])]).typedstreamBytes())
            .write(to: URL(fileURLWithPath: file))
        let result = try CLI.run(["get", file, "root.0", "$top.root[-1]", "root.1"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "\"one\"\n\"three\"\n{\"$entry\":2}\n")
        let raw = try CLI.run(["get", "--raw", file, "$top.root[*]"])
        #expect(raw.stdout == "one\n2\nthree\n")
    }
}
#endif
