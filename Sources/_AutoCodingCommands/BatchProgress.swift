import Foundation

/// The progress line `batch` draws on standard error when it is a terminal: files done/total, files/s, MB/s
/// and ETA, redrawn in place with `\r`.
struct BatchProgress {
    private let start: UInt64
    private var lastWidth = 0

    init(start: UInt64) { self.start = start }

    /// Whether a progress bar should be drawn: standard error is a terminal and `--quiet` was not given.
    static func isWanted(quiet: Bool) -> Bool {
        !quiet && isatty(2) == 1
    }

    mutating func draw(_ statistics: BatchStatistics) {
        FileHandle.standardError.write(Data(("\r" + line(statistics) + "\u{1B}[K").utf8))
    }

    /// Erases the line, before the summary is printed.
    func clear() { Self.clearLine() }

    /// Erases the progress line: before the summary, and before records written to the same terminal.
    static func clearLine() {
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    func line(_ statistics: BatchStatistics) -> String {
        let seconds = max(Double(Monotonic.nanoseconds() - start) / 1e9, 1e-9)
        let rate = Double(statistics.done) / seconds
        let megabytes = Double(statistics.bytes) / 1e6 / seconds
        var text = ""
        if let total = statistics.total, total > 0 {
            let fraction = min(1, Double(statistics.done) / Double(total))
            let width = 24
            let filled = Int((fraction * Double(width)).rounded(.down))
            text += "[" + String(repeating: "█", count: filled)
            text += String(repeating: "░", count: width - filled) + "] "
            text += "\(statistics.done)/\(total) files"
        } else {
            text += "\(statistics.done) files"
        }
        text += String(format: "  %.0f files/s  %.1f MB/s", rate, megabytes)
        if let total = statistics.total, rate > 0, statistics.done < total {
            text += "  ETA " + Self.duration(Double(total - statistics.done) / rate)
        }
        if statistics.failed > 0 { text += "  \(statistics.failed) failed" }
        return text
    }

    /// `m:ss`, or `h:mm:ss` from an hour on.
    static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded(.up))
        if s >= 3600 { return String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) }
        return String(format: "%d:%02d", s / 60, s % 60)
    }
}

/// The summary `batch` prints on standard error at the end.
enum BatchSummary {
    static func text(_ statistics: BatchStatistics, seconds: Double, jobs: Int) -> String {
        let seconds = max(seconds, 1e-9)
        let decoded = statistics.done - statistics.failed
        var text = "batch: \(statistics.done) inputs, \(decoded) decoded, \(statistics.failed) failed"
        text += String(format: " in %.2f s", seconds) + " with \(jobs) job\(jobs == 1 ? "" : "s"): "
        text += String(
            format: "%.0f files/s, %.1f MB/s",
            Double(statistics.done) / seconds,
            Double(statistics.bytes) / 1e6 / seconds
        )
        if let peak = peakResidentBytes() { text += ", peak resident \(peak >> 20) MiB" }
        if !statistics.failuresByCode.isEmpty {
            let parts = statistics.failuresByCode.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
            text += "\nfailures by code: " + parts.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        }
        if statistics.skippedNulls > 0 {
            text += "\nNULL cells skipped: \(statistics.skippedNulls)"
        }
        return text
    }

    /// This process's peak resident set (the workers of `--isolate` have their own): Linux's `VmHWM`, which
    /// unlike `getrusage` does not start from the resident set of the process that started this one.
    static func peakResidentBytes() -> Int? {
        #if os(Linux)
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap({ Int($0) })
        else { return nil }
        return kilobytes << 10
        #elseif canImport(Darwin)
        var usage = rusage()
        guard getrusage(RUSAGE_SELF, &usage) == 0 else { return nil }
        return Int(usage.ru_maxrss)
        #else
        return nil
        #endif
    }
}
