import ArgumentParser
import AutoCoding
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

enum BenchClock {
    /// Monotonic nanoseconds.
    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }
}

/// Peak resident memory of this process, from /proc/self/status, with the high-water mark reset
/// (`echo 5 > /proc/self/clear_refs`) once the inputs are built.
enum PeakRSS {
    /// Resets VmHWM to the current RSS; false when the kernel does not allow it.
    static func reset() -> Bool {
        let fd = open("/proc/self/clear_refs", O_WRONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return write(fd, "5", 1) == 1
    }

    /// A field of /proc/self/status in bytes (VmHWM, VmRSS); falls back to getrusage's ru_maxrss.
    static func status(_ field: String) -> Int {
        if let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) {
            for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
                let digits = line.dropFirst(field.count + 1).filter(\.isNumber)
                if let kib = Int(digits) { return kib * 1024 }
            }
        }
        var usage = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
        return Int(usage.ru_maxrss) * 1024
    }
}

/// The machine the numbers come from.
struct MachineInfo: Codable {
    var cores: Int
    var cpu: String
    var memoryGiB: Double
    var kernel: String
    var libplist: String

    static func current() -> MachineInfo {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model =
            cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown"
        var name = utsname()
        uname(&name)
        let kernel = withUnsafeBytes(of: &name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return MachineInfo(
            cores: ProcessInfo.processInfo.activeProcessorCount, cpu: model,
            memoryGiB: (Double(ProcessInfo.processInfo.physicalMemory) / Double(1 << 30) * 10).rounded() / 10,
            kernel: kernel, libplist: LibplistC.describe)
    }
}
