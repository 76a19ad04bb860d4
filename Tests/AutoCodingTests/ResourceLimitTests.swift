#if canImport(Glibc)
import Glibc
#endif
import AutoCoding
import Foundation
import Testing
import _AutoCodingTestSupport

/// The resource bounds, proven: each hostile input (``LimitCase``) must end with its error in under
/// 50 ms of CPU time and under 64 MB of peak memory above the baseline taken just before decoding.
///
/// Each case runs in a child process (this test binary, re-run with a filter and `AUTOCODING_LIMIT_CASE`),
/// so that tests running in parallel neither share its peak RSS nor steal its time. The cases run one at a
/// time, so that twelve children do not compete for two cores.
///
/// Time: the 50 ms is for the library as shipped, optimized, and `scripts/limits.sh` checks exactly
/// that, running these cases with the engine built `-O` (see SECURITY.md). `swift test` builds with `-Onone`,
/// where these cases measured 10 to 70 times slower than with `-O` (12× for the million nested arrays, 10× for
/// the tiny objects, 43× to 70× for the object chains, whose typed decode is generic code that `-Onone` does
/// not specialize, the higher figure on a loaded machine). So a debug build is held to 50 ms × 100 = 5 s of
/// CPU, which still catches anything quadratic or unbounded, and an optimized one (`swift test -c release`)
/// to 50 ms. Memory has no such factor: 64 MB in every build.
///
/// Under a sanitizer (`scripts/sanitize.sh address|thread`) the bounds are not checked, only the error: ASan's
/// redzones, shadow memory and quarantine of freed blocks, and TSan's shadow memory, are counted in the peak RSS
/// (the million nested arrays measured +81 MB under ASan against +18 MB without), and their instrumentation
/// multiplies the CPU time. What would be measured is the sanitizer, not the library; the normal run keeps
/// both bounds.
@Suite("Resource limits, measured in a child process", .serialized)
struct ResourceLimitTests {
    #if DEBUG
    static let timeBoundMicroseconds = LimitMeasurement.timeBoundMicroseconds * 100
    #else
    static let timeBoundMicroseconds = LimitMeasurement.timeBoundMicroseconds
    #endif

    @Test(arguments: LimitCase.allCases)
    func endsWithItsErrorWithinTheTimeAndMemoryBounds(_ limitCase: LimitCase) throws {
        let result = try Self.runInChild(limitCase)
        #expect(result.error == limitCase.expectedError, "\(limitCase): \(result.message)")
        if let sanitizer = ActiveSanitizer.name {
            print("resource limit \(limitCase): \(result.error); bounds not checked under \(sanitizer)")
            return
        }
        #expect(result.memoryKB < LimitMeasurement.memoryBoundKB, "\(limitCase): peak memory grew \(result.memoryKB) KB")
        #expect(result.cpuMicroseconds < Self.timeBoundMicroseconds, "\(limitCase): \(result.cpuMicroseconds) µs of CPU")
        print("resource limit \(limitCase): \(result.error) in \(result.cpuMicroseconds) µs CPU, +\(result.memoryKB) KB")
    }

    /// Does nothing in a normal run; in a child started by ``runInChild(_:)``, measures its case.
    @Test func resourceLimitProbe() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let name = environment["AUTOCODING_LIMIT_CASE"], let output = environment["AUTOCODING_LIMIT_RESULT"]
        else { return }
        let limitCase = try #require(LimitCase(rawValue: name))
        try LimitMeasurement.measure(limitCase).serialized.write(toFile: output, atomically: true, encoding: .utf8)
    }

    static func runInChild(_ limitCase: LimitCase) throws -> LimitMeasurement {
        let resultPath = FileManager.default.temporaryDirectory
            .appendingPathComponent("autocoding-limit-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: resultPath) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["--testing-library", "swift-testing", "--filter", "resourceLimitProbe"]
        var environment = ProcessInfo.processInfo.environment
        environment["AUTOCODING_LIMIT_CASE"] = limitCase.rawValue
        environment["AUTOCODING_LIMIT_RESULT"] = resultPath
        process.environment = environment
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "the probe for \(limitCase) exited with \(process.terminationStatus)")
        let text = try String(contentsOfFile: resultPath, encoding: .utf8)
        return try #require(LimitMeasurement(serialized: text), "the probe for \(limitCase) wrote no result")
    }
}

