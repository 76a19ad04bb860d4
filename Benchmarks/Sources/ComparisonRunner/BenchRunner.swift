import ArgumentParser
import AutoCoding
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One row of the report.
struct BenchRow: Codable {
    var workload: String
    var path: String
    var label: String
    var operation: BenchPath.Operation
    var role: BenchPath.Role
    var objects: Int
    var bytes: Int
    var runs: Int
    var seconds: Double
    var megabytesPerSecond: Double
    var objectsPerSecond: Double
    var timesFasterThanFoundation: Double?
    var timesFasterThanLibplistC: Double?
    var peakRSSBytes: Int?
    /// The child's RSS once its input was built, before the path ran.
    var baseRSSBytes: Int?
    var peakRSSOverArchive: Double?
    var check: String
    var note: String?
    /// Which input the row ran on when not the workload's whole input (see ``PreparedPath/input``).
    var input: String?
}

/// Runs a workload's paths: timing in this process, peak RSS in a child process per path.
struct BenchRunner {
    let context: BenchContext
    let measureRSS: Bool

    /// Runs `prepared` `runs` times and returns the median seconds, the runs done and the last result. A first run
    /// under half a second is a warm-up; a run under 20 ms is repeated until 0.3 s have passed (at most 100 runs).
    static func time(_ prepared: PreparedPath, runs: Int) throws -> (seconds: Double, runs: Int, result: Any) {
        var times: [Double] = []
        var last: Any = 0
        var warmedUp = false
        var total = 0.0
        while true {
            let start = BenchClock.now()
            var result: Any? = try prepared.run()
            let seconds = Double(BenchClock.now() - start) / 1e9
            if !warmedUp && seconds < 0.5 {
                warmedUp = true
                prepared.dispose(result!)
                result = nil
                continue
            }
            warmedUp = true
            times.append(seconds)
            total += seconds
            let enough = times.count >= runs && (seconds >= 0.02 || total >= 0.3 || times.count >= 100)
            if enough {
                last = result!
                break
            }
            prepared.dispose(result!)
            result = nil
        }
        return (BenchClock.median(times), times.count, last)
    }

    func run(_ workload: any BenchWorkload) throws -> [BenchRow] {
        let paths = workload.paths()
        if let corpus = workload as? CorpusWorkload, !context.isChild {
            for id in ["corelibs.unarchiver", "corelibs.plist-serialization"] {
                corpus.survivors[id] = try screen(corpus, pathID: id)
                context.writeText("W4-\(id).survivors", corpus.survivors[id]!.map(String.init).joined(separator: " "))
            }
        }
        var rows: [BenchRow] = []
        for path in paths {
            BenchLog.progress("  \(workload.key) \(path.id)")
            var row = BenchRow(
                workload: workload.key, path: path.id, label: path.label, operation: path.operation, role: path.role,
                objects: 0,
                bytes: 0, runs: 0, seconds: .nan, megabytesPerSecond: .nan, objectsPerSecond: .nan, check: "")
            do {
                let prepared = try path.prepare()
                if let skip = prepared.skip {
                    row.check = "skipped"
                    row.note = skip
                    rows.append(row)
                    continue
                }
                let (seconds, runs, result) = try Self.time(prepared, runs: context.settings.runs)
                row.objects = prepared.objects ?? workload.objects
                row.bytes = prepared.inputBytes ?? BenchPaths.byteCount(result) ?? 0
                row.runs = runs
                row.seconds = seconds
                row.megabytesPerSecond = Double(row.bytes) / 1e6 / seconds
                row.objectsPerSecond = Double(row.objects) / seconds
                row.note = prepared.note
                row.input = prepared.input
                row.check = prepared.check(result) ?? "ok"
                prepared.dispose(result)
            } catch {
                row.check = "FAIL: \(error)"
            }
            rows.append(row)
        }
        if measureRSS {
            for i in rows.indices where rows[i].runs > 0 {
                let measured = peakRSS(workload: workload.key, pathID: rows[i].path)
                let peak = measured?.peak
                rows[i].peakRSSBytes = peak
                rows[i].baseRSSBytes = measured?.base
                let archiveBytes = rows[i].operation == .decode ? rows[i].bytes : workload.summary.archiveBytes
                if let peak, archiveBytes > 0 { rows[i].peakRSSOverArchive = Double(peak) / Double(archiveBytes) }
            }
        }
        Self.fillRatios(&rows)
        return rows
    }

    /// × Foundation and × libplist C: the baseline's time over this row's time, per operation, when the
    /// baseline (the row of that role) ran on the same input (not capped).
    static func fillRatios(_ rows: inout [BenchRow]) {
        for operation in BenchPath.Operation.allCases {
            let foundation = rows.first { $0.operation == operation && $0.role == .foundationBaseline }
            let floor = rows.first { $0.operation == operation && $0.role == .floorBaseline }
            for i in rows.indices where rows[i].operation == operation && rows[i].runs > 0 {
                if let f = foundation, f.runs > 0, rows[i].input == f.input {
                    rows[i].timesFasterThanFoundation = f.seconds / rows[i].seconds
                }
                if let c = floor, c.runs > 0, rows[i].input == c.input {
                    rows[i].timesFasterThanLibplistC = c.seconds / rows[i].seconds
                }
            }
        }
    }

    /// The executable, to start children with.
    static var executable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// The arguments that make a child build the same workload.
    func childArguments(_ child: String, start: Int = 0) -> [String] {
        var arguments = [
            "--child", child, "--child-dir", context.directory, "--n", String(context.settings.n),
            "--runs", "1", "--libplist-write-cap", String(context.settings.libplistWriteCap),
            "--child-start", String(start),
        ]
        if let corpus = context.settings.corpus { arguments += ["--corpus", corpus] }
        if let typedstreams = context.settings.typedstreams { arguments += ["--typedstreams", typedstreams] }
        return arguments
    }

    /// Starts a child and returns its exit status and standard output.
    static func spawn(_ arguments: [String]) -> (status: Int32, reason: Process.TerminationReason, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return (-1, .exit, "") }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, process.terminationReason, String(decoding: data, as: UTF8.self))
    }

    /// Peak RSS of one run of the path, in a child process that builds the same inputs first.
    func peakRSS(workload: String, pathID: String) -> ChildResult? {
        let (status, _, output) = Self.spawn(childArguments("\(workload):\(pathID)"))
        guard status == 0, let line = output.split(separator: "\n").last(where: { $0.hasPrefix("{") }) else { return nil }
        return try? JSONDecoder().decode(ChildResult.self, from: Data(line.utf8))
    }

    /// The files a corelibs operation handles without killing the process: a child runs them one by one and
    /// reports each; after a crash, a new child goes on from the next file.
    func screen(_ corpus: CorpusWorkload, pathID: String) throws -> [Int] {
        var crashed = Set<Int>()
        var start = 0
        while start < corpus.files.count {
            let (status, reason, output) = Self.spawn(childArguments("W4:screen:\(pathID)", start: start))
            if status == 0 && reason == .exit { break }
            let begun = output.split(separator: "\n").compactMap { line -> Int? in
                line.hasPrefix("begin ") ? Int(line.dropFirst(6)) : nil
            }
            guard let last = begun.last else { break }
            crashed.insert(last)
            BenchLog.progress("    corelibs died on \(corpus.files[last].name) (\(pathID))")
            start = last + 1
        }
        return corpus.files.indices.filter { !crashed.contains($0) }
    }
}

struct ChildResult: Codable {
    var peak: Int
    var base: Int
    var reset: Bool
    /// With `--runs` above 1: the seconds of each timed run after the measured one, and their median.
    var times: [Double]? = nil
    var median: Double? = nil
}

/// The child side: `bench --child W:PATH` measures one path's peak RSS; `--child W4:screen:PATH` screens files.
/// With `--runs R` above 1 (the parent passes 1), the child then times the path R more times in-process, so that
/// one path can be compared between two builds without a full run's corelibs rows.
enum BenchChild {
    static func run(_ spec: String, directory: String, start: Int, settings: BenchSettings) throws {
        let parts = spec.split(separator: ":", maxSplits: 2).map(String.init)
        guard parts.count >= 2 else { throw ValidationError("--child takes WORKLOAD:PATH") }
        let context = BenchContext(settings: settings, directory: directory, isChild: true)
        let workload = try BenchWorkloads.make(parts[0], context: context)
        if parts[1] == "screen", parts.count == 3, let corpus = workload as? CorpusWorkload,
            let operation = corpus.screenedOperation(parts[2])
        {
            for i in start..<corpus.files.count {
                BenchLog.output("begin \(i)")
                _ = operation(i)
                BenchLog.output("end \(i)")
            }
            return
        }
        guard let path = workload.paths().first(where: { $0.id == parts[1] }) else {
            throw ValidationError("no path \(parts[1]) in \(parts[0])")
        }
        let prepared = try path.prepare()
        // Foundation builds its class-name table on the first NSStringFromClass (about 65 million instructions):
        // done here, before the measured run, so that a profile of the child (callgrind) counts the path alone.
        _ = (BenchNames.person, BenchNames.address)
        let reset = PeakRSS.reset()
        let base = PeakRSS.status("VmRSS")
        let result = try prepared.run()
        let peak = PeakRSS.status("VmHWM")
        withExtendedLifetime(result) {}
        prepared.dispose(result)
        var child = ChildResult(peak: peak, base: base, reset: reset)
        if settings.runs > 1 {
            var times: [Double] = []
            for _ in 0..<settings.runs {
                let start = BenchClock.now()
                let result = try prepared.run()
                times.append(Double(BenchClock.now() - start) / 1e9)
                prepared.dispose(result)
            }
            child.times = times
            child.median = BenchClock.median(times)
        }
        let line = try JSONEncoder().encode(child)
        BenchLog.output(String(decoding: line, as: UTF8.self))
    }
}
