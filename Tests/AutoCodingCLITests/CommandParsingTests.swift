// The commands are the `_AutoCodingCommands` library; until the package declares it, these tests build empty.
#if canImport(_AutoCodingCommands)
import ArgumentParser
import AutoCoding
import Foundation
import Testing
import _AutoCodingTestSupport

@testable import _AutoCodingCommands

/// The executable's root command, rebuilt over the library's subcommands: `AutoCodingCommand` itself lives in
/// the executable, which tests cannot import.
struct Root: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "autocoding", subcommands: AutoCodingCommands.all)
}

@Suite("Command-line parsing")
struct CommandParsingTests {
    // MARK: batch

    @Test func batchTakesPathsAndOptions() throws {
        let command = try #require(
            try Root.parseAsRoot([
                "batch", "a.plist", "dir", "--jobs", "3", "--with-json", "-o", "out.ndjson", "-q",
            ])
                as? Batch
        )
        #expect(command.paths == ["a.plist", "dir"])
        #expect(command.jobs == 3)
        #expect(command.withJSON)
        #expect(command.output == "out.ndjson")
        #expect(command.quiet)
        #expect(!command.stdin)
        #expect(command.sqlite == nil)
    }

    @Test func batchDefaultsToOneJobPerCore() throws {
        let command = try #require(try Root.parseAsRoot(["batch", "x"]) as? Batch)
        #expect(command.jobs == ProcessInfo.processInfo.activeProcessorCount)
        #expect(!command.withJSON && !command.quiet)
        #expect(command.backend == .native)
    }

    @Test func batchTakesStdinAndSQLite() throws {
        let stdin = try #require(try Root.parseAsRoot(["batch", "--stdin"]) as? Batch)
        #expect(stdin.stdin)
        let sqlite = try #require(
            try Root.parseAsRoot(
                [
                    "batch", "--sqlite", "chat.db", "--query", "SELECT ROWID, attributedBody FROM message", "--column",
                    "attributedBody",
                ])
                as? Batch
        )
        #expect(sqlite.sqlite == "chat.db")
        #expect(sqlite.query == "SELECT ROWID, attributedBody FROM message")
        #expect(sqlite.column == "attributedBody")
    }

    @Test(arguments: [
        ["batch"],  // no input at all
        ["batch", "x", "--stdin"],  // two sources
        ["batch", "--sqlite", "db"],  // no query
        ["batch", "--query", "SELECT 1"],  // query without a database
        ["batch", "x", "--column", "c"],  // column without a database
        ["batch", "x", "--jobs", "0"],
        ["batch", "x", "--jobs", "many"],
        ["batch", "x", "--backend", "fast"],
        ["inspect", "f", "--depth", "-1"],
        ["convert", "f", "-o", "g"],  // --to is required
        ["convert", "--to", "yaml", "f", "-o", "g"],
        ["encode"],  // the JSON file is required (-o is not: standard output is the default)
        ["sample", "-o", "d", "--count", "-5"],
        ["validate"],
    ])
    func rejectsUsageErrors(_ arguments: [String]) {
        #expect(throws: (any Error).self) { try Root.parseAsRoot(arguments) }
    }

    @Test func usageErrorsMapToExitStatusTwo() {
        // `main()` turns ArgumentParser's validation status into 2, the documented usage-error status.
        do {
            _ = try Root.parseAsRoot(["batch"])
            Issue.record("batch without inputs parsed")
        } catch {
            #expect(Root.exitCode(for: error) == .validationFailure)
        }
    }

    // MARK: other commands

    @Test func inspectTakesDepthAndClasses() throws {
        let command = try #require(
            try Root.parseAsRoot(["inspect", "f.plist", "--depth", "2", "--classes"]) as? Inspect
        )
        #expect(command.path == "f.plist")
        #expect(command.depth == 2)
        #expect(command.classes)
    }

    @Test func encodeAndConvertTakeFormats() throws {
        let encode = try #require(
            try Root.parseAsRoot(["encode", "g.json", "-o", "g.plist", "--format", "xml"]) as? Encode
        )
        #expect(encode.path == "g.json" && encode.output == "g.plist" && encode.format == .xml)
        let defaults = try #require(try Root.parseAsRoot(["encode", "g.json", "-o", "-"]) as? Encode)
        #expect(defaults.format == .binary)
        let convert = try #require(
            try Root.parseAsRoot(["convert", "--to", "xml", "in", "-o", "out"]) as? Convert
        )
        #expect(convert.to == .xml && convert.path == "in" && convert.output == "out")
    }

    @Test func validateTakesJSON() throws {
        let command = try #require(
            try Root.parseAsRoot(["validate", "--json", "--roundtrip", "a", "b"]) as? Validate
        )
        #expect(command.json && command.roundtrip)
        #expect(command.paths == ["a", "b"])
    }

    @Test func sampleTakesCountRowsAndSeed() throws {
        let command = try #require(
            try Root.parseAsRoot([
                "sample", "-o", "out", "--count", "10", "--rows", "3", "--seed", "7", "--force",
            ]) as? Sample
        )
        #expect(
            command.output == "out" && command.count == 10 && command.rows == 3 && command.seed == 7 && command.force
        )
        let defaults = try #require(try Root.parseAsRoot(["sample", "-o", "out"]) as? Sample)
        #expect(defaults.count == 1000 && defaults.rows == nil && defaults.seed == 1)
    }

    @Test func everySubcommandIsRegistered() throws {
        let names = AutoCodingCommands.all.map { $0._commandName }
        let visible = [
            "inspect", "json", "get", "codegen", "encode", "convert", "validate", "batch", "sample", "events", "messages",
        ]
        #expect(names == visible + ["batch-worker"])
        // The executable's root lists them (and its own `bench`), but not the hidden worker of `batch --isolate`.
        let help = try CLI.run(["--help"])
        #expect(help.status == 0)
        for name in visible { #expect(help.stdout.contains("  \(name) "), "\(name) is not in --help") }
        #expect(!help.stdout.contains("batch-worker"))
    }
}
#endif
