#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AutoCoding
import AutoCodingFast
import Foundation
import Testing

@Suite("Archive files")
struct ArchiveFileTests {
    /// A fresh directory for one test, removed afterwards.
    final class Scratch {
        let path: String

        init() throws {
            path = NSTemporaryDirectory() + "/autocoding-files-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }

        deinit {
            chmod(path, 0o755)
            try? FileManager.default.removeItem(atPath: path)
        }

        func file(_ name: String) -> String { path + "/" + name }

        var names: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
    }

    static func sampleGraph() -> ArchiveGraph {
        let node = ArchivedObject(className: "Node", chain: ["Node", "NSObject"])
        node["name"] = .reference(.string("first"))
        node["self"] = .object(node)
        return ArchiveGraph(root: .object(node))
    }

    static func contents(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }

    // MARK: Reading each kind

    @Test func readsABinaryKeyedArchive() throws {
        let scratch = try Scratch()
        let graph = Self.sampleGraph()
        try ArchiveFile.write(graph.binaryPlist(), to: scratch.file("a.archive"))
        guard case .keyedArchive(let read) = try ArchiveFile.read(contentsOf: scratch.file("a.archive")) else {
            Issue.record("not read as a keyed archive")
            return
        }
        #expect(read.isEquivalent(to: graph))
    }

    @Test func readsAnXMLKeyedArchive() throws {
        let scratch = try Scratch()
        let graph = Self.sampleGraph()
        try graph.write(to: scratch.file("a.plist"), format: .xml)
        #expect(Self.contents(scratch.file("a.plist"))?.starts(with: Array("<?xml".utf8)) == true)
        let read = try ArchiveGraph(contentsOf: scratch.file("a.plist"))
        #expect(read.isEquivalent(to: graph))
    }

    @Test func readsAPlainPropertyList() throws {
        let scratch = try Scratch()
        let value = ArchiveValue.dictionary(["name": .string("x"), "list": .array([.integer(1), .bool(true)])])
        try ArchiveFile.write(value.binaryPropertyList(), to: scratch.file("p.bplist"))
        guard case .propertyList(let read) = try ArchiveFile.read(contentsOf: scratch.file("p.bplist")) else {
            Issue.record("not read as a plain property list")
            return
        }
        #expect(read == value)
        #expect(throws: ArchiveError(.notKeyedArchive, "")) { try ArchiveGraph(contentsOf: scratch.file("p.bplist")) }
    }

    @Test(arguments: [
        [UInt8](),  // empty file
        [0x00, 0xFF, 0x10, 0x42, 0x7F],  // binary noise
        Array("hello, world\n".utf8),  // text
        Array("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8),  // XML, not a plist
        Array("bplist".utf8),  // a prefix of the magic, not the magic
    ])
    func readsOtherBytesAsData(_ bytes: [UInt8]) throws {
        let scratch = try Scratch()
        try ArchiveFile.write(bytes, to: scratch.file("d.bin"))
        guard case .data(let data) = try ArchiveFile.read(contentsOf: scratch.file("d.bin")) else {
            Issue.record("not read as data")
            return
        }
        #expect([UInt8](data) == bytes)
        #expect(throws: ArchiveError(.notPropertyList, "")) { try ArchiveGraph(contentsOf: scratch.file("d.bin")) }
    }

    @Test func throwsForABrokenBinaryPlistInsteadOfReturningData() throws {
        let scratch = try Scratch()
        var bytes = Self.sampleGraph().binaryPlist()
        bytes.removeLast(10)  // cuts into the 32-byte trailer
        try ArchiveFile.write(bytes, to: scratch.file("broken.bplist"))
        #expect(throws: ArchiveError.self) { try ArchiveFile.read(contentsOf: scratch.file("broken.bplist")) }
    }

    @Test func throwsForABrokenXMLPlist() throws {
        let scratch = try Scratch()
        let text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\"><dict><key>a</key>"
        try ArchiveFile.write(Array(text.utf8), to: scratch.file("broken.plist"))
        #expect(throws: ArchiveError.self) { try ArchiveFile.read(contentsOf: scratch.file("broken.plist")) }
    }

    @Test func throwsForAPlistThatClaimsToBeAnArchiveButIsNot() throws {
        let scratch = try Scratch()
        let value = ArchiveValue.dictionary(["$archiver": .string("NSKeyedArchiver"), "$version": .integer(100_000)])
        try ArchiveFile.write(value.binaryPropertyList(), to: scratch.file("half.archive"))
        let error = #expect(throws: ArchiveError.self) {
            try ArchiveFile.read(contentsOf: scratch.file("half.archive"))
        }
        #expect(error?.code == .missingKey)
    }

    @Test func refusesFilesAboveTheInputLimitBeforeParsing() throws {
        let scratch = try Scratch()
        try ArchiveFile.write([UInt8](repeating: 7, count: 1000), to: scratch.file("big"))
        var options = ArchiveReadingOptions()
        options.maxInputBytes = 100
        let error = #expect(throws: ArchiveError.self) {
            try ArchiveFile.read(contentsOf: scratch.file("big"), options: options)
        }
        #expect(error?.code == .limitExceeded)
    }

    @Test func reportsAMissingFileWithItsPathAndErrno() throws {
        let scratch = try Scratch()
        let error = #expect(throws: ArchiveError.self) { try ArchiveFile.read(contentsOf: scratch.file("none")) }
        #expect(error?.code == .fileAccess)
        #expect(error?.errnoCode == ENOENT)
        #expect(error?.reason == "open \(scratch.file("none")): No such file or directory (errno \(ENOENT))")
        #expect(error?.description == "fileAccess: open \(scratch.file("none")): No such file or directory (errno \(ENOENT))")
    }

    @Test func reportsADirectoryAsNotReadable() throws {
        let scratch = try Scratch()
        let error = #expect(throws: ArchiveError.self) { try ArchiveFile.read(contentsOf: scratch.path) }
        #expect(error?.code == .fileAccess)
        #expect(error?.errnoCode == EISDIR)
    }

    // MARK: Writing

    @Test func atomicWriteReplacesTheContentAndLeavesNoTemporaryFile() throws {
        let scratch = try Scratch()
        let target = scratch.file("out.archive")
        try ArchiveFile.write(Array("old contents".utf8), to: target)
        let graph = Self.sampleGraph()
        try graph.write(to: target)
        #expect(Self.contents(target) == graph.binaryPlist())
        #expect(scratch.names == ["out.archive"])
    }

    @Test func atomicWriteKeepsTheExistingPermissions() throws {
        let scratch = try Scratch()
        let target = scratch.file("private")
        try ArchiveFile.write([1, 2, 3], to: target)
        #expect(chmod(target, 0o600) == 0)
        try ArchiveFile.write([4, 5], to: target)
        var info = stat()
        #expect(stat(target, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(Self.contents(target) == [4, 5])
    }

    @Test func newFilesGetAtMostMode644() throws {
        let scratch = try Scratch()
        try ArchiveFile.write([1], to: scratch.file("new"))
        // The umask may remove bits (reading it would race with parallel tests), never add them.
        var info = stat()
        #expect(stat(scratch.file("new"), &info) == 0)
        #expect(info.st_mode & 0o777 & ~0o644 == 0)
        #expect(info.st_mode & 0o600 == 0o600)
    }

    @Test func writeIntoAMissingDirectoryFailsCleanly() throws {
        let scratch = try Scratch()
        let target = scratch.file("missing/out.archive")
        for atomically in [true, false] {
            let error = #expect(throws: ArchiveError.self) {
                try ArchiveFile.write([1, 2, 3], to: target, atomically: atomically)
            }
            #expect(error?.code == .fileAccess)
            #expect(error?.errnoCode == ENOENT)
        }
        #expect(scratch.names.isEmpty)
    }

    @Test func writeFailsCleanlyWhenTheTargetIsADirectory() throws {
        let scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.file("dir"), withIntermediateDirectories: false)
        let error = #expect(throws: ArchiveError.self) { try ArchiveFile.write([1], to: scratch.file("dir")) }
        #expect(error?.errnoCode == EISDIR)
        #expect(error?.reason.hasPrefix("rename ") == true)
        // The temporary file was removed after the failed rename.
        #expect(scratch.names == ["dir"])
    }

    /// A directory no file can be created in: a 0555 directory for an ordinary user; for root, who ignores
    /// permission bits, sysfs, which refuses new files even to root.
    static var readOnlyDirectory: String? {
        if geteuid() != 0 { return "" }
        return FileManager.default.fileExists(atPath: "/sys/kernel") ? "/sys/kernel" : nil
    }

    @Test(.enabled(if: readOnlyDirectory != nil, "needs a non-root user or a Linux /sys"))
    func writeIntoAReadOnlyDirectoryThrows() throws {
        let scratch = try Scratch()
        var directory = Self.readOnlyDirectory ?? ""
        if directory.isEmpty {
            directory = scratch.file("ro")
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
            #expect(chmod(directory, 0o555) == 0)
        }
        for atomically in [true, false] {
            let error = #expect(throws: ArchiveError.self) {
                try ArchiveFile.write([1, 2, 3], to: directory + "/autocoding-test.archive", atomically: atomically)
            }
            #expect(error?.code == .fileAccess)
            #expect(error?.errnoCode == EACCES || error?.errnoCode == EROFS || error?.errnoCode == EPERM)
        }
        #expect(!FileManager.default.fileExists(atPath: directory + "/autocoding-test.archive"))
    }

    @Test func nonAtomicWriteTruncatesAndWrites() throws {
        let scratch = try Scratch()
        let target = scratch.file("plain")
        try ArchiveFile.write([UInt8](repeating: 9, count: 100), to: target, atomically: false)
        try ArchiveFile.write([1, 2], to: target, atomically: false)
        #expect(Self.contents(target) == [1, 2])
        #expect(scratch.names == ["plain"])
    }

    @Test func everyOverloadWritesTheSameBytes() throws {
        let scratch = try Scratch()
        let bytes: [UInt8] = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try ArchiveFile.write(bytes, to: scratch.file("array"))
        try ArchiveFile.write(Data(bytes), to: scratch.file("data"))
        try ArchiveFile.write(bytes[...], to: scratch.file("slice"))
        try ArchiveFile.write(bytes.lazy.map { $0 }, to: scratch.file("lazy"))
        for name in ["array", "data", "slice", "lazy"] {
            #expect(Self.contents(scratch.file(name)) == bytes, "\(name)")
        }
    }
}

// MARK: - Writers refuse what readers refuse (issue 17)

extension ArchiveFileTests {
    @Test func refusesToWriteAGraphTheReaderWouldRefuse() throws {
        let scratch = try Scratch()
        // A field nested 600 arrays deep (as JSON can describe it): the archive would nest past the reader's 512.
        var deep = ArchivedValue.inline(.integer(1))
        for _ in 0..<600 { deep = .array([deep]) }
        let graph = ArchiveGraph(root: .object(ArchivedObject(className: "Deep", fields: ["f": deep])))
        let error = #expect(throws: ArchiveError.self) { try graph.write(to: scratch.file("deep.archive")) }
        #expect(error?.code == .depthLimitExceeded)
        #expect(error?.reason.contains("depth limit 512") == true, "\(error.map { "\($0)" } ?? "")")
        #expect(scratch.names.isEmpty)  // nothing written
        let xml = #expect(throws: ArchiveError.self) { try graph.write(to: scratch.file("deep.xml"), format: .xml) }
        #expect(xml?.code == .depthLimitExceeded)
    }
}
