import Foundation
import Testing

@testable import AutoCodingFast

// MARK: - Committed fixtures

/// The fixtures committed in `Tests/AutoCodingFastTests/Fixtures` (see its README.md), copied into the test
/// bundle as one folder.
enum Fixtures {
    /// The `Fixtures` folder inside the test bundle.
    static let directory: URL = {
        guard let url = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            preconditionFailure("the test bundle has no Fixtures folder: check resources: [.copy(\"Fixtures\")]")
        }
        return url
    }()

    /// Every fixture file name (README.md excluded), sorted.
    static let all: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") && !$0.hasSuffix(".md") }.sorted()
    }()

    /// Fixtures that are keyed archives: the plistlib-made `keyed-*` and the NSKeyedArchiver-made `foundation-*`.
    static var keyed: [String] { all.filter { $0.hasPrefix("keyed-") || $0.hasPrefix("foundation-") } }

    /// Fixtures that are plain property lists.
    static var plain: [String] { all.filter { $0.hasPrefix("plain-") } }

    /// The bytes of one fixture.
    static func bytes(_ name: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: directory.appendingPathComponent(name)))
    }

    /// One fixture read as a property list.
    static func value(_ name: String, options: ArchiveReadingOptions = .init()) throws -> ArchiveValue {
        try ArchiveValue(propertyList: bytes(name), options: options)
    }

    /// One fixture read as a keyed archive.
    static func archive(_ name: String) throws -> KeyedArchive {
        try KeyedArchive(bytes: bytes(name))
    }
}

// MARK: - Shared corpus

/// The corpus of real-world files in `../shared/corpus` beside the package (see its MANIFEST.md). It is not
/// part of the package: tests over it are skipped, visibly, when it is absent.
enum SharedCorpus {
    /// The package root, found from this file's path: `<root>/Tests/AutoCodingFastTests/TestSupport.swift`.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // AutoCodingFastTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// `<package root>/../shared/corpus`.
    static let directory = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus")

    /// Whether the corpus is there (its manifest and its `apple/` folder).
    static let isAvailable: Bool = {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(
            atPath: directory.appendingPathComponent("apple").path,
            isDirectory: &isDirectory
        )
            && isDirectory.boolValue
    }()

    /// The reason printed for skipped corpus tests.
    static let skipReason: Comment = "../shared/corpus is not beside the package"

    /// The files of one corpus folder, sorted (README and manifests excluded); empty when the corpus is absent.
    static func files(in folder: String) -> [String] {
        let url = directory.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.filter { !$0.hasPrefix(".") && !$0.hasSuffix(".md") }.sorted()
    }

    /// `folder/name` for every file of the folders, for test arguments that read well in the results.
    static func paths(in folders: String...) -> [String] {
        folders.flatMap { folder in files(in: folder).map { "\(folder)/\($0)" } }
    }

    /// The bytes of `folder/name`.
    static func bytes(_ path: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: directory.appendingPathComponent(path)))
    }
}

// MARK: - Value comparison

extension ArchiveValue {
    /// The first place where `self` and `other` differ, or nil when they are identical.
    ///
    /// Stricter than `==`: reals and dates compare by bit pattern (so NaN equals itself and `-0.0` differs
    /// from `0.0`), strings by Unicode scalars (so `"é"` differs from `"e\u{301}"`), and dictionaries by key
    /// order as well. The description names the path, as `$objects[3]["NS.time"]`, and both values.
    func firstDifference(from other: ArchiveValue, path: String = "") -> String? {
        let here = path.isEmpty ? "root" : path
        switch (self, other) {
        case (.real(let a), .real(let b)):
            return a.bitPattern == b.bitPattern ? nil : "\(here): real \(a) vs \(b)"
        case (.date(let a), .date(let b)):
            let (x, y) = (a.timeIntervalSinceReferenceDate, b.timeIntervalSinceReferenceDate)
            return x.bitPattern == y.bitPattern ? nil : "\(here): date \(x) vs \(y) seconds since 2001"
        case (.string(let a), .string(let b)):
            return a.unicodeScalars.elementsEqual(b.unicodeScalars)
                ? nil : "\(here): string \(a.debugDescription) vs \(b.debugDescription)"
        case (.array(let a), .array(let b)):
            guard a.count == b.count else { return "\(here): array of \(a.count) vs \(b.count) elements" }
            for (i, (x, y)) in zip(a, b).enumerated() {
                if let d = x.firstDifference(from: y, path: "\(path)[\(i)]") { return d }
            }
            return nil
        case (.dictionary(let a), .dictionary(let b)):
            let (ka, kb) = (a.keys.map { Array($0.unicodeScalars) }, b.keys.map { Array($0.unicodeScalars) })
            guard ka == kb else { return "\(here): dictionary keys \(Array(a.keys)) vs \(Array(b.keys))" }
            for ((key, x), y) in zip(a, b.values) {
                if let d = x.firstDifference(from: y, path: "\(path)[\(key.debugDescription)]") { return d }
            }
            return nil
        default:
            return self == other ? nil : "\(here): \(self.brief) vs \(other.brief)"
        }
    }

    /// A short rendering for difference reports.
    var brief: String {
        switch self {
        case .bool(let b): "bool \(b)"
        case .integer(let v): "integer \(v)"
        case .unsignedInteger(let v): "unsignedInteger \(v)"
        case .real(let v): "real \(v)"
        case .date(let d): "date \(d.timeIntervalSinceReferenceDate)"
        case .data(let d): "data of \(d.count) bytes"
        case .string(let s): "string \(s.prefix(60).debugDescription)"
        case .uid(let u): "UID \(u.rawValue)"
        case .array(let a): "array of \(a.count)"
        case .dictionary(let d): "dictionary of \(d.count)"
        }
    }

    /// The value with every date cut to whole seconds toward negative infinity, the precision of XML plists.
    var withWholeSecondDates: ArchiveValue {
        switch self {
        case .date(let d):
            return .date(Date(timeIntervalSinceReferenceDate: d.timeIntervalSinceReferenceDate.rounded(.down)))
        case .array(let a): return .array(a.map(\.withWholeSecondDates))
        case .dictionary(let d): return .dictionary(d.mapValues(\.withWholeSecondDates))
        default: return self
        }
    }

    /// The value with every dictionary's keys in ascending order, for comparing with writers (CoreFoundation)
    /// that order keys by hash.
    var withSortedKeys: ArchiveValue {
        switch self {
        case .array(let a): return .array(a.map(\.withSortedKeys))
        case .dictionary(let d):
            var sorted = d.mapValues(\.withSortedKeys)
            sorted.sort { $0.key < $1.key }
            return .dictionary(sorted)
        default: return self
        }
    }

    /// Whether this is the root dictionary of a keyed archive (has `$archiver` and `$objects`).
    var looksKeyed: Bool {
        self[ArchiveKey.archiver] != nil && self[ArchiveKey.objects] != nil
    }
}

// MARK: - Binary plist inspection

/// The fields of a binary plist's 32-byte trailer, read directly from the bytes for writer tests.
struct TrailerFields: Equatable {
    var offsetIntSize: Int
    var objectRefSize: Int
    var objectCount: Int
    var topObject: Int
    var offsetTableOffset: Int

    init(offsetIntSize: Int, objectRefSize: Int, objectCount: Int, topObject: Int, offsetTableOffset: Int) {
        self.offsetIntSize = offsetIntSize
        self.objectRefSize = objectRefSize
        self.objectCount = objectCount
        self.topObject = topObject
        self.offsetTableOffset = offsetTableOffset
    }

    /// Reads the last 32 bytes of `bytes`.
    init(_ bytes: [UInt8]) {
        let t = bytes.count - 32
        func u64(_ at: Int) -> Int { bytes[at..<at + 8].reduce(0) { $0 << 8 | Int($1) } }
        offsetIntSize = Int(bytes[t + 6])
        objectRefSize = Int(bytes[t + 7])
        objectCount = u64(t + 8)
        topObject = u64(t + 16)
        offsetTableOffset = u64(t + 24)
    }
}

// MARK: - Processes

/// Where an executable is on `PATH`, or nil.
func executableOnPath(_ name: String) -> URL? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for directory in path.split(separator: ":") {
        let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    return nil
}

/// Runs `executable` with `arguments` and returns its exit status and standard output (standard error goes
/// to the test log). Inputs are passed as files, so only one pipe is read.
func run(_ executable: URL, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let stdout = Pipe()
    process.standardOutput = stdout
    try process.run()
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: output, as: UTF8.self))
}

/// A new file in the temporary directory holding `bytes`; the caller removes it.
func temporaryFile(_ bytes: [UInt8], suffix: String = ".bplist") throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("autocoding-\(UUID().uuidString)\(suffix)")
    try Data(bytes).write(to: url)
    return url
}
