import ArgumentParser
import AutoCodingCore
import Foundation

/// `autocoding convert`: rewrites an archive or property list as binary or XML.
struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert a keyed archive or property list between binary and XML.",
        discussion: """
            The input (binary or XML, archive or plain property list) is read strictly and written whole: \
            binary by the native writer (uniqued scalars, minimal widths), XML through libplist with UIDs as \
            CF$UID dictionaries. Keyed archives keep their $objects table as it is. A typedstream (NSArchiver) \
            converts with --to keyed into an equivalent NSKeyedArchiver archive of its object graph: \
            Foundation classes in their keyed forms, other classes with their typed values as $0, $1, …; with \
            --to xml or binary into a plain property list of its Foundation values (NSString, NSNumber, \
            NSArray, NSDictionary with string keys, NSData, NSDate), refused naming the class that has none.

            The output goes to standard output unless -o names a file; binary output is refused on a terminal.

            Exit status: 0 on success, 1 when the input cannot be read or the output written, 2 on a usage error \
            (binary output to a terminal included).
            """
    )

    /// What `--to` names: a property-list encoding, or `keyed` for a typedstream's graph as a keyed archive.
    enum Target: String, ExpressibleByArgument, CaseIterable {
        case binary, xml, keyed
    }

    @Option(help: "The encoding to write: binary, xml, or keyed (a typedstream as an NSKeyedArchiver archive).")
    var to: Target

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp("The file to write (default: standard output, not a terminal for binary).", valueName: "file"))
    var output: String = "-"

    @Option(help: "The binary-plist parser: native or libplist.")
    var backend: ArchiveReadingOptions.Backend = .native

    @Argument(help: "A keyed archive or property list (binary or XML), or '-' for standard input.")
    var path: String

    func run() throws {
        try refuseBinaryOnTerminal(output, isBinary: to != .xml)
        var options = ArchiveReadingOptions()
        options.backend = backend
        let bytes: [UInt8]
        do {
            let input = try InputFiles.read(path, limit: options.maxInputBytes)
            if Typedstream.hasSignature(input) || to == .keyed {
                // keyed: the graph as an NSKeyedArchiver archive; xml/binary: a plain plist (TypedPropertyList.swift).
                bytes = try TypedPropertyList.convert(input, to: to, options: options)
                try writeOutput(bytes, to: output)
                return
            }
            let value = try ArchiveValue(propertyList: input, options: options)
            // An archive must be a valid one: converting must not launder a broken archive into a new file.
            _ = try FileCheck.keyedArchive(value, options: options)
            bytes = to == .binary ? try value.binaryPropertyList(readableWith: options) : try value.xmlPropertyList()
        } catch {
            StandardError.write("error: \(path): \(ErrorReport(error).reason)")
            throw ExitCode(1)
        }
        try writeOutput(bytes, to: output)
    }
}
