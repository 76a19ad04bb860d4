import AutoCodingCore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How `batch --isolate` starts its workers: this same executable as `autocoding batch-worker` with the limits
/// and decoding options of the run.
struct WorkerCommand: Sendable {
    var limits: WorkerLimits
    var withJSON: Bool
    var backend: ArchiveReadingOptions.Backend

    /// The running executable: `/proc/self/exe` names it even if its file was replaced or deleted since.
    static var executable: String {
        #if os(Linux)
        "/proc/self/exe"
        #else
        Bundle.main.executablePath ?? CommandLine.arguments[0]
        #endif
    }

    /// The worker's environment: this one, with Swift's crash backtracer off (a crash costs no seconds of
    /// symbolication and writes one line, not a page, to the standard error that is kept for the record).
    static var environment: [String] {
        var variables = ProcessInfo.processInfo.environment
        variables["SWIFT_BACKTRACE"] = "enable=no"
        return variables.map { "\($0.key)=\($0.value)" }
    }

    var arguments: [String] {
        var arguments = [
            "batch-worker", "--memory", String(limits.memoryMiB), "--cpu", String(limits.cpuSeconds),
            "--backend", backend.rawValue,
        ]
        if withJSON { arguments.append("--with-json") }
        return arguments
    }

    /// Starts a worker and waits (up to 10 s) for its `ready` line; a worker that cannot start throws an
    /// error that says why (for example an address space limit too small for the runtime).
    func start() throws -> WorkerProcess {
        let worker = try WorkerProcess(
            executable: Self.executable,
            arguments: arguments,
            environment: Self.environment
        )
        switch try worker.readLine(deadline: Monotonic.nanoseconds() + 10_000_000_000) {
        case .line(WorkerProtocol.ready):
            return worker
        case .line(let other):
            _ = worker.reap(kill: true)
            throw WorkerStartError(reason: "the worker said \(JSONStringLiteral.quoted(other)) instead of ready")
        case .timedOut:
            _ = worker.reap(kill: true)
            throw WorkerStartError(reason: "the worker did not start within 10 s")
        case .ended:
            let ending = worker.reap(kill: false)
            let how = ending.signal.map { "ended by signal \(WorkerFailure.name(of: $0))" }
                ?? "exited with status \(ending.exitStatus ?? -1)"
            let message = WorkerFailure.lastMessage(worker.errorTail).map { ": \($0)" } ?? ""
            throw WorkerStartError(
                reason: "a worker could not start with --worker-memory \(limits.memoryMiB) (it \(how))\(message)"
            )
        }
    }
}

/// A worker that could not be started.
struct WorkerStartError: Error, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}

/// Decodes inputs in one worker process at a time, for one runner thread of `batch --isolate`.
///
/// A worker lives for many inputs. When one dies (a crash, a limit) or is killed (the timeout), its input's
/// record says so and the next input starts a fresh worker.
final class IsolatedRecorder: BatchRecorder {
    private let decoder: BatchDecoder
    private let command: WorkerCommand
    private var worker: WorkerProcess?

    /// `worker`, when given, is used first (the run starts one up front to check that workers can start).
    init(decoder: BatchDecoder, command: WorkerCommand, worker: WorkerProcess? = nil) {
        self.decoder = decoder
        self.command = command
        self.worker = worker
    }

    func record(for input: BatchInput) -> BatchRecord {
        let identity = BatchDecoder.identity(of: input)
        let payload = BatchDecoder.payload(of: input)
        guard let request = WorkerProtocol.request(for: payload) else {
            return BatchDecoder.record(identity: identity, result: decoder.result(for: payload))
        }
        let start = Monotonic.nanoseconds()
        let result: BatchResult
        switch exchange(request, start: start) {
        case .answer(let answer):
            result = answer
        case .failure(let report):
            let milliseconds = Double(Monotonic.nanoseconds() - start) / 1e6
            result = decoder.failure(report, bytes: Self.size(of: payload), milliseconds: milliseconds)
        }
        return BatchDecoder.record(identity: identity, result: result)
    }

    func finish() {
        worker?.finish()
        worker = nil
    }

    /// Sends the request and waits for the answer. A worker that died while idle (its socket refuses the
    /// request) is replaced once, so that its death is not blamed on this input.
    private enum Exchange {
        case answer(BatchResult)
        case failure(ErrorReport)
    }

    private func exchange(_ request: [UInt8], start: UInt64) -> Exchange {
        var attempts = 0
        while true {
            attempts += 1
            let process: WorkerProcess
            do {
                process = try worker ?? command.start()
            } catch {
                return .failure(ErrorReport(code: "workerCrashed", reason: ErrorReport.text(error)))
            }
            worker = process
            do {
                try process.send(request)
            } catch {
                worker = nil
                let ending = process.reap(kill: true)
                if attempts < 2 { continue }
                let report = WorkerFailure.report(ending, errorTail: process.errorTail, limits: command.limits)
                return .failure(report)
            }
            let timeout = command.limits.timeout
            let deadline = timeout > 0 ? start + UInt64(timeout * 1e9) : nil
            let wait: WorkerProcess.Wait
            do {
                wait = try process.readLine(deadline: deadline)
            } catch {
                wait = .ended
            }
            switch wait {
            case .line(let line):
                if let answer = WorkerProtocol.parseAnswer(line) { return .answer(answer) }
                worker = nil
                _ = process.reap(kill: true)
                return .failure(ErrorReport(code: "workerCrashed", reason: "the worker's answer was not readable"))
            case .timedOut:
                worker = nil
                _ = process.reap(kill: true)
                let reason = "no result within \(WorkerFailure.seconds(timeout)) s (--timeout); the worker was killed"
                return .failure(ErrorReport(code: "timeout", reason: reason))
            case .ended:
                worker = nil
                let ending = process.reap(kill: false)
                return .failure(WorkerFailure.report(ending, errorTail: process.errorTail, limits: command.limits))
            }
        }
    }

    /// The size of the input, for the record of one whose worker died: the payload's, or the file's from
    /// `stat` (which opens nothing, so a FIFO does not block here).
    static func size(of payload: BatchPayload) -> Int {
        switch payload {
        case .bytes(let bytes, _): return bytes.count
        case .failed(_, let bytes): return bytes
        case .file(let path):
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return 0 }
            return Int(info.st_size)
        }
    }
}

/// The record's error for a worker that ended without answering.
enum WorkerFailure {
    /// `limitExceeded` when a limit ended it (`SIGXCPU`, or the runtime's allocation failure under
    /// `RLIMIT_AS`), `workerCrashed` otherwise, with the signal or exit status and the worker's last message.
    static func report(_ ending: WorkerProcess.Ending, errorTail: [UInt8], limits: WorkerLimits) -> ErrorReport {
        let message = lastMessage(errorTail)
        let detail = message.map { ": \($0)" } ?? ""
        if let signal = ending.signal {
            let cpuSpent = limits.cpuSeconds > 0 && ending.cpuSeconds >= Double(limits.cpuSeconds)
            if signal == SIGXCPU || (signal == SIGKILL && cpuSpent) {
                return ErrorReport(
                    code: "limitExceeded",
                    reason: "the input needed more than \(limits.cpuSeconds) s of CPU (--worker-cpu)"
                )
            }
            if limits.memoryMiB > 0, let message, isAllocationFailure(message) {
                return ErrorReport(
                    code: "limitExceeded",
                    reason: "the input needed more than \(limits.memoryMiB) MiB of memory (--worker-memory)\(detail)"
                )
            }
            return ErrorReport(
                code: "workerCrashed",
                reason: "the worker process was ended by signal \(name(of: signal))\(detail)"
            )
        }
        return ErrorReport(
            code: "workerCrashed",
            reason: "the worker process exited with status \(ending.exitStatus ?? -1) without an answer\(detail)"
        )
    }

    /// Whether a runtime's last words are an allocation failure: Swift's `failed to allocate N bytes`, C++'s
    /// `std::bad_alloc`, or an `ENOMEM` text.
    static func isAllocationFailure(_ message: String) -> Bool {
        ["failed to allocate", "Could not allocate", "bad_alloc", "Cannot allocate memory", "out of memory"]
            .contains { message.contains($0) }
    }

    /// The worker's `Fatal error: …` line if it printed one, else its last non-empty line of standard error.
    static func lastMessage(_ tail: [UInt8]) -> String? {
        let lines = String(decoding: tail, as: UTF8.self).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let line = lines.last { $0.contains("Fatal error") } ?? lines.last { !$0.hasPrefix("Current stack trace") }
        return line.map { String($0.prefix(300)) }
    }

    /// `SIGSEGV (11)` and the like.
    static func name(of signal: Int32) -> String {
        let names: [Int32: String] = [
            SIGSEGV: "SIGSEGV", SIGBUS: "SIGBUS", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP", SIGABRT: "SIGABRT",
            SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGTERM: "SIGTERM", SIGXCPU: "SIGXCPU", SIGXFSZ: "SIGXFSZ",
            SIGINT: "SIGINT", SIGHUP: "SIGHUP", SIGPIPE: "SIGPIPE",
        ]
        return "\(names[signal] ?? "signal") (\(signal))"
    }

    /// `2`, or `0.5`: seconds without a needless `.0`.
    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
