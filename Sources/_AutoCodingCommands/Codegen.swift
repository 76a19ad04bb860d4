import ArgumentParser
import AutoCodingCodegen
import AutoCodingCore
import Foundation

/// `autocoding codegen FILE... -o Models.swift`: Swift models inferred from archives.
struct Codegen: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write Swift @AutoCoding models for the classes archived in the given files.",
        discussion: """
            One @AutoCoding class per archived class seen across all the files (Foundation classes map to \
            String, Date, Data, URL, UUID, arrays and dictionaries). Property types come from every \
            instance's fields; a field missing from some instance or sometimes $null is optional; keys that \
            are not Swift identifiers get @ArchiveKey; fields stored other than as their Swift type stores by \
            default (a referenced number, nil as $null, an NSMutableArray) get @ArchiveAs; each class keeps \
            its archived name and chain through ArchiveCodable, and GeneratedModels.register() registers the \
            names. A field with no single type keeps the archived graph value (ArchivedValue), and the class \
            is listed on standard error.

            Exit status: 0 on success, 1 when a file cannot be read as a keyed archive.
            """
    )

    @Option(name: .shortAndLong, help: "The Swift file to write (standard output when omitted).")
    var output: String?

    @Argument(help: "Keyed archives (binary or XML); '-' for standard input.")
    var files: [String]

    func run() throws {
        var graphs: [(name: String, graph: ArchiveGraph)] = []
        for file in files {
            do {
                graphs.append((URL(fileURLWithPath: file).lastPathComponent, try ArchiveGraph(contentsOf: file)))
            } catch {
                StandardError.write("error: \(file): \(ErrorReport.text(error))")
                throw ExitCode(1)
            }
        }
        let generated = ModelCodegen.generate(graphs)
        let text = generated.source
        for note in generated.notes { StandardError.write("note: \(note)") }
        if let output {
            try Data(text.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
        } else {
            FileHandle.standardOutput.write(Data(text.utf8))
        }
    }
}
