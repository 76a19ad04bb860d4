// The commands are the `_AutoCodingCommands` library; until the package declares it, these tests build empty.
#if canImport(_AutoCodingCommands)
import Foundation
import Testing

@testable import _AutoCodingCommands

/// Runs the built `autocoding` executable and collects what it printed.
enum CLI {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String

        /// Standard output's lines, without the empty one after the last newline.
        var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }

        /// Each line of standard output parsed as a JSON object.
        func records() throws -> [[String: Any]] {
            try lines.map { line in
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
                return try #require(object as? [String: Any], "not a JSON object: \(line)")
            }
        }
    }

    /// The executable: `$AUTOCODING_BIN`, else `autocoding` beside the test bundle (SwiftPM puts both in its
    /// bin directory), else the one in `swift build --show-bin-path`.
    static let executable: URL? = {
        let manager = FileManager.default
        if let path = ProcessInfo.processInfo.environment["AUTOCODING_BIN"], manager.isExecutableFile(atPath: path) {
            return URL(fileURLWithPath: path)
        }
        var candidates: [URL] = []
        let bundle = Bundle.main.bundleURL.resolvingSymlinksInPath()
        var directory = bundle
        for _ in 0..<5 {
            candidates.append(directory.appendingPathComponent("autocoding"))
            directory = directory.deletingLastPathComponent()
        }
        if let exe = try? manager.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.insert(
                URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("autocoding"),
                at: 0
            )
        }
        if let found = candidates.first(where: { manager.isExecutableFile(atPath: $0.path) }) { return found }
        let swift = Process()
        swift.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        swift.arguments = ["swift", "build", "--show-bin-path"]
        swift.currentDirectoryURL = packageRoot
        let pipe = Pipe()
        swift.standardOutput = pipe
        swift.standardError = FileHandle.nullDevice
        guard (try? swift.run()) != nil else { return nil }
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        swift.waitUntilExit()
        let bin = String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let path = URL(fileURLWithPath: bin).appendingPathComponent("autocoding")
        return manager.isExecutableFile(atPath: path.path) ? path : nil
    }()

    /// Runs `autocoding arguments…` with standard input from `input` (empty by default), standard output and
    /// standard error captured through files (never a terminal).
    static func run(_ arguments: [String], input: String = "", in directory: URL? = nil) throws -> Result {
        try run(arguments, stdin: Data(input.utf8), in: directory)
    }

    /// Runs `autocoding arguments…` with `stdin` (bytes) as standard input.
    static func run(_ arguments: [String], stdin: Data, in directory: URL? = nil) throws -> Result {
        let executable = try #require(executable, "the autocoding executable was not found; build it first")
        let scratch = try TemporaryDirectory()
        let out = scratch.url.appendingPathComponent("stdout")
        let err = scratch.url.appendingPathComponent("stderr")
        let inp = scratch.url.appendingPathComponent("stdin")
        try stdin.write(to: inp)
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        let outHandle = try FileHandle(forWritingTo: out)
        let errHandle = try FileHandle(forWritingTo: err)
        let inHandle = try FileHandle(forReadingFrom: inp)
        process.standardOutput = outHandle
        process.standardError = errHandle
        process.standardInput = inHandle
        try process.run()
        process.waitUntilExit()
        try outHandle.close()
        try errHandle.close()
        try inHandle.close()
        return Result(
            status: process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: out), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: err), as: UTF8.self)
        )
    }

    /// The package's root directory.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The engine's committed fixtures.
    static let fixtures = packageRoot.appendingPathComponent("Tests/AutoCodingFastTests/Fixtures")

    /// The shared corpus beside the package, when present.
    static let corpus = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus")

    static var hasCorpus: Bool { FileManager.default.fileExists(atPath: corpus.appendingPathComponent("apple").path) }
}

/// A fresh directory under the system's temporary directory, removed when the value goes away.
final class TemporaryDirectory: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("autocoding-cli-tests-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}

/// Writes a small sample set (archives, other files, messages.db) with the generator, in process.
func makeSamples(count: Int = 24, rows: Int = 12) throws -> TemporaryDirectory {
    let directory = try TemporaryDirectory()
    let command = try Sample.parse(
        ["-o", directory.url.path, "--count", String(count), "--rows", String(rows), "--quiet"])
    try command.run()
    return directory
}
#endif
