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
            {"$class":"Person","$uid":1,"name":"Bob","age":40,"best":{"$class":"Person","$uid":2,"name":"Ann","age":30,"best":{"$ref":1}}}

            """)
    }

    @Test func aPathThatDoesNotResolveExitsOneNamingTheStep() throws {
        let directory = try TemporaryDirectory()
        let file = try Self.archive(in: directory)
        let result = try CLI.run(["get", file, "$top.root[0].name", "$top.root[5].name"])
        #expect(result.status == 1)
        #expect(result.stdout == "\"Ann\"\n")
        #expect(result.stderr == "error: \(file): $top.root[5].name: step 2: [5]: index 5 is beyond the 2 elements of NSArray instance (UID 1)\n")
        let syntax = try CLI.run(["get", file, "$top.root[x]"])
        #expect(syntax.status == 1)
        #expect(syntax.stderr == "error: \(file): $top.root[x]: at byte 10: expected *, an index or a quoted key after '['\n")
        let missing = try CLI.run(["get", directory.path("missing.archive"), "$top.root"])
        #expect(missing.status == 1)
        // The same file-failure message as every other command (one error for a file failure in every layer).
        let path = directory.path("missing.archive")
        #expect(missing.stderr == "error: \(path): open \(path): No such file or directory (errno 2)\n")
    }
}
#endif
