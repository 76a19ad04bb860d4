import ArgumentParser
import AutoCodingCore
import Foundation

/// `autocoding get FILE PATH...`: prints the values at paths into an archive, reading only what they reach.
struct Get: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the values at paths into a keyed archive, reading only the objects on the paths.",
        discussion: """
            A path starts at $top and uses the keys exactly as stored: .key follows a key (and the UID it \
            holds), ["key"] does the same for any key (NS.objects holds a dot) and also finds an NSDictionary \
            element, [i] indexes an array or an NSArray's elements, [*] fans out. Examples: \
            '$top.root["NS.objects"][3].name', '$top.root[*].friends[0].name'.

            Prints one line per path: the value in the JSON form of `autocoding json` (an object with \
            everything it reaches), or for a path with [*] a JSON array of the values. Large files are \
            memory-mapped; only the objects on the paths and under the results are read and validated.

            Bounded for hostile archives: a path may reach at most one value per input byte (at least 4,096) \
            at any step, and each line at most --max-output-bytes (default 100 × the input + 1 MiB); past \
            either the command fails naming the budget.

            Exit status: 0 when every path resolves, 1 when the file cannot be read or a path does not \
            resolve (the error names the step at fault; lines for earlier paths are printed).
            """
    )

    @Flag(help: "Read, validate and decode the whole archive first (the eager path), then answer from the graph.")
    var eager = false

    @OptionGroup var budget: OutputBudgetOption

    @Argument(help: "A keyed archive (binary or XML), or '-' for standard input.")
    var file: String

    @Argument(help: "Paths such as $top.root.name (quote them in the shell: $ and [ are special).")
    var paths: [String]

    func run() throws {
        // The eager path exists to measure laziness against (scripts/lazy-benchmark.py) and to cross-check it.
        let evaluate: (ArchivePath) throws -> [ArchivedValue]
        // The output budget and the fan-out budget of `[*]` both follow the input's size.
        let inputBytes: Int
        do {
            if eager {
                let bytes = try InputFiles.read(file, limit: ArchiveReadingOptions().maxInputBytes)
                inputBytes = bytes.count
                let graph = try ArchiveGraph(bytes: bytes)
                let maxValues = ArchivePath.fanOutBudget(forInputBytes: inputBytes)
                evaluate = { try graph.values(at: $0, maxValues: maxValues) }
            } else {
                // A file is mapped and read only where the paths go; standard input is read whole, once.
                let archive =
                    file == ArchiveInput.standardInputName
                    ? try LazyKeyedArchive(bytes: InputFiles.read(file, limit: ArchiveReadingOptions().maxInputBytes))
                    : try LazyKeyedArchive(contentsOf: file)
                inputBytes = archive.byteCount
                evaluate = { try archive.values(at: $0) }
            }
        } catch {
            StandardError.write("error: \(file): \(ErrorReport.text(error))")
            throw ExitCode(1)
        }
        for text in paths {
            do {
                let path = try ArchivePath(parsing: text)
                let values = try evaluate(path)
                let maxOutputBytes = budget.bytes(forInputBytes: inputBytes)
                let line =
                    path.fansOut
                    ? try ArchivedValue.array(values).json(prettyPrinted: false, maxOutputBytes: maxOutputBytes)
                    : try values.first.map { try $0.json(prettyPrinted: false, maxOutputBytes: maxOutputBytes) } ?? "null"
                FileHandle.standardOutput.write(Data((line + "\n").utf8))
            } catch {
                StandardError.write("error: \(file): \(ErrorReport.text(error))")
                throw ExitCode(1)
            }
        }
    }
}
