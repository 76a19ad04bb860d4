import ArgumentParser
import _AutoCodingCommands
import Foundation

/// The `autocoding` command: inspects, validates and converts NSKeyedArchiver archives.
@main
struct AutoCodingCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "autocoding",
        abstract: "Read, validate and convert NSKeyedArchiver archives and property lists.",
        subcommands: AutoCodingCommands.all + [Bench.self]
    )

    /// Runs the command. Usage errors exit with status 2 (not ArgumentParser's 64), as the documentation states.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                FileHandleOutput.standardError(fullMessage(for: error))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}

/// Minimal unbuffered output helpers shared by the subcommands.
enum FileHandleOutput {
    static func standardError(_ message: String) {
        FileHandle.standardError.write(Data((message.hasSuffix("\n") ? message : message + "\n").utf8))
    }
}
