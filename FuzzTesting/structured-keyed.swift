// Structure-aware keyed archives (issue 17): the input is a program that builds an archive (StructuredKeyed.swift),
// which then goes through every keyed decoder entry point and the code of every command that reads one:
//
//   engine       KeyedArchiveView(bytes:), .keyedArchive(); ArchiveValue(propertyList:) + KeyedArchive(propertyList:)
//   graph        ArchiveGraph(bytes:)
//   json         ArchiveFile.contents(of:) → json(prettyPrinted:maxOutputBytes:) of the graph or value (JSONCommand.run)
//   inspect      ArchiveTree(archive:maxDepth:maxOutputBytes:).write(to: OutputSink), ArchiveTree.classTable (Inspect.run)
//   get          LazyKeyedArchive(bytes:).values(at:) and, with --eager, ArchiveGraph.values(at:maxValues:), printed
//                as Get.run prints them (budgeted JSON, [*] as an array); ArchivePath(parsing:) of each path's text
//   codegen      ModelCodegen.generate (Codegen.run)
//   messages     MessageBody.text (one attributedBody of `messages`)
//   batch        BatchDecoder.decode (one record's decode, with --json); it frees its graph, cycles included
//   encode       Encode.isArchiveGraph + ArchiveGraph(json:) → keyedArchive → binaryPlist, decoded again, and
//                Encode.encode(json:format:) itself
//   validate     FileCheck.check(path:roundtrip: true) (Validate.run --roundtrip; convert's checks)
//   models       KeyedArchiveDecoder into Codable models (lazy table and validated view), KeyedUnarchiver.decodeObject
//
// Oracles: no crash; each command's output ≤ 100 × the archive + 1 MiB; no control character from the archive in
// `inspect`'s output; no archive text with a newline copied raw into codegen's Swift; each stage under
// FUZZ_STAGE_SECONDS per FUZZ_STAGE_BYTES of archive (1 s per 128 KiB); libFuzzer's -timeout=1 and
// -rss_limit_mb / -malloc_limit_mb.
@testable import _AutoCodingCommands
import AutoCodingCodegen
import AutoCodingCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStructuredKeyed(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    withInput(data, size) { input in
        var builder = KeyedArchiveBuilder(Program(input))
        let generated = stage("generate", input: input.count, sizedBy: { $0.bytes.count }) { builder.build() }
        dump(generated.bytes)
        var program = builder.program
        exercise(generated, &program)
    }
}

/// Everything a reader of `generated.bytes` may do.
func exercise(_ generated: GeneratedArchive, _ program: inout Program) {
    let bytes = generated.bytes
    let n = bytes.count

    // Engine.
    let view = stage("KeyedArchiveView", input: n) { try? KeyedArchiveView(bytes: bytes, options: commandOptions) }
    _ = stage("KeyedArchiveView.keyedArchive", input: n) { try? view?.keyedArchive() }

    // inspect: the plist, then the archive as a tree (or the plain value), and the class table.
    stage("inspect", input: n) { inspect(bytes, maxDepth: program.chance(32) ? program.int(below: 8) : nil, classes: program.chance(64)) }

    // json.
    let contents = stage("ArchiveFile.contents", input: n) { try? ArchiveFile.contents(of: bytes, options: commandOptions) }
    let graph: ArchiveGraph?
    switch contents {
    case .keyedArchive(let g)?:
        graph = g
        let pretty = program.bool()
        // As JSONCommand.run: the budgeted writer, which throws past the budget (an acceptable outcome).
        if let text = stage("json", input: n, { try? g.json(prettyPrinted: pretty, maxOutputBytes: OutputBudget.bytes(forInputBytes: n)) }) {
            checkOutput("json", text.utf8.count + 1, input: n)
        }
    case .propertyList(let value)?:
        graph = nil
        if let text = stage("json (plist)", input: n, { try? value.json(prettyPrinted: true, maxOutputBytes: OutputBudget.bytes(forInputBytes: n)) }) {
            checkOutput("json", text.utf8.count + 1, input: n)
        }
    default:
        graph = nil
    }
    defer { release(graph) }
    let cyclic = graph.map(hasCycle) ?? false

    // get: lazy (the default) and eager, each path parsed from its text as the command does.
    get(bytes, graph: graph, paths: generated.paths)

    // codegen.
    if let graph, enabled("codegen") {
        let output = stage("codegen", input: n) { ModelCodegen.generate([(name: "fuzz.archive", graph: graph)]) }
        checkOutput("codegen", output.source.utf8.count + output.notes.reduce(0) { $0 + $1.utf8.count + 1 }, input: n)
        checkCodegenEscaping(output.source, generated.archive)
    }

    // batch: one record, with the graph's JSON.
    stage("batch", input: n) {
        let outcome = BatchDecoder(options: commandOptions, withJSON: true).decode(bytes)
        checkOutput("batch", (outcome.graphJSON?.utf8.count ?? 0) + 200, input: n)
    }

    // messages: one attributedBody (a keyed archive of an NSAttributedString in some chat.db copies).
    stage("messages", input: n) { _ = try? MessageBody.text(bytes, options: commandOptions) }

    // encode: the JSON of the graph back to an archive. Its budget counts the JSON it reads, which a graph of
    // many references to one object makes several times the archive.
    if let graph {
        let json = stage("encode's JSON", input: n) { Array(graph.json(prettyPrinted: program.bool()).utf8) }
        stage("encode", input: max(n, json.count)) {
            guard Encode.isArchiveGraph(json) else { violated("encode", "the JSON of a graph is not recognised as a graph") }
            guard let back = try? ArchiveGraph(json: Data(json)) else { return }
            let archive = back.keyedArchive()
            let encoded = program.chance(16) ? ((try? archive.xmlPlist()) ?? archive.binaryPlist()) : archive.binaryPlist()
            checkOutput("encode", encoded.count, input: json.count)
            release(try? ArchiveGraph(bytes: encoded, options: commandOptions))
            release(back)
            _ = try? Encode.encode(json: json, format: .binary)
        }
    }

    // validate --roundtrip (and convert's checks): what the reader accepts writes and reads back equal, and the
    // graph re-encoded is equivalent.
    stage("validate", input: n) {
        _ = FileManager.default.createFile(atPath: validatePath, contents: Data(bytes))
        do {
            let summary = try FileCheck.check(path: validatePath, options: commandOptions, roundtrip: true)
            checkNoControlCharacters("validate", TerminalText.escaped(summary).utf8)
        } catch let mismatch as FileCheck.RoundTripMismatch {
            if enabled("roundtrip") { violated("roundtrip", "validate --roundtrip: \(mismatch)") }
        } catch {}
    }

    // Models.
    stage("models", input: n) { decodeModels(bytes, view: view, cyclic: graph == nil || cyclic) }
}

// MARK: inspect

private let inspectPath = "/dev/shm/autocoding-fuzz-inspect-\(getpid())"
private let validatePath = "/dev/shm/autocoding-fuzz-validate-\(getpid())"

/// Runs `inspect`'s printing into a file whose size is limited to the output budget (RLIMIT_FSIZE, with SIGXFSZ
/// ignored, so a write past the budget fails instead of filling the disk), then checks its size and bytes.
func inspect(_ bytes: [UInt8], maxDepth: Int?, classes: Bool) {
    guard let value = try? ArchiveValue(propertyList: bytes, options: commandOptions) else { return }
    let archive: KeyedArchive?
    do { archive = try FileCheck.keyedArchive(value, options: commandOptions) } catch { return }
    let budget = outputBudget(bytes.count)
    withOutputFile(inspectPath, limit: budget) { sink in
        // As Inspect.run (the tree spends the output budget and throws past it).
        let tree = ArchiveTree(archive: archive, maxDepth: maxDepth, maxOutputBytes: OutputBudget.bytes(forInputBytes: bytes.count))
        if let archive {
            if classes {
                try sink.write(TerminalText.escaped(ArchiveTree.classTable(archive), keepingNewlines: true))
            } else {
                try tree.write(to: sink)
            }
        } else {
            try tree.write(plain: value, to: sink)
        }
    }
    guard let written = FileManager.default.contents(atPath: inspectPath) else { return }
    checkOutput("inspect", written.count, input: bytes.count)
    checkNoControlCharacters("inspect", written)
}

nonisolated(unsafe) private var ignoringSIGXFSZ = false

/// Calls `body` with a sink writing to `path`, with file writes limited to `limit` + 1 bytes meanwhile; a write
/// past the limit (the sink's error) is an output-oracle violation.
func withOutputFile(_ path: String, limit: Int, _ body: (OutputSink) throws -> Void) {
    if !ignoringSIGXFSZ {
        signal(SIGXFSZ, SIG_IGN)
        ignoringSIGXFSZ = true
    }
    var old = rlimit()
    getrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &old)
    var limited = old
    limited.rlim_cur = rlim_t(limit + 1)
    do {
        let sink = try OutputSink.file(path)
        setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limited)
        defer { setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &old) }
        do {
            try body(sink)
            try sink.flush()
        } catch let error as ArchiveError where error.errnoCode == EFBIG {
            violated("output", "\(path): the output passed the budget of \(limit) bytes")
        }
    } catch {
        // Another error from the printer: a thrown error is an acceptable outcome.
    }
}

// MARK: get

/// `get`'s code: each path printed, lazily and eagerly; the output of all paths within the budget. Each path
/// and mode is one stage, timed alone: one `get` command reads one path.
func get(_ bytes: [UInt8], graph: ArchiveGraph?, paths: [ArchivePath]) {
    let lazy = stage("get (open)", input: bytes.count) { try? LazyKeyedArchive(bytes: bytes, options: commandOptions) }
    var lazyOutput = 0
    var eagerOutput = 0
    for path in paths {
        let text = path.description
        let parsed: ArchivePath
        do { parsed = try ArchivePath(parsing: text) } catch {
            if enabled("path") { violated("path", "the path \(text) written by ArchivePath.description does not parse: \(error)") }
            parsed = path
        }
        // As Get.run: each line within the budget (the budgeted writer throws past it), the eager fan-out bounded.
        let budget = OutputBudget.bytes(forInputBytes: bytes.count)
        stage("get \(text)", input: bytes.count) {
            if let lazy, let values = try? lazy.values(at: parsed) {
                if let text = try? line(values, fansOut: parsed.fansOut, maxOutputBytes: budget) { lazyOutput += text.utf8.count + 1 }
                release(values)
                checkOutput("get", lazyOutput, input: bytes.count)
            }
        }
        stage("get --eager \(text)", input: bytes.count) {
            if let graph, let values = try? graph.values(at: parsed, maxValues: ArchivePath.fanOutBudget(forInputBytes: bytes.count)) {
                if let text = try? line(values, fansOut: parsed.fansOut, maxOutputBytes: budget) { eagerOutput += text.utf8.count + 1 }
                checkOutput("get --eager", eagerOutput, input: bytes.count)
            }
        }
    }
}

/// The line `get` prints for one path's values.
func line(_ values: [ArchivedValue], fansOut: Bool, maxOutputBytes: Int) throws -> String {
    fansOut
        ? try ArchivedValue.array(values).json(prettyPrinted: false, maxOutputBytes: maxOutputBytes)
        : try values.first.map { try $0.json(prettyPrinted: false, maxOutputBytes: maxOutputBytes) } ?? "null"
}

// MARK: codegen

/// Generated Swift must not contain archive text with a line break copied raw: a class name or key such as
/// "}\nfunc evil() {}\n" would be code.
func checkCodegenEscaping(_ source: String, _ archive: KeyedArchive) {
    guard enabled("codegen-escape") else { return }
    var names: Set<String> = []
    for entry in archive.objects {
        guard case .dictionary(let fields) = entry else { continue }
        if case .string(let name)? = fields[ArchiveKey.className] { names.insert(name) }
        for key in fields.keys { names.insert(key) }
    }
    for name in names where name.count > 2 && name.contains(where: { $0.isNewline }) && name.contains(where: { !$0.isNewline && !$0.isWhitespace }) {
        if source.contains(name) { violated("codegen-escape", "codegen copied archive text with a line break into Swift: \(name.debugDescription)") }
    }
}

// MARK: Models

struct FuzzPlain: Codable {
    var name: String?
    var value: Int?
    var title: String?
    var items: [String]?
    var children: [FuzzPlain]?
}

final class FuzzLinked: Codable {
    var name: String?
    var value: Double?
    var next: FuzzLinked?
    var children: [FuzzLinked]?
    var tags: [String: Int]?
}

/// Required class fields beside a list of the same class: a reference to an instance decoded already is taken
/// by its UID before anything is resolved (`DecodingContext.decodeChild(_:at:key:below:)`), in a field as in a list.
struct FuzzLinkedFields: Decodable {
    var next: FuzzLinked
    var parent: FuzzLinked
    var children: [FuzzLinked]
}

func decodeModels(_ bytes: [UInt8], view: KeyedArchiveView?, cyclic: Bool) {
    let decoder = KeyedArchiveDecoder()
    _ = try? decoder.decode(FuzzPlain.self, from: bytes)
    _ = try? decoder.decode([String].self, from: bytes)
    _ = try? decoder.decode([String: Int].self, from: bytes)
    _ = try? decoder.decode(String.self, from: bytes)
    if let view { _ = try? decoder.decode(FuzzPlain.self, from: view) }
    guard !cyclic else { return }
    _ = try? decoder.decode(FuzzLinked.self, from: bytes)
    _ = try? decoder.decode(FuzzLinkedFields.self, from: bytes)
    if let unarchiver = try? KeyedUnarchiver(bytes: bytes) {
        _ = try? unarchiver.decodeObject(forKey: "root")
        _ = try? unarchiver.decodeObject(ofClassNames: ["NSArray", "NSDictionary", "NSString", "NSNumber", "NSData"], forKey: "root")
    }
}
