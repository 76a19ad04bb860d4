#if canImport(_AutoCodingCommands)
import AutoCoding
import Foundation
import Testing
import _AutoCodingTestSupport

@testable import _AutoCodingCommands

/// A file failure is one error (`ArchiveError` with the code `fileAccess`) in every layer; every command prints it
/// in the one form `open PATH: TEXT (errno N)`, after the prefix the command puts before its errors.
@Suite("File failure messages")
struct FileErrorMessageTests {
    @Test(arguments: [
        (["json"], "error: "),
        (["inspect"], "error: PATH: "),
        (["codegen"], "error: PATH: "),
        (["get", "$top.root"], "error: PATH: "),
        (["validate"], "FAIL PATH: "),
    ])
    func everyCommandPrintsAMissingFileTheSameWay(_ command: [String], _ prefix: String) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("missing.archive")
        // `get` takes the file before its paths.
        let arguments = [command[0], path] + command.dropFirst()
        let result = try CLI.run(arguments)
        let message = prefix.replacingOccurrences(of: "PATH", with: path)
            + "open \(path): No such file or directory (errno 2)"
        let output = command[0] == "validate" ? result.stdout : result.stderr
        #expect(output.hasPrefix(message + "\n"), "\(output)")
        #expect(result.status == 1)
    }

    @Test func batchReportsAFileFailureAsFileError() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("missing.archive")
        let result = try CLI.run(["batch", path])
        #expect(result.stdout.contains(#""error":{"code":"fileError","reason":"open \#(path): No such file or directory (errno 2)"}"#), "\(result.stdout)")
    }

    @Test func reportsTextAndCodesAsBeforeTheErrorsHadCodes() {
        #expect(ErrorReport.text(ArchiveError.fileAccess("open", "/x", errnoCode: 2)) == "open /x: No such file or directory (errno 2)")
        #expect(ErrorReport(ArchiveError.fileAccess("open", "/x", errnoCode: 2)).code == "fileError")
        #expect(ErrorReport.text(ArchiveError(.truncated, "the trailer")) == "truncated: the trailer")
        let json = ArchiveJSONError(.invalidSyntax, "unexpected end of input", offset: 3)
        #expect(ErrorReport.text(json) == "JSON at byte 3: unexpected end of input")
        #expect(ErrorReport(json).code == "invalidJSON")
        let path = ArchivePathError(.stepNotApplicable, path: "$top.x", step: 1, reason: ".x: no key")
        #expect(ErrorReport.text(path) == "$top.x: step 1: .x: no key")
        #expect(ErrorReport.text(TypedstreamDecodingError(.unexpectedLayout, "bad header")) == "bad header")
        #expect(ErrorReport.Printed(path).description == "$top.x: step 1: .x: no key")
    }
}
#endif
