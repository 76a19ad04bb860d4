import Testing

@testable import AutoCodingFast

#if canImport(Glibc)
import Glibc
#endif

/// Large buffers written whole are advised for transparent huge pages (``HugePages``): the arrays are the same,
/// and on Linux the kernel records the advice on the buffer's memory.
@Suite("Huge pages")
struct HugePagesTests {
    @Test(arguments: [0, 1, 1000, (4 << 20) / 8 + 1, (12 << 20) / 8])
    func anAdvisedArrayHoldsWhatArrayRepeatingHolds(count: Int) {
        let advised = HugePages.array(repeating: UInt64(0xA5A5), count: count)
        #expect(advised == Array(repeating: UInt64(0xA5A5), count: count))
        #expect(advised.count == count)
    }

    #if os(Linux)
    /// `VmFlags` of the mapping holding the buffer says `hg` once `MADV_HUGEPAGE` was applied to it (on a kernel
    /// built with transparent huge pages, whatever their mode).
    @Test(.enabled(if: access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) == 0, "a kernel with THP"))
    func theKernelRecordsTheAdviceOnALargeBuffer() throws {
        let advised = HugePages.array(repeating: UInt8(1), count: 12 << 20)
        let address = advised.withUnsafeBytes { UInt(bitPattern: $0.baseAddress!) } + UInt(6 << 20)
        let flags = try #require(Self.vmFlags(containing: address))
        #expect(flags.split(separator: " ").contains("hg"), "VmFlags: \(flags)")
    }

    /// The `VmFlags` line of the mapping of `/proc/self/smaps` that contains `address`.
    static func vmFlags(containing address: UInt) -> String? {
        guard let file = fopen("/proc/self/smaps", "r") else { return nil }
        defer { fclose(file) }
        var inside = false
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, file) > 0, let line {
            let text = String(cString: line).trimmingCharacters(in: .newlines)
            let fields = text.split(separator: " ")
            if let range = fields.first, range.contains("-"), !range.hasSuffix(":") {
                let bounds = range.split(separator: "-").compactMap { UInt($0, radix: 16) }
                inside = bounds.count == 2 && bounds[0] <= address && address < bounds[1]
            } else if inside, text.hasPrefix("VmFlags:") {
                return String(text.dropFirst("VmFlags:".count)).trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }
    #endif
}
