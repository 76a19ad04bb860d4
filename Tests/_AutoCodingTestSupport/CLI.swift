import Foundation
import Testing

/// Runs the built `autocoding` executable and collects what it printed.
package enum CLI {
    /// What one run of the executable gave.
    package struct Result {
        /// The exit status.
        package var status: Int32
        /// Everything written to standard output.
        package var stdout: String
        /// Everything written to standard error.
        package var stderr: String

        /// Standard output's lines, without the empty one after the last newline.
        package var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }

        /// Each line of standard output parsed as a JSON object.
        package func records() throws -> [[String: Any]] {
            try lines.map { line in
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
                return try #require(object as? [String: Any], "not a JSON object: \(line)")
            }
        }
    }

    /// The executable: `$AUTOCODING_BIN`, else `autocoding` beside the test bundle (SwiftPM puts both in its
    /// bin directory), else the one in `swift build --show-bin-path`.
    package static let executable: URL? = {
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
        swift.currentDirectoryURL = PackagePaths.root
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
    package static func run(_ arguments: [String], input: String = "", in directory: URL? = nil) throws -> Result {
        try run(arguments, stdin: Data(input.utf8), in: directory)
    }

    /// `arguments`, with `batch --isolate`'s worker memory limit turned off under a sanitizer (see
    /// ``ActiveSanitizer/allowsAddressSpaceLimits``) unless the test sets one: isolation is still exercised.
    package static func runnable(_ arguments: [String]) -> [String] {
        guard !ActiveSanitizer.allowsAddressSpaceLimits, arguments.contains("--isolate"),
            !arguments.contains("--worker-memory")
        else { return arguments }
        return arguments + ["--worker-memory", "0"]
    }

    /// Runs `autocoding arguments…` with `stdin` (bytes) as standard input.
    package static func run(_ arguments: [String], stdin: Data, in directory: URL? = nil) throws -> Result {
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
        process.arguments = Self.runnable(arguments)
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
}
