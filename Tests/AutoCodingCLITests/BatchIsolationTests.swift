// The commands are the `_AutoCodingCommands` library; until the package declares it, these tests build empty.
#if canImport(_AutoCodingCommands)
import AutoCoding
import Foundation
import OrderedCollections
import Testing
import _AutoCodingTestSupport

@testable import _AutoCodingCommands

/// `batch --isolate`: decoding in worker processes under memory, CPU and time limits, through the built
/// executable, on real inputs that hit each limit (a FIFO that never opens, a large archive, a worker
/// that the test itself kills with a signal).
@Suite("batch --isolate")
struct BatchIsolationTests {
    /// The record fields that differ between two runs of the same input.
    static func stable(_ record: [String: Any]) -> NSDictionary {
        var record = record
        record["ms"] = nil
        return record as NSDictionary
    }

    /// A keyed archive whose root is an NSData of `megabytes` MiB: a legitimate archive that a small
    /// address space cannot hold.
    static func largeArchive(megabytes: Int) -> [UInt8] {
        let top: OrderedDictionary<String, ArchiveValue> = ["root": .uid(ArchiveUID(1))]
        let archive: OrderedDictionary<String, ArchiveValue> = [
            "$version": .integer(100_000),
            "$archiver": .string("NSKeyedArchiver"),
            "$top": .dictionary(top),
            "$objects": .array([.string("$null"), .data([UInt8](repeating: 0x5A, count: megabytes << 20))]),
        ]
        return ArchiveValue.dictionary(archive).binaryPropertyList()
    }

    /// Starts `autocoding arguments…` without waiting, output to files in `directory`.
    static func start(_ arguments: [String], in directory: TemporaryDirectory) throws -> Process {
        let process = Process()
        process.executableURL = CLI.executable
        process.arguments = CLI.runnable(arguments)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        _ = FileManager.default.createFile(atPath: directory.path("stderr"), contents: nil)
        process.standardError = try FileHandle(forWritingTo: directory.url.appendingPathComponent("stderr"))
        try process.run()
        return process
    }

    /// The child processes of `pid` (its workers), from `/proc/PID/task/*/children`.
    static func children(of pid: Int32) -> [Int32] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.flatMap { task in
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
            return text.split(separator: " ").compactMap { Int32($0) }
        }
    }

    /// Waits up to 10 s for a worker of `pid` that has `path` open, and returns it.
    static func worker(of pid: Int32, holding path: String) throws -> Int32 {
        for _ in 0..<200 {
            for child in children(of: pid) {
                let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(child)/fd")) ?? []
                let opened = fds.contains {
                    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(child)/fd/\($0)")) == path
                }
                if opened { return child }
            }
            usleep(50_000)
        }
        Issue.record("no worker of \(pid) opened \(path)")
        throw CancellationError()
    }

    static func lines(_ path: String) throws -> [[String: Any]] {
        let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
        return try text.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    // MARK: Same records

    @Test func givesTheSameRecordsAsInProcessDecoding() throws {
        let samples = try makeSamples(count: 12, rows: 0)
        let inputs = [samples.path("archives"), samples.path("other")]
        let plain = try CLI.run(["batch"] + inputs + ["--jobs", "2"])
        let isolated = try CLI.run(["batch", "--isolate"] + inputs + ["--jobs", "2"])
        #expect(plain.status == 1)
        #expect(isolated.status == 1, "\(isolated.stderr)")
        let expected = try plain.records().map(Self.stable)
        let got = try isolated.records().map(Self.stable)
        #expect(got.count == 21)
        #expect(got == expected)
    }

    // MARK: Limits

    @Test func anInputThatHangsTimesOutAndTheRunGoesOnWithAFreshWorker() throws {
        let samples = try makeSamples(count: 2, rows: 0)
        let archives = try FileManager.default.contentsOfDirectory(atPath: samples.path("archives")).sorted()
            .map { samples.path("archives/" + $0) }
        let fifo = samples.path("fifo")  // Nothing ever opens it for writing: opening it to read never returns.
        #expect(mkfifo(fifo, 0o600) == 0)
        let start = Date()
        let result = try CLI.run(["batch", "--isolate", "--timeout", "1", "--jobs", "1", fifo] + archives)
        #expect(Date().timeIntervalSince(start) < 8)
        #expect(result.status == 1)
        let records = try result.records()
        #expect(records.map { $0["path"] as? String } == [fifo] + archives)
        let error = try #require(records.first?["error"] as? [String: Any])
        #expect(error["code"] as? String == "timeout")
        #expect((error["reason"] as? String)?.contains("1 s") == true)
        #expect(records.dropFirst().allSatisfy { $0["ok"] as? Bool == true })
    }

    @Test(.enabled(if: ActiveSanitizer.allowsAddressSpaceLimits, "a sanitized worker cannot start under RLIMIT_AS"))
    func aLargeArchivePastTheMemoryLimitIsLimitExceeded() throws {
        let directory = try TemporaryDirectory()
        try Data(Self.largeArchive(megabytes: 64)).write(to: directory.url.appendingPathComponent("a-large.plist"))
        let small = try KeyedArchiver.archivedData(withRootObject: ["small"])
        try small.write(to: directory.url.appendingPathComponent("b-small.plist"))
        let result = try CLI.run(["batch", "--isolate", "--worker-memory", "256", "--jobs", "1", directory.url.path])
        #expect(result.status == 1)
        let records = try result.records()
        try #require(records.count == 2)
        let error = try #require(records[0]["error"] as? [String: Any])
        #expect(error["code"] as? String == "limitExceeded", "\(error)")
        #expect((error["reason"] as? String)?.contains("256 MiB") == true)
        #expect(records[0]["bytes"] as? Int ?? 0 > 64 << 20)
        #expect(records[1]["ok"] as? Bool == true)
    }

    /// A worker ended by a signal while it decodes: the input's record names what happened, the next input
    /// is decoded by a new worker. The worker is blocked reading a FIFO that the test holds open, so the
    /// signal reaches it exactly while it decodes that input.
    @Test(
        .enabled(if: ActiveSanitizer.allowsAddressSpaceLimits, "a sanitized worker cannot start under RLIMIT_AS"),
        arguments: [(SIGSEGV, "workerCrashed", "SIGSEGV"), (SIGXCPU, "limitExceeded", "CPU")])
    func aWorkerEndedBySignalIsThatInputsRecord(signal: Int32, code: String, phrase: String) throws {
        let directory = try TemporaryDirectory()
        let fifo = directory.path("a-fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = open(fifo, O_RDWR | O_NONBLOCK)  // Lets the worker's open succeed; no data ever comes.
        defer { close(writer) }
        try KeyedArchiver.archivedData(withRootObject: ["after"]).write(to: directory.url.appendingPathComponent("b.plist"))
        let output = directory.path("out.ndjson")
        let batch = try Self.start(
            ["batch", "--isolate", "--jobs", "1", "--worker-cpu", "7", "--worker-memory", "900", fifo,
             directory.path("b.plist"), "-o", output],
            in: directory
        )
        let worker = try Self.worker(of: batch.processIdentifier, holding: fifo)
        // The limits are the worker's own, as the kernel sees them.
        let limits = try String(contentsOfFile: "/proc/\(worker)/limits", encoding: .utf8)
            .split(separator: "\n")
        let addressSpace = limits.first { $0.hasPrefix("Max address space") }?.split(separator: " ", omittingEmptySubsequences: true)
        #expect(addressSpace?.dropFirst(3).first == "\(900 << 20)")
        let core = limits.first { $0.hasPrefix("Max core file size") }?.split(separator: " ")
        #expect(core?.dropFirst(4).first == "0")
        let cpu = limits.first { $0.hasPrefix("Max cpu time") }?.split(separator: " ")
        #expect((cpu?.dropFirst(3).first).flatMap { Int($0) }.map { (8...9).contains($0) } == true)

        kill(worker, signal)
        batch.waitUntilExit()
        #expect(batch.terminationStatus == 1)
        let records = try Self.lines(output)
        try #require(records.count == 2)
        let error = try #require(records[0]["error"] as? [String: Any])
        #expect(error["code"] as? String == code)
        #expect((error["reason"] as? String)?.contains(phrase) == true, "\(error)")
        #expect(records[1]["ok"] as? Bool == true)
    }

    // MARK: Classification

    @Test func howAWorkerEndedBecomesTheRecordsError() {
        let limits = WorkerLimits(memoryMiB: 300, cpuSeconds: 5, timeout: 10)
        func report(signal: Int32 = 0, exit: Int32 = 0, cpu: Double = 0.1, _ stderr: String = "") -> ErrorReport {
            let ending = WorkerProcess.Ending(status: signal != 0 ? signal : exit << 8, cpuSeconds: cpu)
            return WorkerFailure.report(ending, errorTail: Array(stderr.utf8), limits: limits)
        }
        let allocation = "Fatal error: failed to allocate 300000032 bytes of memory with alignment 8\nCurrent stack trace:\n0 x"
        #expect(report(signal: SIGABRT, allocation).code == "limitExceeded")
        #expect(report(signal: SIGABRT, allocation).reason.contains("300 MiB"))
        #expect(report(signal: SIGABRT, allocation).reason.contains("failed to allocate 300000032 bytes"))
        #expect(report(signal: SIGXCPU).code == "limitExceeded")
        #expect(report(signal: SIGKILL, cpu: 6).code == "limitExceeded", "the hard CPU limit")
        #expect(report(signal: SIGKILL, cpu: 1).code == "workerCrashed")
        let crash = report(signal: SIGILL, "Fatal error: Index out of range\nCurrent stack trace:\n0 libswiftCore.so")
        #expect(crash == ErrorReport(
            code: "workerCrashed",
            reason: "the worker process was ended by signal SIGILL (4): Fatal error: Index out of range"))
        #expect(report(exit: 3).reason == "the worker process exited with status 3 without an answer")
    }

    // MARK: Usage

    @Test func limitOptionsNeedIsolate() throws {
        #expect(try CLI.run(["batch", "x", "--timeout", "1"]).status == 2)
        #expect(try CLI.run(["batch", "x", "--worker-memory", "512"]).status == 2)
        #expect(try CLI.run(["batch", "x", "--isolate", "--worker-memory", "10"]).status == 2)
        #expect(try CLI.run(["batch", "x", "--isolate", "--worker-cpu", "\(Int.max)"]).status == 2)
        #expect(try CLI.run(["batch", "x", "--isolate", "--timeout", "1e300"]).status == 2)
        #expect(try CLI.run(["batch", "--sqlite", "x", "--query", "SELECT 1", "--sqlite-timeout", "1e300"]).status == 2)
        #expect(try CLI.run(["batch-worker", "--cpu", "\(Int.max)"]).status == 2)
    }
}
#endif
