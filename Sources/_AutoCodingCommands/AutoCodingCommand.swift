import ArgumentParser
import AutoCodingCore
import Foundation

/// The `autocoding` command: reads, validates and converts NSKeyedArchiver archives, typedstreams and property lists.
public struct AutoCodingCommand: ParsableCommand {
    /// The root command's name, abstract, version (`--version` prints ``AutoCodingVersion/current``) and
    /// subcommands, in the order `--help` lists them.
    public static let configuration = CommandConfiguration(
        commandName: "autocoding",
        abstract: "Read, validate and convert NSKeyedArchiver archives and property lists.",
        version: AutoCodingVersion.current,
        subcommands: AutoCodingCommands.all
    )

    /// Creates the command (ArgumentParser fills its options).
    public init() {}

    /// Parses the process's arguments and runs the subcommand. Usage errors exit with status 2 (not
    /// ArgumentParser's 64), as the documentation states.
    public static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            if exitCode(for: error) == .validationFailure {
                StandardError.write(fullMessage(for: error))
                Foundation.exit(2)
            }
            // ArgumentParser prints `Error: ` and the error's description; library errors print as the
            // commands print them (ErrorReport.text), so a file failure reads as it always has.
            exit(withError: ErrorReport.isLibraryError(error) ? ErrorReport.Printed(error) : error)
        }
    }
}
