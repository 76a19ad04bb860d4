import ArgumentParser
import AutoCoding
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct BenchReport: Codable {
    var machine: MachineInfo
    var settings: BenchSettings
    var workloads: [WorkloadSummary] = []
    var rows: [BenchRow] = []
    var notes: [String] = []

    init(machine: MachineInfo, settings: BenchSettings) {
        self.machine = machine
        self.settings = settings
    }

    static func standardNotes(settings: BenchSettings, context: BenchContext) -> [String] {
        [
            "time: median of the timed runs (a first run under 0.5 s is a warm-up; runs under 20 ms repeat up to 0.3 s); "
                + "results are released after the clock stops, except the libplist floor, whose plist_free is timed.",
            "× corelibs / × C floor: that baseline's time divided by this row's (same operation, same input); "
                + "'–' when the baseline ran on other input (a capped or subset row).",
            "corelibs NSKeyedArchiver runs with the identity-hash workaround: tags, friends and the root array are an "
                + "NSArray subclass that hashes and compares by identity and reports NSArray as its classForCoder "
                + "(corelibs uniques by isEqual:, so many small NSArrays make it quadratic; the archive keeps Apple's shape).",
            "W1 decode paths all read the bytes corelibs' NSKeyedArchiver wrote; W1c (cycles) reads this package's "
                + "encoder output, since corelibs cannot archive or unarchive cycles. PropertyListEncoder/Decoder use the "
                + "equivalent Codable plist (friends as indices: a plist cannot share objects).",
            "libplist C floor: plist_from_bin + a walk of every node with libplist's iterators, reading each value "
                + "(strings and data by pointer, keys not copied) + plist_free, in C (the LibplistFloor target), with "
                + "\(LibplistC.describe).",
            "libplist plist_to_bin is quadratic in 2.2: it runs only on inputs of at most \(settings.libplistWriteCap) "
                + "bplist objects; larger workloads are measured at the smaller N the note gives.",
            "peak RSS: VmHWM of a child process that builds the path's input, resets the high-water mark "
                + "(/proc/self/clear_refs 5) and runs the path once; it includes the input bytes and the runtime. "
                + "× archive: over the archive's size (the input for decode, the reference archive for encode).",
            "W4 corelibs: NSKeyedUnarchiver with a delegate substituting an empty NSObject for unknown classes (NSCoder "
                + "cannot list an object's keys, so corelibs decodes less than the graph does); files that kill the "
                + "process are found by a child first and left out; 'ours ArchiveGraph, corelibs' files' is the like-for-like row.",
        ]
    }

    func jsonText() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    func tableText() -> String {
        var lines: [String] = []
        lines.append(
            "machine: \(machine.cores) cores, \(machine.cpu), \(machine.memoryGiB) GiB, Linux \(machine.kernel); "
                + "libplist \(machine.libplist)")
        lines.append("settings: N = \(settings.n), runs = \(settings.runs)\(settings.quick ? " (quick)" : "")")
        for summary in workloads {
            lines.append(
                "\(summary.key): \(summary.title); \(Format.count(summary.objects)) $objects, "
                    + "\(Format.bytes(summary.archiveBytes)) archive")
        }
        lines.append("")
        let header = [
            "workload", "op", "path", "time", "MB/s", "objects/s", "× corelibs", "× C floor", "peak RSS", "× archive",
            "runs", "check",
        ]
        var table: [[String]] = [header]
        let ordered = rows.enumerated().sorted { a, b in
            Self.order(a.element, b.element) || (!Self.order(b.element, a.element) && a.offset < b.offset)
        }.map(\.element)
        for row in ordered {
            let label = row.note.map { "\(row.label) [\($0)]" } ?? row.label
            table.append([
                row.workload, row.operation.rawValue, label,
                row.runs > 0 ? Format.seconds(row.seconds) : "–",
                row.runs > 0 ? Format.number(row.megabytesPerSecond) : "–",
                row.runs > 0 ? Format.count(Int(row.objectsPerSecond)) : "–",
                row.timesFasterThanFoundation.map(Format.ratio) ?? "–",
                row.timesFasterThanLibplistC.map(Format.ratio) ?? "–",
                row.peakRSSBytes.map(Format.bytes) ?? "–",
                row.peakRSSOverArchive.map { String(format: "%.1f×", $0) } ?? "–",
                row.runs > 0 ? String(row.runs) : "–",
                row.check,
            ])
        }
        let widths = header.indices.map { column in table.map { $0[column].count }.max() ?? 0 }
        let numeric: Set<Int> = [3, 4, 5, 6, 7, 8, 9, 10]
        for (i, cells) in table.enumerated() {
            let padded = cells.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return numeric.contains(column) ? pad + cell : cell + pad
            }
            lines.append(padded.joined(separator: "  ").trimmingCharacters(in: .whitespaces))
            if i == 0 { lines.append(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")) }
        }
        lines.append("")
        lines += notes.map { "- " + $0 }
        let failed = rows.filter { $0.check.hasPrefix("FAIL") }.count
        lines.append("")
        lines.append("checks: \(rows.count - failed) passed, \(failed) failed")
        return lines.joined(separator: "\n")
    }

    /// Workload order as run, decode rows before encode rows before JSON rows, then the order the paths were
    /// defined in.
    static func order(_ a: BenchRow, _ b: BenchRow) -> Bool {
        let workloads = ["W1", "W1c", "W2", "W3", "W4", "W5"]
        let wa = workloads.firstIndex(of: a.workload) ?? 9
        let wb = workloads.firstIndex(of: b.workload) ?? 9
        if wa != wb { return wa < wb }
        let operations = BenchPath.Operation.allCases
        return operations.firstIndex(of: a.operation)! < operations.firstIndex(of: b.operation)!
    }
}

enum Format {
    static func seconds(_ s: Double) -> String {
        if s.isNaN { return "–" }
        if s < 1e-3 { return String(format: "%.1f µs", s * 1e6) }
        if s < 1 { return String(format: "%.2f ms", s * 1e3) }
        return String(format: "%.2f s", s)
    }

    static func number(_ x: Double) -> String {
        if x.isNaN || x.isInfinite { return "–" }
        if x >= 100 { return String(format: "%.0f", x) }
        if x >= 10 { return String(format: "%.1f", x) }
        return String(format: "%.2f", x)
    }

    static func ratio(_ x: Double) -> String { x >= 10 ? String(format: "%.0f×", x) : String(format: "%.2f×", x) }

    static func count(_ x: Int) -> String {
        if x >= 10_000_000 { return String(format: "%.0fM", Double(x) / 1e6) }
        if x >= 1_000_000 { return String(format: "%.1fM", Double(x) / 1e6) }
        if x >= 10_000 { return String(format: "%.0fk", Double(x) / 1e3) }
        return String(x)
    }

    static func bytes(_ x: Int) -> String {
        if x >= 1 << 30 { return String(format: "%.2f GiB", Double(x) / Double(1 << 30)) }
        if x >= 1 << 20 { return String(format: "%.1f MiB", Double(x) / Double(1 << 20)) }
        if x >= 1 << 10 { return String(format: "%.1f KiB", Double(x) / Double(1 << 10)) }
        return "\(x) B"
    }
}

extension Data {
    /// The bytes as an array (Foundation's own `bytes` is a `RawSpan`).
    var byteArray: [UInt8] { [UInt8](self) }
}
