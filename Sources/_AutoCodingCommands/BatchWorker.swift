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

/// `autocoding batch-worker` (hidden): the worker process of `batch --isolate`. Not for people: it speaks
/// ``WorkerProtocol`` on standard input and output, and is started by `batch` itself.
///
/// It sets its own limits before it reads any input: `RLIMIT_AS` (address space) once, `RLIMIT_CORE` 0 (a
/// crash leaves no core file behind), and before each input an `RLIMIT_CPU` soft limit of the CPU time used
/// so far plus `--cpu` seconds, so that the limit is per input although the worker lives for many.
struct BatchWorker: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batch-worker",
        abstract: "The worker process of batch --isolate (started by batch; not for direct use).",
        shouldDisplay: false
    )

    @Option(help: "Address space limit in MiB (0: none).")
    var memory: Int = 0

    @Option(help: "CPU seconds per input (0: none).")
    var cpu: Int = 0

    @Flag(name: .customLong("with-json"), help: "Add the decoded graph to each record.")
    var withJSON = false

    @Option(help: "The binary-plist parser: native or libplist.")
    var backend: ArchiveReadingOptions.Backend = .native

    func validate() throws {
        guard (0...(1 << 30)).contains(memory), (0...1_000_000_000).contains(cpu) else {
            throw ValidationError("--memory must be 0...2^30 MiB and --cpu 0...10^9 s.")
        }
    }

    func run() throws {
        var options = ArchiveReadingOptions()
        options.backend = backend
        let loop = WorkerLoop(decoder: BatchDecoder(options: options, withJSON: withJSON), cpuSeconds: cpu)
        // Decoding runs on a thread with a 16 MiB stack, as in-process batch does (libplist's XML reader
        // recurses per nesting level). The thread is started before the address space limit is set, so that
        // a limit too small for the runtime shows as a failed allocation (an error the parent reports), not
        // as a thread that silently never starts. The main thread ends the worker if its parent went away
        // while an input hangs (a FIFO that never opens), so that no orphan is left behind.
        let parent = getppid()
        let thread = Thread { loop.serve() }
        thread.stackSize = 16 << 20
        thread.start()
        WorkerLimits.applyToThisProcess(memoryMiB: memory)
        loop.limitsApplied.signal()
        while loop.done.wait(timeout: .now() + 1) == .timedOut {
            if getppid() != parent { _exit(0) }
        }
        if let failure = loop.failure {
            StandardError.write("batch-worker: \(failure)")
            throw ExitCode(3)
        }
    }
}

/// The worker's request loop: read a request, decode, answer; until the parent closes the socket.
final class WorkerLoop: @unchecked Sendable {
    private let decoder: BatchDecoder
    private let cpuSeconds: Int
    let done = DispatchSemaphore(value: 0)
    /// Signalled once the process's limits are in force; nothing is read before.
    let limitsApplied = DispatchSemaphore(value: 0)
    /// Why the loop stopped early (a request the protocol does not allow); read after `done`.
    private(set) var failure: String?

    init(decoder: BatchDecoder, cpuSeconds: Int) {
        self.decoder = decoder
        self.cpuSeconds = cpuSeconds
    }

    func serve() {
        defer { done.signal() }
        limitsApplied.wait()
        do {
            try DescriptorIO.writeAll(1, Array((WorkerProtocol.ready + "\n").utf8), name: "standard output")
            let limit = decoder.options.maxInputBytes + 65_536
            while true {
                let header = try DescriptorIO.readExactly(0, count: 9, name: "standard input")
                if header.isEmpty { return }
                let length = DescriptorIO.bigEndian(header.dropFirst())
                guard header.count == 9, length <= UInt64(limit) else {
                    failure = "bad request header (\(header.count) bytes, length \(length))"
                    return
                }
                let body = try DescriptorIO.readExactly(0, count: Int(length), name: "standard input")
                guard body.count == Int(length), let payload = WorkerProtocol.payload(kind: header[0], body: body)
                else {
                    failure = "truncated request or unknown kind \(header[0])"
                    return
                }
                WorkerLimits.startInput(cpuSeconds: cpuSeconds)
                let answer = WorkerProtocol.answer(decoder.result(for: payload))
                try DescriptorIO.writeAll(1, answer, name: "standard output")
            }
        } catch {
            failure = ErrorReport(error).reason
        }
    }
}

/// The resource limits of `batch --isolate`, with their defaults, and how a worker applies them to itself.
struct WorkerLimits: Sendable {
    /// The address space of each worker in MiB (`RLIMIT_AS`); 0 for none.
    var memoryMiB = 1024
    /// CPU seconds per input (`RLIMIT_CPU`); 0 for none.
    var cpuSeconds = 30
    /// Wall-clock seconds per input, enforced by the parent, which kills the worker; 0 for none.
    var timeout: Double = 60

    /// Sets `RLIMIT_AS` to `memoryMiB` (soft and hard, never above an existing hard limit) and `RLIMIT_CORE`
    /// to 0.
    static func applyToThisProcess(memoryMiB: Int) {
        var core = rlimit(rlim_cur: 0, rlim_max: 0)
        _ = setrlimit(resource(RLIMIT_CORE), &core)
        guard memoryMiB > 0 else { return }
        var limit = rlimit()
        _ = getrlimit(resource(RLIMIT_AS), &limit)
        let wanted = rlim_t(memoryMiB) << 20
        let value = min(wanted, limit.rlim_max)  // RLIM_INFINITY is the largest value.
        limit.rlim_cur = value
        limit.rlim_max = value
        _ = setrlimit(resource(RLIMIT_AS), &limit)
    }

    /// Sets the `RLIMIT_CPU` soft limit to the CPU time used so far (rounded up) plus `cpuSeconds`: past it
    /// the kernel sends `SIGXCPU`, which ends the worker. The hard limit is left alone so that the next input
    /// can raise the soft one again.
    static func startInput(cpuSeconds: Int) {
        guard cpuSeconds > 0 else { return }
        var usage = rusage()
        #if canImport(Glibc)
        _ = getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
        _ = getrusage(RUSAGE_SELF, &usage)
        #endif
        let used = Int(usage.ru_utime.tv_sec) + Int(usage.ru_stime.tv_sec) + 1
        var limit = rlimit()
        _ = getrlimit(resource(RLIMIT_CPU), &limit)
        let wanted = rlim_t(used + cpuSeconds)
        limit.rlim_cur = min(wanted, limit.rlim_max)  // RLIM_INFINITY is the largest value.
        _ = setrlimit(resource(RLIMIT_CPU), &limit)
    }

    #if canImport(Glibc)
    private static func resource(_ value: __rlimit_resource) -> __rlimit_resource_t {
        __rlimit_resource_t(value.rawValue)
    }
    #else
    private static func resource(_ value: Int32) -> Int32 { value }
    #endif
}
