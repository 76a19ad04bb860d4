import ArgumentParser
import AutoCodingCore
import Foundation

/// `autocoding events`: the event layer of a typedstream as stable text.
struct Events: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the events of a typedstream (NSArchiver) file as text.",
        discussion: """
            One event per line, indented by nesting, in the form python-typedstream's `read` prints: the \
            header, then `begin typed values (types [...])`, values, `begin literal object (#n)`, class chains \
            as `class Name vN (#n)`, and `<reference to object #n>` for back-references.

            Exit status: 0 on success, 1 when the file cannot be read or is not a valid typedstream.
            """
    )

    @Argument(help: "A typedstream file (signature streamtyped or typedstream), or '-' for standard input.")
    var path: String

    func run() throws {
        let stream: Typedstream
        do {
            stream = try Typedstream(bytes: InputFiles.read(path))
        } catch {
            StandardError.write("error: \(path): \(ErrorReport(error).reason)")
            throw ExitCode(1)
        }
        FileHandle.standardOutput.write(Data(TerminalText.escaped(stream.eventText(), keepingNewlines: true).utf8))
    }
}
