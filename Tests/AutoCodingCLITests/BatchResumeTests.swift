// The commands are the `_AutoCodingCommands` library; until the package declares it, these tests build empty.
#if canImport(_AutoCodingCommands)
import Foundation
import Testing
import _AutoCodingTestSupport

@testable import _AutoCodingCommands

/// `batch --resume`: continuing an interrupted run from its output file.
@Suite("batch --resume")
struct BatchResumeTests {
    static func paths(in file: String) throws -> [String] {
        let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: file)), as: UTF8.self)
        return try text.split(separator: "\n").map {
            let record = try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            return try #require(record["path"] as? String ?? record["id"] as? String)
        }
    }

    /// An output cut in the middle of a line, as a killed run leaves it, is completed with each input once.
    @Test(arguments: [false, true])
    func resumingATornOutputRecordsEachInputExactlyOnce(isolate: Bool) throws {
        let samples = try makeSamples(count: 16, rows: 0)
        let inputs = [samples.path("archives"), samples.path("other")]
        let full = samples.path("full.ndjson")
        #expect(try CLI.run(["batch", "-o", full, "-q"] + inputs).status == 1)
        let fullBytes = try Data(contentsOf: URL(fileURLWithPath: full))
        // Cut 20 bytes into the 10th line.
        let newlines = fullBytes.indices.filter { fullBytes[$0] == UInt8(ascii: "\n") }
        let cut = newlines[8] + 1 + 20
        let partial = samples.path("partial.ndjson")
        try fullBytes.prefix(cut).write(to: URL(fileURLWithPath: partial))

        let resumed = try CLI.run(["batch", "--resume", "-o", partial] + inputs + (isolate ? ["--isolate"] : []))
        #expect(resumed.status == 1, "the other/ files fail, in this run or the earlier one")
        #expect(resumed.stderr.contains("resumed: 9 records already in \(partial)"))
        #expect(resumed.stderr.contains("a torn last line of 20 bytes cut off"))
        let expected = try Self.paths(in: full)
        let got = try Self.paths(in: partial)
        #expect(got.count == 25)
        #expect(got == expected, "the same records, in the same order")

        // Resuming a finished run adds nothing; exit 1 because earlier records failed.
        let again = try CLI.run(["batch", "--resume", "-o", partial] + inputs)
        #expect(again.status == 1)
        #expect(try Self.paths(in: partial) == expected)
    }

    @Test func resumeStartsAFreshFileWhenThereIsNone() throws {
        let samples = try makeSamples(count: 4, rows: 0)
        let output = samples.path("new.ndjson")
        let result = try CLI.run(["batch", "--resume", "-o", output, samples.path("archives")])
        #expect(result.status == 0)
        #expect(try Self.paths(in: output).count == 4)
    }

    @Test func resumeRefusesAFileThatIsNotBatchOutputAndLeavesItAlone() throws {
        let samples = try makeSamples(count: 2, rows: 0)
        let output = samples.path("notes.txt")
        let text = Data("dear diary\n{\"path\":\"x\"}\nhalf a li".utf8)
        try text.write(to: URL(fileURLWithPath: output))
        let result = try CLI.run(["batch", "--resume", "-o", output, samples.path("archives")])
        #expect(result.status == 2)
        #expect(result.stderr.contains("line 1 of \(output) is not a batch record"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == text)
        #expect(try CLI.run(["batch", "--resume", samples.path("archives")]).status == 2, "--resume needs -o")
    }

    @Test func anInputListedTwiceIsRecordedTwice() throws {
        let samples = try makeSamples(count: 2, rows: 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: samples.path("archives")).sorted()
        let first = samples.path("archives/" + names[0])
        let output = samples.path("out.ndjson")
        #expect(try CLI.run(["batch", "-o", output, first]).status == 0)
        #expect(try CLI.run(["batch", "--resume", "-o", output, first, first]).status == 0)
        #expect(try Self.paths(in: output) == [first, first])
    }

    // MARK: Identities

    @Test func theIdentityEndsAtTheRecordsOwnOkField() throws {
        let row = #"{"path":"db","row":{"a":1,"ok":"x,\"ok\":"},"column":"b","ok":false,"format":null}"#
        let split = try #require(BatchResumeState.split(ArraySlice(row.utf8)))
        #expect(split.identity == #"{"path":"db","row":{"a":1,"ok":"x,\"ok\":"},"column":"b""#)
        #expect(split.ok == false)
        #expect(BatchResumeState.split(ArraySlice(#"{"id":"a\"b","ok":true}"#.utf8))?.ok == true)
        #expect(BatchResumeState.split(ArraySlice(#"{"path":"x"}"#.utf8)) == nil)
        #expect(BatchResumeState.split(ArraySlice(#"["path","ok"]"#.utf8)) == nil)
        let input = BatchInput.row(
            database: "db", columns: [("a", .integer(1)), ("ok", .text(#"x,"ok":"#))], column: "b", blob: .null)
        #expect(BatchDecoder.identity(of: input) == split.identity)
    }
}
#endif
