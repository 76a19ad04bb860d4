import ArgumentParser
import AutoCodingCore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `autocoding get FILE PATH...`: prints the values at paths into an archive, a property list or a typedstream,
/// reading only what the paths reach in a keyed archive.
struct Get: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the values at paths or plutil key paths into an archive, property list or typedstream.",
        discussion: """
            Two syntaxes, told apart by their start. A path starts with $top and uses the keys exactly as \
            stored: .key follows a key (and the UID it holds), ["key"] does the same for any key (NS.objects \
            holds a dot), [i] indexes an array or an NSArray's elements (negative from the end: [-1] is the \
            last), [*] fans out. Any other text is a plutil key path: keys separated by dots, a number \
            indexing an array or an NSArray (root.0.name is $top.root.0.name), \\. for a dot inside a key. \
            A key also finds an NSDictionary's element by key. Examples: '$top.root["NS.objects"][3].name', \
            '$top.root[*].friends[-1].name', 'root.0.name'.

            In a keyed archive $top holds the $top keys (root …); in a plain property list $top is the \
            root value (key path 0.name, path $top[0].name); a typedstream is read as its keyed form, \
            root being its first value and $1, $2 … the others.

            Prints one line per path: the value in the JSON form of `autocoding json` (an object with \
            everything it reaches), or for a path with [*] a JSON array of the values. With --raw, strings, \
            numbers, booleans, dates (ISO 8601) and data (base64) print as they are, as plutil -extract … raw \
            does, one line per value; an array, dictionary, $null or other object is an error (drop --raw \
            for its JSON). Large keyed archives are memory-mapped; only the objects on the paths and under \
            the results are read and validated.

            Bounded for hostile archives: a path may reach at most one value per input byte (at least 4,096) \
            at any step, and each path's output at most --max-output-bytes (default 100 × the input + 1 MiB); \
            past either the command fails naming the budget.

            Exit status: 0 when every path resolves; 1 when the file cannot be read or a path does not \
            resolve (the error names the step at fault; lines for earlier paths are printed); 2 for a usage \
            error, such as a path that does not parse (the error names the byte offset), before anything is read.
            """
    )

    @Flag(help: "Read, validate and decode the whole archive first (the eager path), then answer from the graph.")
    var eager = false

    @Flag(help: "Print strings, numbers, booleans, dates and data without JSON quoting, one line per value.")
    var raw = false

    @OptionGroup var budget: OutputBudgetOption

    @Argument(help: "A keyed archive or property list (binary or XML), a typedstream, or '-' for standard input.")
    var file: String

    @Argument(help: "Paths such as '$top.root.name' or key paths such as root.name (quote $ and [ in the shell).")
    var paths: [String]

    func run() throws {
        // Every path is checked before the file is opened: a typo is a usage error, not a failed read.
        var parsed: [ArchivePath] = []
        for text in paths {
            do {
                parsed.append(try ArchivePath(parsing: text))
            } catch {
                StandardError.write("error: \(ErrorReport.text(error))")
                throw ExitCode(2)
            }
        }
        let source: GetSource
        do {
            source = try GetSource(file: file, eager: eager)
        } catch {
            StandardError.write("error: \(file): \(ErrorReport.text(error))")
            throw ExitCode(1)
        }
        let maxOutputBytes = budget.bytes(forInputBytes: source.inputBytes)
        let toTerminal = isatty(1) == 1
        for path in parsed {
            do {
                let text =
                    try raw ? source.rawLines(at: path) : source.jsonLine(at: path, maxOutputBytes: maxOutputBytes)
                guard text.utf8.count <= maxOutputBytes else {
                    throw OutputBudget.exceeded(maxOutputBytes, what: "the output for \(path)")
                }
                // Archive text must not act on a terminal (escape sequences); JSON stays the same JSON value.
                let shown =
                    !toTerminal ? text
                    : raw ? TerminalText.escaped(text, keepingNewlines: true) : TerminalText.jsonEscaped(text)
                FileHandle.standardOutput.write(Data((shown + "\n").utf8))
            } catch {
                StandardError.write("error: \(file): \(ErrorReport.text(error))")
                throw ExitCode(1)
            }
        }
    }
}

/// What `get` answers paths from: a keyed archive read lazily, a decoded graph (`--eager`, or a typedstream
/// in its keyed form), or a plain property list.
enum GetSource {
    case lazy(LazyKeyedArchive)
    case graph(ArchiveGraph, inputBytes: Int)
    case propertyList(ArchiveValue, inputBytes: Int)

    /// Opens `file`. A keyed archive in a regular file is mapped and read lazily unless `eager`; anything else
    /// (standard input, a pipe, another format) is read once, whole.
    init(file: String, eager: Bool) throws {
        let limit = ArchiveReadingOptions().maxInputBytes
        if !eager, file != ArchiveInput.standardInputName, Self.isRegularFile(file) {
            do {
                self = .lazy(try LazyKeyedArchive(contentsOf: file))
                return
            } catch {
                // A plain property list or a typedstream is read whole below. A second open is harmless for a
                // regular file (the one-read rule is for pipes, which never get here).
                guard error.code == .notKeyedArchive || error.code == .notPropertyList else { throw error }
            }
        }
        let bytes = try InputFiles.read(file, limit: limit)
        if !eager, ArchiveFormat.detect(bytes) != nil, let archive = try? LazyKeyedArchive(bytes: bytes) {
            self = .lazy(archive)
            return
        }
        self = try Self.decoded(bytes)
    }

    /// Bytes decoded whole: a typedstream as its keyed graph, a keyed archive as its graph, a property list.
    private static func decoded(_ bytes: [UInt8]) throws -> GetSource {
        if Typedstream.hasSignature(bytes) {
            return .graph(try TypedGraph(bytes: bytes).keyedArchiveGraph(), inputBytes: bytes.count)
        }
        switch try ArchiveFile.contents(of: bytes) {
        case .keyedArchive(let graph): return .graph(graph, inputBytes: bytes.count)
        case .propertyList(let value): return .propertyList(value, inputBytes: bytes.count)
        case .data: throw ArchiveError(.notPropertyList, "not a keyed archive, property list or typedstream")
        }
    }

    private static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// The size of the input, which sets the budgets.
    var inputBytes: Int {
        switch self {
        case .lazy(let archive): archive.byteCount
        case .graph(_, let n), .propertyList(_, let n): n
        }
    }

    /// The values at `path`, as graph values or property-list values.
    private func values(at path: ArchivePath) throws -> Either {
        let maxValues = ArchivePath.fanOutBudget(forInputBytes: inputBytes)
        switch self {
        case .lazy(let archive):
            let (values, numbers) = try archive.numberedValues(at: path)
            return .graph(values, numbers)
        case .graph(let graph, _): return .graph(try graph.values(at: path, maxValues: maxValues), graph.objectNumbers)
        case .propertyList(let value, _): return .plist(try value.values(at: path, maxValues: maxValues))
        }
    }

    private enum Either {
        case graph([ArchivedValue], ObjectNumbers?)
        case plist([ArchiveValue])
    }

    /// The JSON line for `path`: its value, or for a path with `[*]` the array of its values.
    func jsonLine(at path: ArchivePath, maxOutputBytes: Int) throws -> String {
        switch try values(at: path) {
        case .graph(let values, let numbers):
            // Objects are named by their archive UIDs, the numbers of `json` and `inspect`.
            let value = path.fansOut ? .array(values) : values.first ?? .null
            return try value.json(prettyPrinted: false, maxOutputBytes: maxOutputBytes, numbers: numbers)
        case .plist(let values):
            guard let value = path.fansOut ? .array(values) : values.first else { return "null" }
            return try value.json(prettyPrinted: false, maxOutputBytes: maxOutputBytes)
        }
    }

    /// One raw line per value at `path`; a value without a raw form throws.
    func rawLines(at path: ArchivePath) throws -> String {
        let lines: [String?]
        let names: [String]
        switch try values(at: path) {
        case .graph(let values, _):
            lines = values.map(\.rawText)
            names = values.map(Self.kindName)
        case .plist(let values):
            lines = values.map(\.rawText)
            names = values.map(Self.kindName)
        }
        for (i, line) in lines.enumerated() where line == nil {
            let which = path.fansOut ? "value \(i) of the fan-out" : "the value"
            throw GetRawError(
                description: "\(path): \(which) is \(names[i]), which has no raw form: "
                    + "--raw prints strings, numbers, booleans, dates and data; drop --raw for its JSON")
        }
        return lines.compactMap { $0 }.joined(separator: "\n")
    }

    private static func kindName(_ value: ArchivedValue) -> String {
        switch value {
        case .null: "$null"
        case .object(let object): "an instance of \(object.className)"
        case .array: "an array"
        case .dictionary: "a dictionary"
        case .inline(let scalar), .reference(let scalar): kindName(scalar)
        }
    }

    private static func kindName(_ value: ArchiveValue) -> String {
        value.typeName == "array" ? "an array" : "a \(value.typeName)"
    }
}

/// A value that `--raw` cannot print.
struct GetRawError: Error, CustomStringConvertible {
    var description: String
}
