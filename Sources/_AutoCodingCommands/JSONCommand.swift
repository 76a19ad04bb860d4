import ArgumentParser
import AutoCodingCore
import Foundation

/// `autocoding json`: prints a keyed archive as JSON, with `$ref` for shared and cyclic objects.
struct JSONCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "json",
        abstract: "Print a keyed archive or property list as JSON.",
        discussion: """
            An archive prints as {"$archiver": …, "$top": {…}}. Each object prints as \
            {"$class": …, "$uid": n, …} the first time and as {"$ref": n} after that, so shared objects \
            and cycles stay finite. A plain property list prints as JSON of its value. Data prints as \
            {"$data": "<base64>"}, dates as {"$date": "<ISO 8601>"}. A typedstream (NSArchiver) prints as \
            {"text", "runs"} when it is an iMessage attributedBody, else as its groups of typed values with \
            objects as {"$class", "$classes", "$versions", "$id", "groups"} and {"$ref": id} ($id is inspect's #n).

            A value stored once and reached from several places (a string referenced by many UIDs) prints as \
            {"$entry": value, "$uid": n} the first time and {"$ref": n} after that. What still expands is \
            bounded: past --max-output-bytes (default 100 × the input + 1 MiB) the command fails with \
            limitExceeded and prints nothing.

            --plain prints the data as people want it for jq, with no markers: dictionaries as objects, \
            arrays and sets as arrays, dates as ISO 8601 text, data as base64, UUIDs and URLs as text, NSValue \
            ranges and geometry as objects, attributed strings as their text (--with-runs: with their runs), \
            other objects as objects of their fields (--with-class: with "$class"), shared objects in full at \
            every reference and a cycle as {"$cycle": "ClassName"}. It applies to keyed archives, plain property \
            lists and typedstreams, within the same --max-output-bytes budget. It does not read back with encode. \
            With --nested, data that is itself a property list, keyed archive or typedstream (an NSData field \
            holding an archive, an iMessage edit-history blob) prints decoded in place, 4 levels deep at most; \
            the bytes decoded count against the budget.

            Exit status: 0 on success, 1 when the file cannot be read or is not a keyed archive or property list.
            """
    )

    @Flag(help: "Print on one line, without indentation.")
    var compact = false

    @Flag(help: "Print the data alone, with no markers (does not read back with encode).")
    var plain = false

    @Flag(help: "With --plain: print \"$class\" in objects of classes with no Foundation mapping.")
    var withClass = false

    @Flag(help: "With --plain: print attributed strings as {\"text\", \"runs\"}, not as their text alone.")
    var withRuns = false

    @Flag(help: "With --plain: decode data that is itself a plist, keyed archive or typedstream in place (4 levels).")
    var nested = false

    @Option(help: "The binary-plist parser: native or libplist.")
    var backend: ArchiveReadingOptions.Backend = .native

    @OptionGroup var budget: OutputBudgetOption

    @Argument(help: "A keyed archive or property list (binary or XML), or '-' for standard input.")
    var path: String

    func validate() throws {
        if (withClass || withRuns || nested) && !plain {
            throw ValidationError("--with-class, --with-runs and --nested need --plain.")
        }
    }

    func run() throws {
        var options = ArchiveReadingOptions()
        options.backend = backend
        let text: String
        do {
            // Read once: the path may be a pipe, and a second open could see another file.
            let bytes = try InputFiles.read(path, limit: options.maxInputBytes)
            let maxOutputBytes = budget.bytes(forInputBytes: bytes.count)
            let plainOptions = PlainJSONOptions(
                includesClassNames: withClass, includesAttributeRuns: withRuns, nestedLevels: nested ? 4 : 0)
            if plain {
                let text: String
                if Typedstream.hasSignature(bytes) {
                    text = try TypedGraph(bytes: bytes, options: options).plainJSON(
                        prettyPrinted: !compact, options: plainOptions, maxOutputBytes: maxOutputBytes)
                } else {
                    switch try ArchiveFile.contents(of: bytes, options: options) {
                    case .keyedArchive(let graph):
                        text = try graph.plainJSON(
                            prettyPrinted: !compact, options: plainOptions, maxOutputBytes: maxOutputBytes)
                    case .propertyList(let value):
                        text = try value.plainJSON(
                            prettyPrinted: !compact, options: plainOptions, maxOutputBytes: maxOutputBytes)
                    case .data:
                        StandardError.write("error: \(path): not a keyed archive, property list or typedstream")
                        throw ExitCode(1)
                    }
                }
                FileHandle.standardOutput.write(Data((text + "\n").utf8))
                return
            }
            if Typedstream.hasSignature(bytes) {
                let text = try TypedstreamJSON.json(bytes, options: options, maxOutputBytes: maxOutputBytes)
                FileHandle.standardOutput.write(Data((text + "\n").utf8))
                return
            }
            switch try ArchiveFile.contents(of: bytes, options: options) {
            case .keyedArchive(let graph):
                text = try graph.json(prettyPrinted: !compact, maxOutputBytes: maxOutputBytes)
            case .propertyList(let value):
                text = try value.json(prettyPrinted: !compact, maxOutputBytes: maxOutputBytes)
            case .data:
                StandardError.write("error: \(path): not a keyed archive or property list")
                throw ExitCode(1)
            }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            // Thrown errors would print as ArgumentParser's "Error: …"; the documented form is "error: …".
            // A file-system error already names the path.
            let text = ErrorReport.text(error)
            let namesPath = (error as? ArchiveError)?.code == .fileAccess
            StandardError.write(namesPath ? "error: \(text)" : "error: \(path): \(text)")
            throw ExitCode(1)
        }
        // One write of the whole text: large archives print megabytes, which print() would copy again.
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}
