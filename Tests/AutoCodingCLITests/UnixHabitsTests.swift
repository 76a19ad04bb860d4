#if canImport(_AutoCodingCommands)
import AutoCoding
import Foundation
import Testing
import _AutoCodingTestSupport

@testable import _AutoCodingCommands

/// The habits of Unix tools: standard output by default, no binary on a terminal, an empty input set is a
/// usage error, and `validate --strict` for what Apple's unarchiver requires.
@Suite("Unix habits")
struct UnixHabitsTests {
    // MARK: Standard output by default

    @Test func convertWritesToStandardOutputWithoutDashO() throws {
        let samples = try makeSamples(count: 1, rows: 1)
        let result = try CLI.run(["convert", "--to", "xml", samples.path("archives/000000-people.plist")])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("<?xml"))
        #expect(result.stdout.contains("<key>$archiver</key>"))
    }

    @Test func encodeWritesToStandardOutputWithoutDashO() throws {
        let samples = try makeSamples(count: 1, rows: 1)
        let json = try CLI.run(["json", samples.path("archives/000000-people.plist")])
        let result = try CLI.run(["encode", "-"], input: json.stdout)
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("bplist00"))
    }

    /// The JSON of a typedstream does not encode back: a documented refusal, not a plain dictionary.
    @Test func encodeRefusesTheJSONOfATypedstream() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("dictionary.typedstream")
        let stream = TypedGraph(groups: [
            TypedGroup(encoding: "@", values: [.object(.dictionary([(key: .object(.string("a")), value: .object(.number(Int64(1))))]))])
        ])
        try Data(stream.typedstreamBytes()).write(to: URL(fileURLWithPath: path))
        let json = try CLI.run(["json", path])
        #expect(json.stdout.hasPrefix(#"{"byteOrder""#))
        let result = try CLI.run(["encode", "-", "--format", "xml"], input: json.stdout)
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("this is the JSON of a typedstream, which encode does not turn back into one"))
    }

    /// Binary output bound for a terminal is refused before any work, as gzip does (run under `script`, which
    /// gives the command a terminal).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs script(1)"))
    func binaryOutputIsRefusedOnATerminal() throws {
        let samples = try makeSamples(count: 1, rows: 1)
        let executable = try #require(CLI.executable)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = [
            "-qec", "'\(executable.path)' convert --to binary '\(samples.path("archives/000000-people.plist"))'",
            "/dev/null",
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 2)
        #expect(output.contains("binary output is not written to a terminal"))
        #expect(!output.contains("bplist00"))
    }

    /// Records and the progress bar on one terminal: no record shares a line with the bar (it did: `[████…]
    /// 200/200 files …{"path":…`). 300 files at one job take long enough for the bar to be drawn between them.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs script(1)"))
    func recordsNeverShareALineWithTheProgressBar() throws {
        let samples = try makeSamples(count: 300, rows: 1)
        let executable = try #require(CLI.executable)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", "'\(executable.path)' batch --jobs 1 '\(samples.path("archives"))'", "/dev/null"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        // The terminal ends lines with "\r\n"; a bare "\r" (the bar's redraw) stays inside its line.
        let lines = output.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n")
        #expect(lines.filter { $0.contains(#"{"path""#) }.count == 300)
        // What a line shows is what follows its last "\r" (the bar is cleared with "\r\u{1B}[K" before records).
        let shown = lines.map { $0.split(separator: "\r", omittingEmptySubsequences: false).last ?? "" }
        #expect(shown.allSatisfy { !($0.contains("files/s") && $0.contains(#"{"path""#)) })
    }

    // MARK: Empty input sets

    @Test(arguments: [["validate"], ["batch", "--quiet"]])
    func anEmptyDirectoryIsAUsageError(command: [String]) throws {
        let directory = try TemporaryDirectory()
        let result = try CLI.run(command + [directory.url.path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("error: no input files in \(directory.url.path)"))
        #expect(result.stdout.isEmpty)
    }

    // MARK: validate --strict

    @Test func strictValidationRequiresWhatNSKeyedUnarchiverRequires() throws {
        let samples = try makeSamples(count: 1, rows: 1)
        let directory = try TemporaryDirectory()
        let plain = directory.path("plain.plist")
        try Data(ArchiveValue.dictionary(["a": .integer(1)]).binaryPropertyList()).write(to: URL(fileURLWithPath: plain))
        let objects: [ArchiveValue] = [.string("$null"), .string("hello")]
        let scn = directory.path("scn.plist")
        try Data(KeyedArchive(archiver: "SCNKeyedArchiver", top: ["root": .uid(ArchiveUID(1))], objects: objects).binaryPlist())
            .write(to: URL(fileURLWithPath: scn))
        let noRoot = directory.path("noroot.plist")
        try Data(KeyedArchive(top: ["object": .uid(ArchiveUID(1))], objects: objects).binaryPlist())
            .write(to: URL(fileURLWithPath: noRoot))
        let good = samples.path("archives/000000-people.plist")

        let lenient = try CLI.run(["validate", good, plain, scn, noRoot])
        #expect(lenient.status == 0)
        let strict = try CLI.run(["validate", "--strict", good, plain, scn, noRoot])
        #expect(strict.status == 1)
        #expect(strict.lines.contains { $0.hasPrefix("ok \(good) ") })
        #expect(strict.stdout.contains("FAIL \(plain): a plain property list, not a keyed archive"))
        #expect(strict.stdout.contains("FAIL \(scn): $archiver is \"SCNKeyedArchiver\", not NSKeyedArchiver"))
        #expect(strict.stdout.contains("FAIL \(noRoot): $top has no root"))
        let records = try CLI.run(["validate", "--strict", "--json", plain]).records()
        #expect((records.first?["error"] as? [String: Any])?["code"] as? String == "notStrict")
    }
}
#endif
