#if canImport(Glibc)
import Glibc
#endif
import AutoCoding
import Foundation
import Testing

/// Crash-safe writes: a writer process that overwrites an archive atomically, killed with SIGKILL at random
/// moments, never leaves a torn file.
@Suite("Crash-safe writes")
struct CrashSafeWriteTests {
    /// An archive of `count` objects; `label` tells the versions apart.
    static func archive(_ label: String, count: Int) -> [UInt8] {
        let objects = (0..<count).map { i -> ArchivedValue in
            let object = ArchivedObject(className: "Item", chain: ["Item", "NSObject"])
            object.fields["label"] = .reference(.string("\(label) \(i)"))
            object.fields["index"] = .inline(.integer(Int64(i)))
            return .object(object)
        }
        let list = ArchivedObject(className: "NSArray", chain: ["NSArray", "NSObject"])
        list.fields["NS.objects"] = .array(objects)
        return ArchiveGraph(root: .object(list)).binaryPlist()
    }

    /// 100 trials: the child rewrites the file again and again, alternating the old and the new archive
    /// (about 1.5 MB each, so a kill often lands mid-write); the parent kills it with SIGKILL after a random
    /// delay once it has started writing. The file must then read back byte for byte as one of the two.
    @Test(.timeLimit(.minutes(5)))
    func aWriterKilledAtRandomMomentsLeavesTheOldOrTheNewArchive() throws {
        let old = Self.archive("old", count: 40_000)
        let new = Self.archive("new", count: 40_000)
        let directory = NSTemporaryDirectory() + "/autocoding-sigkill-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let target = directory + "/archive.bplist"
        try ArchiveFile.write(old, to: target)
        // The child reads the two versions from files rather than building them again in every trial.
        try Data(new).write(to: URL(fileURLWithPath: directory + "/version-0"))
        try Data(old).write(to: URL(fileURLWithPath: directory + "/version-1"))
        var outcomes = [0, 0]  // old, new
        var generator = SystemRandomNumberGenerator()
        for trial in 0..<100 {
            let ready = directory + "/ready-\(trial)"
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            process.arguments = ["--testing-library", "swift-testing", "--filter", "atomicWriterProbe"]
            var environment = ProcessInfo.processInfo.environment
            environment["AUTOCODING_WRITER_TARGET"] = target
            environment["AUTOCODING_WRITER_READY"] = ready
            environment["AUTOCODING_WRITER_VERSIONS"] = directory + "/version-"
            process.environment = environment
            process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
            process.standardError = FileHandle(forWritingAtPath: "/dev/null")
            try process.run()
            // Wait until the child is about to write, then let it run 0-60 ms: several writes at most.
            let started = Date()
            while !FileManager.default.fileExists(atPath: ready), process.isRunning,
                Date().timeIntervalSince(started) < 60
            {
                usleep(1_000)
            }
            try #require(process.isRunning, "trial \(trial): the writer exited before it was killed")
            usleep(UInt32.random(in: 0...60_000, using: &generator))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal, "trial \(trial)")

            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: target)))
            if bytes == old {
                outcomes[0] += 1
            } else if bytes == new {
                outcomes[1] += 1
            } else {
                Issue.record("trial \(trial): the file is torn (\(bytes.count) bytes, neither version)")
                try ArchiveFile.write(old, to: target)
            }
        }
        // Leftover temporary files of killed writers are allowed (they never replace the target); nothing else.
        let others = try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0 != "archive.bplist" && !$0.hasPrefix("ready-") && !$0.hasPrefix("version-") && !$0.hasPrefix(".archive.bplist.tmp-") }
        #expect(others.isEmpty)
        print("SIGKILL writer: 100 trials, \(outcomes[0]) left the old archive, \(outcomes[1]) the new one")
    }

    /// The child side: rewrites the target with the old and new archive in turn until it is killed.
    @Test func atomicWriterProbe() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let target = environment["AUTOCODING_WRITER_TARGET"], let ready = environment["AUTOCODING_WRITER_READY"],
            let prefix = environment["AUTOCODING_WRITER_VERSIONS"]
        else { return }
        let versions = try (0..<2).map { try [UInt8](Data(contentsOf: URL(fileURLWithPath: prefix + "\($0)"))) }
        // The parent waits for this file; a child that cannot make it exits, which the parent reports.
        guard FileManager.default.createFile(atPath: ready, contents: nil) else { return }
        var turn = 0
        while true {
            try ArchiveFile.write(versions[turn % 2], to: target)
            turn += 1
        }
    }
}
