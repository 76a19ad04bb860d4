import Foundation

/// Where `batch` takes its inputs from. ``next()`` is called by one worker at a time (under the runner's
/// source lock), so sources need no locking of their own.
protocol BatchSource: AnyObject {
    /// The next input, or nil when there is none left.
    func next() throws -> BatchInput?
    /// How many inputs there are, when known up front (for the progress bar's ETA).
    var total: Int? { get }
    /// How many rows were skipped because their blob column is NULL (SQLite only).
    var skippedNulls: Int { get }
}

extension BatchSource {
    var skippedNulls: Int { 0 }
}

/// Turns inputs into records on one runner thread: the decoder itself, or a worker process (`--isolate`).
protocol BatchRecorder {
    func record(for input: BatchInput) -> BatchRecord
    /// Called once when the thread has no more inputs.
    func finish()
}

extension BatchDecoder: BatchRecorder {
    func finish() {}
}

/// Paths given on the command line, directories expanded.
final class PathListSource: BatchSource {
    private let paths: [String]
    private var position = 0

    init(paths: [String]) { self.paths = paths }

    var total: Int? { paths.count }

    func next() -> BatchInput? {
        guard position < paths.count else { return nil }
        defer { position += 1 }
        return .file(paths[position])
    }
}

/// One path per line of standard input, read as the workers ask for them; blank lines are skipped.
final class LineSource: BatchSource {
    private let reader: LineReader

    init(reader: LineReader) { self.reader = reader }

    var total: Int? { nil }

    func next() throws -> BatchInput? {
        while let line = try reader.next() {
            if !line.allSatisfy(\.isWhitespace) { return .file(line) }
        }
        return nil
    }
}

/// The rows of a query: each row's blob column is one input; the other columns ride along in the record.
/// A row whose blob column is NULL has nothing to decode: it is counted and skipped.
final class SQLiteRowSource: BatchSource {
    private let statement: SQLiteStatement
    private let database: String
    private let blobColumn: Int
    private let names: [String]
    let total: Int?
    private(set) var skippedNulls = 0
    /// Whether the statement stands on a row (``isStepped``: one not yet returned).
    private var hasRow: Bool
    private var isStepped = true

    /// Steps to the first row here, so that a query that cannot start (a locked database, a query past its
    /// time limit) fails before any record is written.
    init(statement: SQLiteStatement, database: String, blobColumn: Int, total: Int?) throws {
        self.statement = statement
        self.database = database
        self.blobColumn = blobColumn
        self.total = total
        names = (0..<statement.columnCount).map(statement.columnName)
        hasRow = try statement.step()
    }

    func next() throws -> BatchInput? {
        if !isStepped { hasRow = try statement.step() }
        isStepped = false
        while hasRow, statement.value(blobColumn) == .null {
            skippedNulls += 1
            hasRow = try statement.step()
        }
        guard hasRow else {
            isStepped = true
            return nil
        }
        var columns: [(name: String, value: SQLiteValue)] = []
        columns.reserveCapacity(names.count - 1)
        for index in names.indices where index != blobColumn {
            columns.append((names[index], statement.value(index)))
        }
        return .row(database: database, columns: columns, column: names[blobColumn], blob: statement.value(blobColumn))
    }
}

/// Counts and timings shared by the workers, the progress bar and the summary.
struct BatchStatistics {
    var done = 0
    var failed = 0
    var bytes = 0
    var failuresByCode: [String: Int] = [:]
    var total: Int?
    var sourceError: (any Error)?
    /// Rows skipped because their blob column is NULL.
    var skippedNulls = 0
}

/// Runs the decoder on a fixed number of worker threads that pull inputs from one source.
///
/// Memory stays bounded however many inputs there are: each worker holds one input at a time, and records
/// are written in input order through a window of at most `window` finished records waiting for a slower
/// earlier one. A worker whose input is `window` places ahead of the oldest unwritten record waits before
/// decoding; the oldest one never waits, so the run always makes progress.
final class BatchRunner: @unchecked Sendable {
    private let source: any BatchSource
    private let makeRecorder: @Sendable () -> any BatchRecorder
    private let sink: OutputSink
    private let jobs: Int
    private let window: Int

    // Guarded by `sourceLock`.
    private let sourceLock = NSLock()
    private var nextIndex = 0
    private var sourceDone = false

    // Guarded by `condition`.
    private let condition = NSCondition()
    private var finished: [Int: BatchRecord] = [:]
    private var written = 0
    private var running: Int
    /// Workers waiting in ``waitForWindow(_:)``: completions wake the condition only when someone waits, so
    /// that the main thread, which ticks on a timer, is not woken once per record.
    private var waitingForWindow = 0
    private var statistics = BatchStatistics()
    private var writeError: (any Error)?

    /// `makeRecorder` is called once on each of the `jobs` threads: the decoder itself, or (with `--isolate`)
    /// a recorder that owns one worker process.
    init(
        source: any BatchSource,
        makeRecorder: @escaping @Sendable () -> any BatchRecorder,
        sink: OutputSink,
        jobs: Int
    ) {
        self.source = source
        self.makeRecorder = makeRecorder
        self.sink = sink
        self.jobs = jobs
        self.window = max(64, jobs * 16)
        self.running = jobs
        statistics.total = source.total
    }

    /// Starts the workers and waits for them, calling `tick` with the statistics about every `interval` seconds
    /// while they run. Returns the final statistics.
    func run(interval: TimeInterval = 0.1, tick: (BatchStatistics) -> Void) throws -> BatchStatistics {
        for _ in 0..<jobs {
            let thread = Thread { [self] in work() }
            thread.stackSize = 16 << 20  // libplist's XML reader recurses per nesting level.
            thread.start()
        }
        condition.lock()
        while running > 0 {
            _ = condition.wait(until: Date(timeIntervalSinceNow: interval))
            // Under the lock that record writes take: a progress line drawn while a record is being written to
            // the same terminal would land inside it.
            tick(statistics)
        }
        sourceLock.lock()
        statistics.skippedNulls = source.skippedNulls
        sourceLock.unlock()
        let result = statistics
        let error = writeError
        condition.unlock()
        try sink.flush()
        if let error { throw error }
        return result
    }

    private func work() {
        let recorder = makeRecorder()
        while let (index, input) = take() {
            waitForWindow(index)
            let record = recorder.record(for: input)
            complete(index, record)
        }
        recorder.finish()
        condition.lock()
        running -= 1
        condition.broadcast()
        condition.unlock()
    }

    /// The next input and its position, or nil when the source is exhausted (or failed).
    private func take() -> (Int, BatchInput)? {
        sourceLock.lock()
        defer { sourceLock.unlock() }
        guard !sourceDone else { return nil }
        do {
            guard let input = try source.next() else {
                sourceDone = true
                return nil
            }
            defer { nextIndex += 1 }
            return (nextIndex, input)
        } catch {
            sourceDone = true
            condition.lock()
            statistics.sourceError = error
            condition.unlock()
            return nil
        }
    }

    private func waitForWindow(_ index: Int) {
        condition.lock()
        while index >= written + window {
            waitingForWindow += 1
            condition.wait()
            waitingForWindow -= 1
        }
        condition.unlock()
    }

    /// Files the record and writes every record that is now next in input order.
    private func complete(_ index: Int, _ record: BatchRecord) {
        condition.lock()
        defer { condition.unlock() }
        finished[index] = record
        var advanced = false
        while let next = finished.removeValue(forKey: written) {
            if writeError == nil {
                do {
                    try sink.writeLine(next.line)
                } catch {
                    writeError = error
                }
            }
            statistics.done += 1
            statistics.bytes += next.bytes
            if !next.ok {
                statistics.failed += 1
                statistics.failuresByCode[next.errorCode ?? "error", default: 0] += 1
            }
            written += 1
            advanced = true
        }
        if advanced && waitingForWindow > 0 { condition.broadcast() }
    }
}
