// The driver of scripts/limits.sh: with no case name, runs every case in a child process (this binary with
// the case's name) and checks the bounds; with `--child CASE`, measures that case and prints the result.
import Foundation

@main
enum LimitsMain {
    static func main() throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "--child", let name = arguments.dropFirst().first, let limitCase = LimitCase(rawValue: name) {
            print(LimitMeasurement.measure(limitCase).serialized, terminator: "")
            return
        }
        let cases = arguments.isEmpty ? LimitCase.allCases : arguments.compactMap(LimitCase.init(rawValue:))
        var failures = 0
        for limitCase in cases {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            process.arguments = ["--child", limitCase.rawValue]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            guard process.terminationStatus == 0, let result = LimitMeasurement(serialized: output) else {
                print("FAIL \(limitCase): the child exited with \(process.terminationStatus)")
                failures += 1
                continue
            }
            let ok = result.error == limitCase.expectedError
                && result.cpuMicroseconds < LimitMeasurement.timeBoundMicroseconds
                && result.memoryKB < LimitMeasurement.memoryBoundKB
            if !ok { failures += 1 }
            let ms = Double(result.cpuMicroseconds) / 1000
            print("\(ok ? "ok  " : "FAIL") \(limitCase.rawValue.padding(toLength: 28, withPad: " ", startingAt: 0)) "
                + "\(result.error.padding(toLength: 19, withPad: " ", startingAt: 0)) "
                + "\(String(format: "%8.2f", ms)) ms CPU  +\(String(format: "%6.1f", Double(result.memoryKB) / 1024)) MB"
                + (ok ? "" : "  (\(result.message))"))
        }
        if failures > 0 {
            print("\(failures) of \(cases.count) cases outside the bounds (50 ms CPU, 64 MB)")
            exit(1)
        }
    }
}
