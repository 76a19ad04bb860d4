import ArgumentParser
import AutoCodingCore
import Foundation

/// `autocoding batch`: decodes many archives in parallel and prints one NDJSON record per input.
struct Batch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decode many archives in parallel, one NDJSON record per input.",
        discussion: """
            Inputs are files and directories (searched recursively), one path per line of standard input \
            (--stdin), length-prefixed blobs with ids on standard input (--stdin-frames; the frame format is \
            in docs/SCALING.md), or the blob column of each row of a SQLite query (--sqlite DB --query SQL, or \
            --sqlite DB --table NAME --column NAME for a whole table, such as Messages' message.attributedBody). \
            Each input \
            is read, validated and resolved into its whole object graph on one of --jobs worker threads; \
            memory stays bounded (each worker holds one input, and at most a small window of finished records \
            waits to be written in input order).

            Each record is one line of JSON, in input order: {"path", "ok", "format", "archiver", \
            "root_class", "objects" ($objects count), "bytes", "ms", "error": null or {"code", "reason"}}; \
            with --sqlite also "row" (the row's other columns) and "column"; with --stdin-frames "id" instead \
            of "path"; with --with-json also "graph" (the form `autocoding json` prints). Typedstreams \
            (NSArchiver, iMessage attributedBody) are sniffed and validated as such: "format": "typedstream", \
            "objects" their literal objects. Inputs that are not keyed archives are records with "ok": false \
            and the code notPropertyList or notKeyedArchive, never fatal; in SQLite columns a plain property \
            list is an ok record with "format": "plain", and NULL cells are skipped and counted in the summary.

            --isolate decodes in worker processes (this executable, restarted as a hidden batch-worker), one \
            per job, each serving many inputs, with an address space limit (--worker-memory MiB, default \
            1024), a CPU limit per input (--worker-cpu seconds, default 30) and a wall-clock limit per input \
            enforced by killing the worker (--timeout seconds, default 60; 0 turns a limit off). A crash, a \
            limit or a hang becomes that input's record, with the code workerCrashed, limitExceeded or \
            timeout, and the next input gets a fresh worker.

            --resume continues an interrupted run from its -o file: the inputs it already has records for are \
            skipped (by path, row or id), a torn last line is cut off, and the new records are appended.

            On a terminal a progress bar is drawn on standard error; nothing of it is written when standard \
            error is not a terminal or with --quiet. A summary (counts, failures by error code, throughput) \
            ends the run on standard error, unless --quiet.

            Exit status: 0 when every input decoded, 1 when any failed, 2 on a usage error (bad options, a \
            database that is not SQLite, is locked or lacks the table or column, a query that does not \
            compile or passes --sqlite-timeout, an output file that cannot be created or resumed, workers \
            that cannot start, files and directories that hold no input) or when the input cannot be read to its end (a truncated or oversized frame, \
            a SQLite error mid-query), after the records of the inputs before it.
            """
    )

    @Argument(help: "Files or directories (searched recursively).")
    var paths: [String] = []

    @Flag(help: "Read the paths to decode from standard input, one per line.")
    var stdin = false

    @Flag(
        name: .customLong("stdin-frames"),
        help: "Read blobs from standard input as frames: 4-byte id length, id, 8-byte payload length, payload."
    )
    var stdinFrames = false

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
        name: .customLong("sqlite-timeout"),
        help: ArgumentHelp("The most seconds SQLite may take to produce one row (default: 30).", valueName: "s")
    )
    var sqliteTimeout: Double = 30

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

    @Flag(help: "Decode in worker processes with memory, CPU and time limits.")
    var isolate = false

    @Option(
        name: .customLong("worker-memory"),
        help: ArgumentHelp("Address space of each worker in MiB, with --isolate (default: 1024).", valueName: "MiB")
    )
    var workerMemory: Int?

    @Option(
        name: .customLong("worker-cpu"),
        help: ArgumentHelp("CPU seconds per input, with --isolate (default: 30).", valueName: "s")
    )
    var workerCPU: Int?

    @Option(help: ArgumentHelp("Wall-clock seconds per input, with --isolate (default: 60).", valueName: "s"))
    var timeout: Double?

    @Flag(help: "Continue an interrupted run: skip the inputs the -o file already has records for, then append.")
    var resume = false

    @Option(help: "The binary-plist parser: native or libplist.")
    var backend: ArchiveReadingOptions.Backend = .native

    func validate() throws {
        let sources = (paths.isEmpty ? 0 : 1) + (stdin ? 1 : 0) + (stdinFrames ? 1 : 0) + (sqlite == nil ? 0 : 1)
        guard sources == 1 else {
            throw ValidationError(
                "Give files or directories, --stdin, --stdin-frames, or --sqlite DB --query SQL (exactly one of them)."
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
        guard sqliteTimeout > 0 && sqliteTimeout <= 1e6 else {
            throw ValidationError("--sqlite-timeout must be a positive number of seconds (at most 1000000).")
        }
        if !isolate && (workerMemory != nil || workerCPU != nil || timeout != nil) {
            throw ValidationError("--worker-memory, --worker-cpu and --timeout go with --isolate.")
        }
        if let workerMemory, workerMemory != 0 && !(64...(1 << 30)).contains(workerMemory) {
            throw ValidationError("--worker-memory must be 0 (no limit) or at least 64 MiB.")
        }
        if let workerCPU, !(0...1_000_000_000).contains(workerCPU) {
            throw ValidationError("--worker-cpu must be 0 (no limit) or a number of seconds.")
        }
        if let timeout, !(timeout >= 0 && timeout < 1e9) {
            throw ValidationError("--timeout must be 0 (no limit) or a positive number of seconds.")
        }
        if resume && (output == nil || output == "-") {
            throw ValidationError("--resume needs the output file of the run to continue (-o FILE).")
        }
    }

    /// The limits of `--isolate`: the options given, the defaults for the rest.
    var limits: WorkerLimits {
        var limits = WorkerLimits()
        if let workerMemory { limits.memoryMiB = workerMemory }
        if let workerCPU { limits.cpuSeconds = workerCPU }
        if let timeout { limits.timeout = timeout }
        return limits
    }

    func run() throws {
        var options = ArchiveReadingOptions()
        options.backend = backend
        let showProgress = BatchProgress.isWanted(quiet: quiet)

        var source: any BatchSource
        if let sqlite, let query = query ?? table.map({ BatchSQLite.tableQuery(table: $0, column: column ?? "") }) {
            source = try usage {
                try BatchSQLite.source(
                    database: sqlite,
                    query: query,
                    table: table,
                    column: column,
                    timeLimit: sqliteTimeout,
                    count: showProgress
                )
            }
        } else if stdin {
            source = LineSource(reader: LineReader(fd: 0))
        } else if stdinFrames {
            source = FrameSource(fd: 0, maxPayloadBytes: options.maxInputBytes)
        } else {
            source = PathListSource(paths: InputFiles.expand(paths))
        }
        var resumed: (path: String, state: BatchResumeState)?
        if resume, let output {
            let state = try usage { try BatchResumeState.load(path: output) }
            resumed = (output, state)
            source = ResumingSource(base: source, state: state)
        }
        let decoder = BatchDecoder(options: options, withJSON: withJSON)
        let makeRecorder: @Sendable () -> any BatchRecorder
        if isolate {
            let command = WorkerCommand(limits: limits, withJSON: withJSON, backend: backend)
            // One worker is started now, so that workers that cannot start are one usage error, not a failed
            // record per input; the first runner thread takes it over.
            let first = WorkerHandoff(try usage { try command.start() })
            makeRecorder = { IsolatedRecorder(decoder: decoder, command: command, worker: first.take()) }
        } else {
            makeRecorder = { decoder }
        }
        // Created last, so that a usage error above leaves an existing output file as it was.
        let sink = try usage {
            if let resumed { return try OutputSink.appending(resumed.path) }
            return try output.map(OutputSink.file) ?? OutputSink.standardOutput()
        }

        if showProgress && output == nil && resumed == nil && isatty(1) == 1 {
            // Records and the bar share a terminal: each write of records starts on a cleared line, and the bar
            // is drawn again below them at the next tick.
            sink.beforeWrite = { BatchProgress.clearLine() }
        }
        let start = Monotonic.nanoseconds()
        var progress = BatchProgress(start: start)
        let runner = BatchRunner(source: source, makeRecorder: makeRecorder, sink: sink, jobs: jobs)
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
        if !quiet {
            var summary = BatchSummary.text(statistics, seconds: seconds, jobs: jobs)
            if let resumed {
                let state = resumed.state
                summary += "\nresumed: \(state.records) records already in \(resumed.path) (\(state.failed) failed)"
                if state.truncatedBytes > 0 { summary += ", a torn last line of \(state.truncatedBytes) bytes cut off" }
            }
            StandardError.write(summary)
        }
        if let error = statistics.sourceError {
            // The records of the inputs before it are written; the input could not be read to its end.
            StandardError.write("error: \(ErrorReport(error).reason)")
            throw ExitCode(2)
        }
        if !paths.isEmpty && statistics.done == 0 && resumed == nil {
            // Files and directories that name no input are a mistake in the call (an empty or wrong directory),
            // not a clean run.
            StandardError.write("error: no input files in \(paths.joined(separator: ", "))")
            throw ExitCode(2)
        }
        if statistics.failed > 0 || (resumed?.state.failed ?? 0) > 0 { throw ExitCode(1) }
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
}

/// Hands the worker started up front to the first runner thread that asks for one.
final class WorkerHandoff: @unchecked Sendable {
    private let lock = NSLock()
    private var worker: WorkerProcess?

    init(_ worker: WorkerProcess) { self.worker = worker }

    func take() -> WorkerProcess? {
        lock.lock()
        defer { lock.unlock() }
        defer { worker = nil }
        return worker
    }
}
