import ArgumentParser
import AutoCodingCore
import Foundation

/// `autocoding encode`: the inverse of `autocoding json`, from the JSON form back to an archive or plist.
struct Encode: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a keyed archive (or property list) from the JSON that `autocoding json` prints.",
        discussion: """
            A JSON object whose first key is $archiver or $top is an archive graph ({"$archiver": …, \
            "$top": …} with $class/$uid/$ref objects) and is written as a keyed archive: each object once, \
            shared references and cycles kept. Any other JSON is a plain property-list value. \
            `autocoding encode` of `autocoding json X` is graph-equal to X for a keyed archive or property \
            list. The JSON of a typedstream ({"byteOrder", "systemVersion", "groups"}) is refused: it does not \
            encode back (convert the typedstream itself with convert --to keyed|xml|binary).

            The output goes to standard output unless -o names a file; binary output is refused on a terminal.

            Exit status: 0 on success, 1 when the JSON cannot be read or is not the JSON form, 2 on a usage error \
            (binary output to a terminal included).
            """
    )

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp("The file to write (default: standard output, not a terminal for binary).", valueName: "file"))
    var output: String = "-"

    @Option(help: "The property-list encoding written: binary or xml.")
    var format: ArchiveFile.Format = .binary

    @Argument(help: "The JSON file ('-' for standard input).")
    var path: String

    func run() throws {
        try refuseBinaryOnTerminal(output, isBinary: format == .binary)
        let bytes: [UInt8]
        do {
            let json = try InputFiles.read(path)
            bytes = try Self.encode(json: json, format: format)
        } catch {
            StandardError.write("error: \(path): \(ErrorReport(error).reason)")
            throw ExitCode(1)
        }
        try writeOutput(bytes, to: output)
    }

    /// The archive (or plist) the JSON describes, in `format`.
    static func encode(json: [UInt8], format: ArchiveFile.Format) throws -> [UInt8] {
        if isTypedstreamJSON(json) {
            throw ArchiveJSONError(
                .invalidForm,
                "this is the JSON of a typedstream, which encode does not turn back into one; convert the "
                    + "typedstream itself (convert --to keyed, xml or binary)")
        }
        if isArchiveGraph(json) {
            let graph = try ArchiveGraph(json: Data(json))
            // JSON can describe cycles ({"$ref": …}); the graph is freed with them broken.
            defer { graph.breakReferenceCycles() }
            let archive = graph.keyedArchive()
            return format == .binary ? try archive.binaryPlist(readableWith: ArchiveReadingOptions()) : try archive.xmlPlist()
        }
        guard let text = String(validating: json, as: UTF8.self) else {
            throw ArchiveJSONError(.invalidSyntax, "the JSON is not valid UTF-8")
        }
        let value = try ArchiveValue(json: text)
        return format == .binary ? try value.binaryPropertyList(readableWith: ArchiveReadingOptions()) : try value.xmlPropertyList()
    }

    /// Whether the JSON is an object whose first key is `$archiver` or `$top` (the graph form).
    static func isArchiveGraph(_ json: [UInt8]) -> Bool {
        firstKey(of: json, isOneOf: ["$archiver", "$top"])
    }

    /// Whether the JSON is the typedstream form `json` prints (`{"byteOrder", "systemVersion", "groups"}`), which
    /// does not encode back: read as a plain property list it would give a dictionary, not the stream.
    static func isTypedstreamJSON(_ json: [UInt8]) -> Bool {
        firstKey(of: json, isOneOf: ["byteOrder"])
    }

    private static func firstKey(of json: [UInt8], isOneOf keys: [String]) -> Bool {
        var index = json.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        func skipSpace() {
            while index < json.count, [0x20, 0x09, 0x0A, 0x0D].contains(json[index]) { index += 1 }
        }
        skipSpace()
        guard index < json.count, json[index] == UInt8(ascii: "{") else { return false }
        index += 1
        skipSpace()
        let rest = json[index...]
        return keys.contains { rest.starts(with: Array("\"\($0)\"".utf8)) }
    }
}

extension ArchiveFile.Format: ExpressibleByArgument {}

/// Refuses binary output bound for a terminal, as gzip and plutil do: it would garble the screen and help no one.
/// Checked before any work; exits with status 2 (how the command was called, not the input, is at fault).
func refuseBinaryOnTerminal(_ path: String, isBinary: Bool) throws {
    guard path == "-", isBinary, isatty(1) == 1 else { return }
    StandardError.write(
        "error: binary output is not written to a terminal; redirect standard output, name a file with -o FILE, "
            + "or ask for XML")
    throw ExitCode(2)
}

/// Writes command output to a file atomically, or to standard output for `-`; failures exit with status 1.
func writeOutput(_ bytes: [UInt8], to path: String) throws {
    do {
        if path == "-" {
            let sink = OutputSink.standardOutput()
            try sink.write(bytes)
            try sink.flush()
        } else {
            try ArchiveFile.write(bytes, to: path)
        }
    } catch {
        StandardError.write("error: \(ErrorReport(error).reason)")
        throw ExitCode(1)
    }
}
