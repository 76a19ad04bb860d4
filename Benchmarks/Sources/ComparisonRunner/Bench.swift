import ArgumentParser
import AutoCoding
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// `autocoding-bench` (the Benchmarks package's comparison runner): the same work through swift-corelibs-foundation, libplist's C API and this package, side by
// side in one run, on the same bytes (issue 7). The files of this folder: the command (here), measuring, libplist's
// C API, the models, the workloads W1 to W5, the runner with its child processes, the report and the scaling series.

/// `autocoding-bench`: times every decode, encode and JSON path of issue 7 on the same inputs and prints one table.
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "autocoding-bench",
        abstract: "Benchmark this package against swift-corelibs-foundation and libplist on the same bytes.",
        discussion: """
            Workloads: W1 an array of N Person objects (name, age, height, isActive, email, birthday, 3 tags, an \
            Address object, 2 shared friends; its graph is also written as JSON text; W1c is a variant with \
            reference cycles, for this package's paths only), W2 a dictionary of N string → integer entries, W3 an \
            array of N/100 4 KiB data values, W4 every file of shared/corpus/apple (or generated small archives \
            when the corpus is not found), W5 every typedstream of shared/corpus/typedstream read to events and to \
            a TypedGraph (or generated ones).

            Every path's result is checked against the source data (counts and a sample of fields). Each path's \
            peak RSS is measured in a child process that runs it once. Exit status: 0 when every check passed, \
            1 when one failed.
            """
    )

    enum WorkloadChoice: String, ExpressibleByArgument, CaseIterable {
        case W1, W2, W3, W4, W5, all
    }

    @Flag(help: "A small-N smoke run: N = 1000, one run per path. Checks every path's result.")
    var quick = false

    @Flag(help: "Print the results as JSON instead of a table.")
    var json = false

    @Option(help: "W1 people and W2 entries; W3 has N/100 values. Default: 100000 (1000 with --quick).")
    var n: Int?

    @Option(help: "Timed runs per path; the median is reported. Default: 5 (1 with --quick).")
    var runs: Int?

    @Option(help: "The workload to run: W1, W2, W3, W4, W5 or all.")
    var workload: WorkloadChoice = .all

    @Flag(help: "Run the scaling series instead: W1 at N = 10k, 100k, 1M (1k, 10k with --quick).")
    var scaling = false

    @Option(help: "With --scaling: write a PNG plot of time per object against N (needs python3 and matplotlib).")
    var plot: String?

    @Option(help: "With --scaling: stop a Foundation series before a point expected to take longer (seconds).")
    var timeCap: Double = 120

    @Option(help: "libplist 2.2's plist_to_bin is quadratic: run it on at most this many bplist objects.")
    var libplistWriteCap: Int = 60_000

    @Flag(help: "Skip the child processes that measure peak RSS.")
    var noRSS = false

    @Option(help: "The folder of archives for W4. Default: shared/corpus/apple, searched upward from here.")
    var corpus: String?

    @Option(help: "The folder of typedstreams for W5. Default: shared/corpus/typedstream, searched upward from here.")
    var typedstreams: String?

    @Option(help: .hidden)
    var child: String?

    @Option(help: .hidden)
    var childDir: String?

    @Option(help: .hidden)
    var childStart: Int = 0

    func validate() throws {
        if let n, n < 2 { throw ValidationError("--n must be at least 2.") }
        if let runs, runs < 1 { throw ValidationError("--runs must be at least 1.") }
        if plot != nil && !scaling { throw ValidationError("--plot needs --scaling.") }
    }

    func run() throws {
        let settings = BenchSettings(
            n: n ?? (quick ? 1_000 : 100_000), runs: runs ?? (quick ? 1 : 5), quick: quick,
            libplistWriteCap: libplistWriteCap, corpus: corpus, typedstreams: typedstreams)
        if let child {
            try BenchChild.run(child, directory: childDir ?? NSTemporaryDirectory(), start: childStart, settings: settings)
            return
        }
        if scaling {
            try BenchScaling(settings: settings, timeCap: timeCap).run(json: json, plot: plot)
            return
        }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("autocoding-bench-\(getpid())", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = BenchContext(settings: settings, directory: directory.path, isChild: false)
        let keys: [String] =
            workload == .all ? ["W1", "W1c", "W2", "W3", "W4", "W5"] : workload == .W1 ? ["W1", "W1c"] : [workload.rawValue]
        var report = BenchReport(machine: MachineInfo.current(), settings: settings)
        for key in keys {
            let workload = try BenchWorkloads.make(key, context: context)
            BenchLog.progress("\(workload.title)")
            // The summary after the run: encode paths produce the reference archive, which it describes.
            report.rows += try BenchRunner(context: context, measureRSS: !noRSS).run(workload)
            report.workloads.append(workload.summary)
        }
        report.notes = BenchReport.standardNotes(settings: settings, context: context)
        if json {
            BenchLog.output(try report.jsonText())
        } else {
            BenchLog.output(report.tableText())
        }
        let failed = report.rows.filter { $0.check.hasPrefix("FAIL") }
        if !failed.isEmpty { throw ExitCode(1) }
    }
}

/// The options every part of the harness reads.
struct BenchSettings: Codable {
    var n: Int
    var runs: Int
    var quick: Bool
    var libplistWriteCap: Int
    var corpus: String?
    var typedstreams: String?
}

/// Output: the report on stdout, progress on stderr (so that `--json` stays parseable).
enum BenchLog {
    static func output(_ text: String) {
        FileHandle.standardOutput.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
    }

    static func progress(_ text: String) {
        FileHandle.standardError.write(Data("bench: \(text)\n".utf8))
    }
}
