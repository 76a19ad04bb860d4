import AutoCoding
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Every error of the object layer has `ArchiveError`'s shape: a stable code that alone decides `==` and the
/// hash, a reason in words, a location as data, and a description `code: …`.
@Suite("Error shapes")
struct ErrorShapeTests {
    // MARK: File failures: one error in every layer

    @Test func aMissingFileIsTheSameErrorFromTheMappedAndTheReadingLayer() throws {
        let path = "/nonexistent/autocoding-error-shape.archive"
        let mapped = #expect(throws: ArchiveError.self) { try LazyKeyedArchive(contentsOf: path, options: .init()) }
        let read = #expect(throws: ArchiveError.self) { try ArchiveFile.read(contentsOf: path) }
        let written = #expect(throws: ArchiveError.self) { try ArchiveFile.write([1], to: path) }
        for error in [mapped, read] {
            #expect(error?.code == .fileAccess)
            #expect(error?.errnoCode == ENOENT)
            #expect(error?.description == "fileAccess: open \(path): No such file or directory (errno \(ENOENT))")
        }
        #expect(written?.code == .fileAccess)
        #expect(written?.errnoCode == ENOENT)
        #expect(mapped == read && read == written)
    }

    @Test func aDirectoryIsTheSameErrorFromTheMappedAndTheReadingLayer() throws {
        let mapped = #expect(throws: ArchiveError.self) { try LazyKeyedArchive(contentsOf: "/", options: .init()) }
        let read = #expect(throws: ArchiveError.self) { try ArchiveFile.read(contentsOf: "/") }
        #expect(mapped?.reason == "read /: Is a directory (errno \(EISDIR))")
        #expect(read?.reason == "read /: Is a directory (errno \(EISDIR))")
        #expect(mapped?.errnoCode == EISDIR && read?.errnoCode == EISDIR)
    }

    @Test func errorsWithoutAFileHaveNoErrno() {
        #expect(ArchiveError(.truncated, "x").errnoCode == nil)
    }

    // MARK: Paths

    @Test func pathErrorsCompareAndHashByCodeOnly() throws {
        let syntax = #expect(throws: ArchivePathError.self) { try ArchivePath(parsing: "$top.root[x]") }
        let otherSyntax = #expect(throws: ArchivePathError.self) { try ArchivePath(parsing: "$top[") }
        let graph = ArchiveGraph(roots: ["count": .inline(.integer(3))])
        let step = #expect(throws: ArchivePathError.self) { try graph.values(at: ArchivePath(parsing: "$top.count.x")) }
        #expect(syntax == otherSyntax)
        #expect(syntax != step)
        #expect(Set([syntax, otherSyntax, step].compactMap { $0 }).count == 2)
        #expect(
            syntax?.description
                == "invalidSyntax: $top.root[x]: at byte 10: expected *, an index or a quoted key after '['")
        #expect(otherSyntax?.offset == 5)
        #expect(step?.code == .stepNotApplicable)
        #expect(step?.step == 2)
        #expect(step?.description == "stepNotApplicable: $top.count.x: step 2: .x: an integer (in place) has no keys")
    }

    // MARK: JSON

    @Test(arguments: [
        (#"{"$archiver": "#, ArchiveJSONError.Code.invalidSyntax,
         "invalidSyntax: JSON at byte 14: unexpected end of input, expected a value"),
        ("[1]", .invalidForm, "invalidForm: JSON at byte 1: the document must be an object with $archiver and $top"),
        (#"{"$archiver": "NSKeyedArchiver", "$top": {"root": {"$ref": 4}}}"#, .undefinedReference,
         #"undefinedReference: JSON: {"$ref": 4} names no object with "$uid": 4"#),
        (#"{"$archiver": "A", "$top": {"a": {"$class": "A", "$uid": 1}, "b": {"$class": "B", "$uid": 1}}}"#, .duplicateUID,
         #"duplicateUID: JSON at byte 92: "$uid": 1 is defined twice"#),
        (#"{"$archiver": "A"}"#, .invalidForm, "invalidForm: JSON at byte 18: the document has no $top"),
    ])
    func jsonErrorsNameTheirCodeAndOffset(_ text: String, _ code: ArchiveJSONError.Code, _ description: String) {
        let error = #expect(throws: ArchiveJSONError.self) { try ArchiveGraph(json: text) }
        #expect(error?.code == code)
        #expect(error?.description == description)
    }

    @Test func jsonErrorsCompareAndHashByCodeOnly() {
        let first = #expect(throws: ArchiveJSONError.self) { try ArchiveValue(json: "[1,") }
        let second = #expect(throws: ArchiveJSONError.self) { try ArchiveValue(json: "{]") }
        let form = #expect(throws: ArchiveJSONError.self) { try ArchiveValue(json: "null") }
        #expect(first == second)
        #expect(first?.offset != second?.offset)
        #expect(first != form)
        #expect(Set([first, second, form].compactMap { $0 }).count == 2)
    }

    // MARK: Typedstreams

    @Test func typedstreamErrorsNameTheGroupAndCompareByCode() throws {
        let archiver = TypedstreamArchiver()
        archiver.encodeValues(ofObjCTypes: "i", [.signed(7, type: UInt8(ascii: "i"))])
        let unarchiver = try TypedstreamUnarchiver(forReadingWith: archiver.archivedBytes())
        let mismatch = #expect(throws: TypedstreamDecodingError.self) { try unarchiver.decodeObject() }
        #expect(mismatch?.code == .groupMismatch)
        #expect(mismatch?.group == 0)
        #expect(mismatch?.description == "groupMismatch: the stream group 0 is i, not @")
        // A mismatch consumes nothing.
        #expect(try unarchiver.decodeInteger(Int32.self) == 7)
        let end = #expect(throws: TypedstreamDecodingError.self) { try unarchiver.decodeInteger(Int32.self) }
        #expect(end?.group == 1)
        #expect(end == mismatch)
        #expect(end != TypedstreamDecodingError(.typeMismatch, "expected a real, found i"))
        #expect(Set([end, mismatch].compactMap { $0 }).count == 1)
    }
}
