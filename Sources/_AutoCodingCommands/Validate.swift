import ArgumentParser
import AutoCodingCore
import Foundation

/// `autocoding validate`: reads each file strictly and reports one line per file, then a count.
struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check that files are valid keyed archives, property lists or typedstreams.",
        discussion: """
            Prints `ok PATH …` or `FAIL PATH: reason` per file, then `N passed, M failed`. With --json, prints \
            one JSON record per file instead ({"path", "ok", "summary"} or {"path", "ok": false, "error": \
            {"code", "reason"}}) and the count line on standard error.
            With --strict, a file passes only when Apple's NSKeyedUnarchiver would open it: a keyed archive \
            whose $archiver is NSKeyedArchiver, $version 100000, with a root entry in $top (this reader also \
            accepts SCNKeyedArchiver and other names, plain property lists and typedstreams).
            Exit status: 0 when all passed, 1 when any failed, 2 on a usage error or when no file was found.
            """
    )

    @Flag(help: "Write each file back with the native writer, read it again and require an equal result.")
    var roundtrip = false

    @Option(help: "The binary-plist parser: native or libplist.")
    var backend: ArchiveReadingOptions.Backend = .native

    @Flag(help: "Print one JSON record per file (NDJSON) instead of text lines.")
    var json = false

    @Flag(help: "Also require what Apple's NSKeyedUnarchiver does: $archiver NSKeyedArchiver, $version 100000, $top.root.")
    var strict = false

    @Argument(help: "Files or directories (searched recursively); '-' for standard input.")
    var paths: [String]

    func validate() throws {
        guard !paths.isEmpty else { throw ValidationError("Give at least one file or directory.") }
    }

    func run() throws {
        var options = ArchiveReadingOptions()
        options.backend = backend
        var passed = 0
        var failed = 0
        let sink = OutputSink.standardOutput()
        for path in InputFiles.expand(paths) {
            var record = JSONLine()
            record.string("path", path)
            do {
                let summary = try FileCheck.check(path: path, options: options, roundtrip: roundtrip, strict: strict)
                record.bool("ok", true)
                record.string("summary", summary)
                try sink.write(json ? record.finished + "\n" : TerminalText.escaped("ok \(path) \(summary)") + "\n")
                passed += 1
            } catch {
                record.bool("ok", false)
                record.raw("error", ErrorReport(error).json)
                let line = json ? record.finished : TerminalText.escaped("FAIL \(path): \(ErrorReport.text(error))")
                try sink.write(line + "\n")
                failed += 1
            }
        }
        if passed + failed == 0 {
            // Directories that hold no file are a mistake in the call, not a clean run.
            StandardError.write("error: no input files in \(paths.joined(separator: ", "))")
            throw ExitCode(2)
        }
        if json {
            try sink.flush()
            StandardError.write("\(passed) passed, \(failed) failed")
        } else {
            try sink.write("\(passed) passed, \(failed) failed\n")
            try sink.flush()
        }
        if failed > 0 { throw ExitCode(1) }
    }
}

extension ArchiveReadingOptions.Backend: ExpressibleByArgument {}

/// The check `validate` runs on one file.
enum FileCheck {
    struct RoundTripMismatch: Error, CustomStringConvertible {
        var description: String
    }

    /// Reads `path` strictly and, with `roundtrip`, writes and reads it again; returns a one-line summary.
    ///
    /// A keyed archive is resolved into an object graph (every UID of every object followed). The round trip
    /// checks the engine (the value written by the native writer reads back equal) and, for archives, the
    /// object layer (the graph re-encoded reads back as an equivalent graph, sharing and cycles included).
    static func check(path: String, options: ArchiveReadingOptions, roundtrip: Bool, strict: Bool = false) throws -> String {
        let bytes = try InputFiles.read(path, limit: options.maxInputBytes)
        if strict && Typedstream.hasSignature(bytes) {
            throw StrictViolation(description: "a typedstream (NSArchiver), not a keyed archive")
        }
        if Typedstream.hasSignature(bytes) {
            return try checkTypedstream(bytes, options: options, roundtrip: roundtrip)
        }
        let value = try ArchiveValue(propertyList: bytes, options: options)
        let archive = try keyedArchive(value, options: options)
        if strict { try checkStrict(archive) }
        var summary = "plain \(value.typeName)"
        var graph: ArchiveGraph?
        if let archive {
            let resolved = try ArchiveGraph(archive: archive)
            let rootClass = resolved.root?.object?.className ?? resolved.root.map { describe($0) } ?? "-"
            summary = "keyed \(archive.archiver), \(archive.objects.count) objects, root \(rootClass)"
            graph = resolved
        }
        summary += ", \(bytes.count) bytes"
        // `validate` reads file after file.
        defer { graph?.breakReferenceCycles() }
        guard roundtrip else { return summary }

        let written = value.binaryPropertyList()
        let reread = try ArchiveValue(propertyList: written, options: options)
        guard reread == value || reread.binaryPropertyList() == written else {
            throw RoundTripMismatch(description: "the value read back from the native writer's output differs")
        }
        summary += "; round trip \(written.count) bytes (\(percent(written.count, of: bytes.count)))"
        if let graph {
            let reencoded = graph.binaryPlist()
            let reread = try ArchiveGraph(bytes: reencoded, options: options)
            defer { reread.breakReferenceCycles() }
            guard reread.isEquivalent(to: graph) else {
                throw RoundTripMismatch(description: "the object graph re-encoded and read back is not equivalent")
            }
            summary += ", graph \(reencoded.count) bytes (\(percent(reencoded.count, of: bytes.count)))"
        }
        return summary
    }

    /// What `NSKeyedUnarchiver` refuses and this reader accepts.
    struct StrictViolation: Error, CustomStringConvertible {
        var description: String
    }

    /// Apple's unarchiver requires its own archiver name, version 100000 and a `root` (`decodeObjectForKey:@"root"`,
    /// which `unarchiveObjectWithData:` uses, finds nothing otherwise).
    static func checkStrict(_ archive: KeyedArchive?) throws {
        guard let archive else { throw StrictViolation(description: "a plain property list, not a keyed archive") }
        guard archive.archiver == "NSKeyedArchiver" else {
            throw StrictViolation(description: "$archiver is \"\(archive.archiver)\", not NSKeyedArchiver")
        }
        guard archive.version == 100_000 else {
            throw StrictViolation(description: "$version is \(archive.version), not 100000")
        }
        guard archive.top[ArchiveKey.root] != nil else { throw StrictViolation(description: "$top has no root") }
    }

    /// Reads a typedstream strictly; with `roundtrip`, writes it back, requires an equal table on reading
    /// again, and says whether the bytes are identical to the input.
    static func checkTypedstream(_ bytes: [UInt8], options: ArchiveReadingOptions, roundtrip: Bool) throws -> String {
        let stream = try Typedstream(bytes: bytes, options: options)
        var summary =
            "typedstream \(stream.byteOrder.rawValue)-endian v\(stream.systemVersion), \(stream.objectCount) objects, "
            + "\(stream.topLevelGroupCount) groups, root \(stream.rootClassName ?? "-"), \(bytes.count) bytes"
        guard roundtrip else { return summary }
        let written = stream.typedstreamBytes()
        let reread = try Typedstream(bytes: written, options: options)
        if let difference = reread.firstDifference(from: stream) {
            throw RoundTripMismatch(description: "the events read back from the writer's output differ: \(difference)")
        }
        summary += "; round trip \(written.count) bytes (\(written == bytes ? "identical" : "equal events"))"
        return summary
    }

    private static func percent(_ part: Int, of whole: Int) -> String {
        String(format: "%.1f%%", Double(part) / Double(max(whole, 1)) * 100)
    }

    private static func describe(_ value: ArchivedValue) -> String {
        switch value {
        case .null: "nil"
        case .object(let o): o.className
        case .reference(let v), .inline(let v): v.typeName
        case .array: "array"
        case .dictionary: "dictionary"
        }
    }

    /// The value as a keyed archive, or nil when it is a valid plain property list.
    static func keyedArchive(
        _ value: ArchiveValue,
        options: ArchiveReadingOptions
    ) throws(ArchiveError) -> KeyedArchive? {
        do {
            return try KeyedArchive(propertyList: value, options: options)
        } catch {
            if error.code == .notKeyedArchive { return nil }
            throw error
        }
    }
}
