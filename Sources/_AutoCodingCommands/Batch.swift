import ArgumentParser
import AutoCodingCore
import Foundation

/// `autocoding batch`: decodes many archives in parallel and prints one NDJSON record per input.
struct Batch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decode many archives in parallel, one NDJSON record per input.",
        discussion: """
            Inputs are files and directories (searched recursively), one path per line of standard input \
            (--stdin), or the blob column of each row of a SQLite query (--sqlite DB --query SQL, or --sqlite DB \
            --table NAME --column NAME for a whole table, such as Messages' message.attributedBody). Each input \
            is read, validated and resolved into its whole object graph on one of --jobs worker threads; \
            memory stays bounded (each worker holds one input, and at most a small window of finished records \
            waits to be written in input order).

            Each record is one line of JSON, in input order: {"path", "ok", "format", "archiver", \
            "root_class", "objects" ($objects count), "bytes", "ms", "error": null or {"code", "reason"}}; \
            with --sqlite also "row" (the row's other columns) and "column"; with --with-json also "graph" \
            (the form `autocoding json` prints). Typedstreams (NSArchiver, iMessage attributedBody) are \
            sniffed and validated as such: "format": "typedstream", "objects" their literal objects. \
            Inputs that are not keyed archives are records with "ok": false and the code notPropertyList or \
            notKeyedArchive, never fatal.

            On a terminal a progress bar is drawn on standard error; nothing of it is written when standard \
            error is not a terminal or with --quiet. A summary (counts, failures by error code, throughput) \
            ends the run on standard error, unless --quiet.

            Exit status: 0 when every input decoded, 1 when any failed, 2 on a usage error (bad options, a \
            query that does not compile, an output file that cannot be created).
            """
    )

    @Argument(help: "Files or directories (searched recursively).")
    var paths: [String] = []

    @Flag(help: "Read the paths to decode from standard input, one per line.")
    var stdin = false

    @Option(help: ArgumentHelp("Decode blobs from this SQLite database (opened read-only).", valueName: "db"))
    var sqlite: String?

    @Option(help: ArgumentHelp("The query whose rows hold the blobs (with --sqlite).", valueName: "sql"))
    var query: String?

    @Option(
        help: ArgumentHelp(
            "Decode every row of this table (with --sqlite and --column), instead of --query.",
            valueName: "name"
        )
    )
    var table: String?

    @Option(
        help: ArgumentHelp(
            "The result column holding the archive (default: the query's last column).",
            valueName: "name"
        )
    )
    var column: String?

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp("Write the records to this file instead of standard output.", valueName: "file")
    )
    var output: String?

    @Option(help: "Worker threads (default: the number of cores).")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    @Flag(name: .customLong("with-json"), help: "Add the decoded graph to each record (\"graph\").")
    var withJSON = false

    @Flag(name: .shortAndLong, help: "No progress bar and no summary.")
    var quiet = false

    @Option(help: "The binary-plist parser: native or libplist.")
    var backend: ArchiveReadingOptions.Backend = .native

    func validate() throws {
        let sources = (paths.isEmpty ? 0 : 1) + (stdin ? 1 : 0) + (sqlite == nil ? 0 : 1)
        guard sources == 1 else {
            throw ValidationError(
                "Give files or directories, --stdin, or --sqlite DB --query SQL (exactly one of them)."
            )
        }
        if sqlite != nil && (query == nil) == (table == nil) {
            throw ValidationError("--sqlite needs --query SQL or --table NAME --column NAME.")
        }
        if table != nil && column == nil { throw ValidationError("--table needs --column NAME.") }
        if sqlite == nil && (query != nil || column != nil || table != nil) {
            throw ValidationError("--query, --table and --column go with --sqlite.")
        }
        guard (1...512).contains(jobs) else { throw ValidationError("--jobs must be between 1 and 512.") }
    }

    func run() throws {
        var options = ArchiveReadingOptions()
        options.backend = backend
        let showProgress = BatchProgress.isWanted(quiet: quiet)

        let source: any BatchSource
        if let sqlite, let query = query ?? table.map({ Self.tableQuery(table: $0, column: column ?? "") }) {
            source = try usage {
                try Self.sqliteSource(database: sqlite, query: query, column: column, count: showProgress)
            }
        } else if stdin {
            source = LineSource(reader: LineReader(fd: 0))
        } else {
            source = PathListSource(paths: InputFiles.expand(paths))
        }
        let sink = try usage { try output.map(OutputSink.file) ?? OutputSink.standardOutput() }

        let start = Monotonic.nanoseconds()
        var progress = BatchProgress(start: start)
        let runner = BatchRunner(
            source: source,
            decoder: BatchDecoder(options: options, withJSON: withJSON),
            sink: sink,
            jobs: jobs
        )
        let statistics: BatchStatistics
        do {
            statistics = try runner.run { if showProgress { progress.draw($0) } }
        } catch {
            if showProgress { progress.clear() }
            StandardError.write("error: \(ErrorReport(error).reason)")
            throw ExitCode(1)
        }
        if showProgress {
            progress.draw(statistics)
            progress.clear()
        }
        let seconds = Double(Monotonic.nanoseconds() - start) / 1e9
        if !quiet { StandardError.write(BatchSummary.text(statistics, seconds: seconds, jobs: jobs)) }
        if statistics.failed > 0 || statistics.sourceError != nil { throw ExitCode(1) }
    }

    /// Runs `body`; a failure is a usage error (exit status 2) with its message.
    private func usage<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            StandardError.write("error: \(ErrorReport(error).reason)")
            throw ExitCode(2)
        }
    }

    /// `SELECT ROWID, "column" FROM "table" ORDER BY ROWID`, with identifiers quoted for SQL.
    static func tableQuery(table: String, column: String) -> String {
        func quoted(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        return "SELECT ROWID, \(quoted(column)) FROM \(quoted(table)) ORDER BY ROWID"
    }

    /// Opens the database read-only and compiles the query; the blob column is `column` or the last one.
    static func sqliteSource(database: String, query: String, column: String?, count: Bool) throws -> SQLiteRowSource {
        guard FileManager.default.isReadableFile(atPath: database) else {
            throw SQLiteError(operation: "open \(database)", code: 14, message: "no readable file at this path")
        }
        let connection = try SQLiteDatabase(path: database)
        let statement = try connection.prepare(query)
        guard statement.columnCount > 0 else {
            throw SQLiteError(operation: "prepare", code: 1, message: "the query returns no columns")
        }
        let names = (0..<statement.columnCount).map(statement.columnName)
        let blobColumn: Int
        if let column {
            guard let index = names.firstIndex(of: column) else {
                throw SQLiteError(
                    operation: "--column",
                    code: 1,
                    message: "the query has no column \(column) (it has \(names.joined(separator: ", ")))"
                )
            }
            blobColumn = index
        } else {
            blobColumn = names.count - 1
        }
        var total: Int?
        if count {
            // For the progress bar's ETA only; a query SQLite cannot wrap is run without a total.
            let trimmed = query.trimmingCharacters(in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: ";")))
            if let counter = try? connection.prepare("SELECT count(*) FROM (\(trimmed))"),
                (try? counter.step()) == true,
                case .integer(let n) = counter.value(0)
            {
                total = Int(n)
            }
        }
        return SQLiteRowSource(statement: statement, database: database, blobColumn: blobColumn, total: total)
    }
}
