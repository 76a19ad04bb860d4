import ArgumentParser
import Foundation

/// The subcommands of `autocoding` that live in this library, for the root command of the executable.
///
/// The commands are a library rather than part of the executable so that tests can import them: when a package
/// has a macro target, SwiftPM builds test targets for the host and does not build an executable's module
/// for them, so `@testable import` of an executable target fails there.
public enum AutoCodingCommands {
    /// `inspect`, `json`, `get`, `codegen`, `encode`, `convert`, `validate`, `batch`, `sample`, `events` and `messages`, in the order `--help` lists them.
    public static var all: [any ParsableCommand.Type] {
        [Inspect.self, JSONCommand.self, Get.self, Codegen.self, Encode.self, Convert.self, Validate.self, Batch.self, Sample.self,
         Events.self, Messages.self, BatchWorker.self]
    }
}

/// Unbuffered messages on standard error.
enum StandardError {
    /// Writes `message`, adding a newline if it has none. Control characters (from archive text quoted in a
    /// reason) are escaped; the message's own lines are kept.
    static func write(_ message: String) {
        let message = TerminalText.escaped(message, keepingNewlines: true)
        FileHandle.standardError.write(Data((message.hasSuffix("\n") ? message : message + "\n").utf8))
    }
}
