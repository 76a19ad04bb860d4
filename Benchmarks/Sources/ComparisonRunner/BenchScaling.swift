import ArgumentParser
import AutoCoding
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// W1 at growing N: this package's paths at every N, corelibs' while the next point fits the time cap. Time per
/// object should stay flat; the ratio of consecutive times, for 10× the objects, should stay near 10.
struct BenchScaling {
    let settings: BenchSettings
    let timeCap: Double

    struct Point: Codable {
        var path: String
        var label: String
        var n: Int
        var objects: Int
        var bytes: Int
        var runs: Int
        var seconds: Double
        var nanosecondsPerObject: Double
        var timeRatioToPreviousN: Double?
        var check: String
    }

    struct Report: Codable {
        var machine: MachineInfo
        var points: [Point]
        var skipped: [String]
    }

    static let ourPaths = [
        "ours.auto-encode", "ours.codable-encode", "ours.writer", "ours.engine", "ours.codable-decode",
        "ours.auto-decode", "ours.graph",
    ]
    static let corelibsPaths = ["corelibs.archiver", "corelibs.unarchiver"]

    func run(json: Bool, plot: String?) throws {
        let sizes = settings.quick ? [1_000, 10_000] : [10_000, 100_000, 1_000_000]
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("autocoding-scaling-\(getpid())", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var points: [Point] = []
        var skipped: [String] = []
        var corelibsBlocked = false
        for n in sizes {
            var local = settings
            local.n = n
            let context = BenchContext(settings: local, directory: directory.path, isChild: false)
            let workload = PeopleWorkload(context: context, n: n, cycles: false, decodeOwnArchive: true)
            BenchLog.progress("scaling N = \(n)")
            var wanted = Self.ourPaths
            if !corelibsBlocked {
                // Predict linearly from the last point; corelibs' encode is superlinear, so give it room.
                let previous = points.filter { Self.corelibsPaths.contains($0.path) }.filter { $0.n * 10 == n }
                if previous.contains(where: { $0.seconds * 10 * 1.5 > timeCap }) {
                    corelibsBlocked = true
                    skipped.append("corelibs at N = \(n) and above: the previous point predicts more than \(Int(timeCap)) s")
                } else {
                    wanted = Self.corelibsPaths + wanted
                }
            }
            let paths = workload.paths()
            for id in wanted {
                guard let path = paths.first(where: { $0.id == id }) else { continue }
                BenchLog.progress("  \(id)")
                let prepared = try path.prepare()
                let runs = n >= 1_000_000 ? min(settings.runs, 3) : settings.runs
                let (seconds, done, result) = try BenchRunner.time(prepared, runs: runs)
                let check = prepared.check(result) ?? "ok"
                prepared.dispose(result)
                let bytes = prepared.inputBytes ?? BenchPaths.byteCount(result) ?? 0
                let objects = workload.objects
                let previous = points.last { $0.path == id && $0.n * 10 == n }
                points.append(
                    Point(
                        path: id, label: path.label, n: n, objects: objects, bytes: bytes, runs: done, seconds: seconds,
                        nanosecondsPerObject: seconds * 1e9 / Double(max(objects, 1)),
                        timeRatioToPreviousN: previous.map { seconds / $0.seconds }, check: check))
                if Self.corelibsPaths.contains(id) && seconds > timeCap { corelibsBlocked = true }
            }
        }
        let report = Report(machine: MachineInfo.current(), points: points, skipped: skipped)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            BenchLog.output(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            BenchLog.output(Self.table(report))
        }
        if let plot { Self.plot(report, to: plot) }
        if points.contains(where: { $0.check.hasPrefix("FAIL") }) { throw ExitCode(1) }
    }

    static func table(_ report: Report) -> String {
        var rows: [[String]] = [["path", "N", "$objects", "time", "ns/object", "× time for 10× N", "runs", "check"]]
        for p in report.points {
            rows.append([
                p.label, String(p.n), String(p.objects), Format.seconds(p.seconds), String(format: "%.0f", p.nanosecondsPerObject),
                p.timeRatioToPreviousN.map { String(format: "%.2f×", $0) } ?? "–", String(p.runs), p.check,
            ])
        }
        let widths = rows[0].indices.map { c in rows.map { $0[c].count }.max() ?? 0 }
        var lines = rows.enumerated().flatMap { i, cells -> [String] in
            let line = cells.enumerated().map { c, cell in
                let pad = String(repeating: " ", count: widths[c] - cell.count)
                return c == 0 || c == 7 ? cell + pad : pad + cell
            }.joined(separator: "  ")
            return i == 0 ? [line, widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")] : [line]
        }
        lines += report.skipped.map { "- skipped: " + $0 }
        return lines.joined(separator: "\n")
    }

    /// Writes the plot with python3 and matplotlib (installed with pip when missing); says so when it cannot.
    static func plot(_ report: Report, to path: String) {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("autocoding-scaling-\(getpid()).json")
        guard let json = try? JSONEncoder().encode(report), (try? json.write(to: data)) != nil else { return }
        defer { try? FileManager.default.removeItem(at: data) }
        func python(_ arguments: [String]) -> Int32 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3"] + arguments
            process.standardOutput = FileHandle.standardError
            do { try process.run() } catch { return -1 }
            process.waitUntilExit()
            return process.terminationStatus
        }
        if python(["-c", "import matplotlib"]) != 0 {
            BenchLog.progress("matplotlib is missing: pip install matplotlib")
            _ = python(["-m", "pip", "install", "--quiet", "matplotlib"])
        }
        let script = """
            import json, sys
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
            report = json.load(open(sys.argv[1]))
            series = {}
            for p in report["points"]:
                series.setdefault(p["label"], []).append((p["n"], p["nanosecondsPerObject"]))
            fig, ax = plt.subplots(figsize=(9, 5.5))
            for label, pts in series.items():
                xs, ys = zip(*sorted(pts))
                style = "--" if label.startswith("corelibs") else "-"
                ax.plot(xs, ys, style, marker="o", label=label)
            ax.set_xscale("log"); ax.set_yscale("log")
            ax.set_xlabel("N (people in W1)"); ax.set_ylabel("time per archived object (ns, log)")
            m = report["machine"]
            ax.set_title("W1 scaling: time per object should stay flat (%d cores, %s)" % (m["cores"], m["cpu"]))
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=8)
            fig.tight_layout()
            fig.savefig(sys.argv[2], dpi=110)
            """
        if python(["-c", script, data.path, path]) == 0 {
            BenchLog.progress("wrote \(path)")
        } else {
            BenchLog.progress("could not write the plot (python3 or matplotlib missing); skipped")
        }
    }
}
