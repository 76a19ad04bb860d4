// Structure-aware typedstreams (issue 17): the input is a program that builds a typedstream graph
// (StructuredTyped.swift), which then goes through every typedstream entry point and the code of every command
// that reads one:
//
//   engine       Typedstream(bytes:), typedstreamBytes(byteOrder:) read back equal (both byte orders); the checked
//                writer (TypedGraph.typedstreamBytes(readableWith:)) refuses exactly what the reader refuses
//   graph        TypedGraph(stream:), TypedObject.foundation of every object, TypedGraph.typedstreamBytes() read back
//   convert      keyedArchiveGraph() → binaryPlist (Convert.run --to keyed) → ArchiveGraph(bytes:), and its JSON
//   unarchiver   TypedstreamUnarchiver(forReadingWith:).decodeObject() until the end
//   messages     IMessageText(attributedBody:) and its JSON (TypedstreamJSON.json(body), what `json` and `messages` print)
//   json         TypedstreamJSON.json(bytes, options:) (JSONCommand.run for a typedstream)
//   messages     MessageBody.text (one attributedBody of `messages`)
//   inspect      TypedTree.inspect (Inspect.run for a typedstream; standard output redirected), eventText (events)
//   validate     FileCheck.checkTypedstream(roundtrip: true)
//   batch        BatchDecoder.decodeTypedstream (one record with --json)
//
// Cyclic graphs go through every command's function too: each frees the graphs it builds, cycles included, which
// the memory oracle holds it to (a leaked graph per input would grow the RSS past -rss_limit_mb).
// Oracles: no crash; output ≤ 100 × the stream + 1 MiB per command; no control character from the stream in
// `inspect`'s and `validate`'s text; writer output reads back; each stage under FUZZ_STAGE_SECONDS per
// FUZZ_STAGE_BYTES of stream (1 s per 128 KiB); libFuzzer's -timeout=1 and memory limits.
@testable import _AutoCodingCommands
import AutoCodingCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStructuredTyped(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    withInput(data, size) { input in
        var builder = TypedstreamBuilder(Program(input))
        let generated = stage("generate", input: input.count, sizedBy: { $0.bytes.count }) { builder.build() }
        dump(generated.bytes)
        // The generator's graph holds cycles too.
        defer { stage("release", input: input.count) { release(generated.graph) } }
        if !generated.patched { checkWriter(generated) }
        exercise(generated.bytes)
    }
}

/// The writer's checked form refuses exactly what the reader refuses, and otherwise writes the same bytes.
func checkWriter(_ generated: GeneratedStream) {
    guard enabled("writer-reader") else { return }
    let n = generated.bytes.count
    stage("checked writer", input: n) {
        let checked = Result { () throws(ArchiveError) in try generated.graph.typedstreamBytes(readableWith: commandOptions) }
        let read = Result { () throws(ArchiveError) in try Typedstream(bytes: generated.bytes, options: commandOptions) }
        switch (checked, read) {
        case (.success(let written), .success):
            if written != generated.bytes { violated("writer-reader", "typedstreamBytes(readableWith:) wrote other bytes than typedstreamBytes()") }
        case (.success, .failure(let error)):
            violated("writer-reader", "typedstreamBytes(readableWith:) wrote what the reader refuses: \(error)")
        case (.failure(let error), .success):
            violated("writer-reader", "typedstreamBytes(readableWith:) refuses what the reader reads: \(error)")
        case (.failure, .failure):
            break
        }
    }
}

func exercise(_ bytes: [UInt8]) {
    let n = bytes.count
    guard let stream = stage("Typedstream", input: n, { try? Typedstream(bytes: bytes, options: commandOptions) }) else { return }

    // inspect (TypedTree.inspect, which prints to standard output: redirected to a file here), and events.
    stage("inspect", input: n) { inspectTypedstream(bytes, depth: nil) }
    let text = stage("events", input: n) { TerminalText.escaped(stream.eventText(), keepingNewlines: true) }
    checkOutput("events", text.utf8.count, input: n)
    checkNoControlCharacters("events", text.utf8)

    // validate --roundtrip.
    stage("validate", input: n) {
        if let summary = try? FileCheck.checkTypedstream(bytes, options: commandOptions, roundtrip: true) {
            checkNoControlCharacters("validate", TerminalText.escaped(summary).utf8)
        }
    }

    // The writer: both byte orders read back as equal events.
    stage("typedstreamBytes", input: n) {
        for order in Typedstream.ByteOrder.allCases {
            let written = stream.typedstreamBytes(byteOrder: order)
            let again: Typedstream
            do { again = try Typedstream(bytes: written, options: commandOptions) } catch {
                violated("roundtrip", "the writer's output (\(order)) does not read back: \(error)")
            }
            if order == stream.byteOrder, let difference = again.firstDifference(from: stream) {
                violated("roundtrip", "write/read changed the events: \(difference)")
            }
        }
    }

    // The graph.
    guard let graph = stage("TypedGraph", input: n, { try? TypedGraph(stream: stream) }) else { return }
    defer { release(graph) }
    stage("foundation", input: n) {
        for object in graph.objects {
            if case .attributedString(let body)? = object.foundation { _ = body.runs.count }
        }
    }
    stage("TypedGraph.typedstreamBytes", input: n) {
        let written = graph.typedstreamBytes()
        do { release(try TypedGraph(bytes: written, options: commandOptions)) } catch {
            violated("roundtrip", "a read graph written back does not read: \(error)")
        }
    }
    stage("keyedArchiveGraph", input: n) {
        let keyed = graph.keyedArchiveGraph()
        defer { release(keyed) }
        // What `json` prints for the converted archive: the budgeted writer (throwing past the budget is fine).
        if let json = try? keyed.json(prettyPrinted: false, maxOutputBytes: OutputBudget.bytes(forInputBytes: n)) {
            checkOutput("keyedArchiveGraph.json", json.utf8.count, input: n)
        }
        let archive = keyed.binaryPlist()
        do { release(try ArchiveGraph(bytes: archive, options: commandOptions)) } catch {
            if enabled("convert") { violated("convert", "the keyed graph of a typedstream (convert --to keyed) does not read back as an archive: \(error)") }
        }
    }

    // json and messages.
    // json (JSONCommand.run refuses to print text past the budget; building it must stay within time and memory).
    let budget = OutputBudget.bytes(forInputBytes: n)
    stage("json", input: n) {
        if let text = try? TypedstreamJSON.json(bytes, options: commandOptions, maxOutputBytes: budget) {
            checkOutput("json", text.utf8.count + 1, input: n)
        }
    }
    // messages: one attributedBody.
    stage("messages", input: n) { _ = try? MessageBody.text(bytes, options: commandOptions) }
    stage("IMessageText", input: n) {
        guard let body = try? IMessageText(attributedBody: bytes, options: commandOptions) else { return }
        defer { release(body) }
        // The JSON `json` builds for a message, within the output budget.
        var out = TypedstreamJSON.BudgetedText(limit: budget)
        if (try? TypedstreamJSON.write(body, &out)) != nil { checkOutput("json (message)", out.text.utf8.count + 1, input: n) }
    }

    // batch.
    stage("batch", input: n) {
        let outcome = BatchDecoder(options: commandOptions, withJSON: true).decodeTypedstream(bytes)
        checkOutput("batch", (outcome.graphJSON?.utf8.count ?? 0) + 200, input: n)
    }

    // The unarchiver.
    stage("TypedstreamUnarchiver", input: n) {
        guard let unarchiver = try? TypedstreamUnarchiver(forReadingWith: bytes, options: commandOptions) else { return }
        defer { release(unarchiver.graph) }
        var steps = 0
        while !unarchiver.isAtEnd, steps < 64 {
            steps += 1
            if (try? unarchiver.decodeObject()) == nil, (try? unarchiver.decodeValue(ofObjCType: "i")) == nil { break }
        }
    }
}

private let inspectPath = "/dev/shm/autocoding-fuzz-typed-inspect-\(getpid())"

/// Runs `inspect`'s code for a typedstream with standard output redirected to a file, then checks what it printed.
func inspectTypedstream(_ bytes: [UInt8], depth: Int?) {
    let saved = dup(1)
    let fd = open(inspectPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard saved >= 0, fd >= 0 else { return }
    dup2(fd, 1)
    close(fd)
    _ = try? TypedTree.inspect(bytes, options: commandOptions, depth: depth, classes: false, dot: false,
                               maxOutputBytes: OutputBudget.bytes(forInputBytes: bytes.count))
    dup2(saved, 1)
    close(saved)
    guard let written = FileManager.default.contents(atPath: inspectPath) else { return }
    checkOutput("inspect", written.count, input: bytes.count)
    checkNoControlCharacters("inspect", written)
}

/// Frees an iMessage body's graphs (the typedstream and the keyed archives in its attributes).
func release(_ body: IMessageText) {
    var stack: [IMessageText.Value] = body.runs.flatMap { $0.attributes.map(\.value) }
    while let value = stack.popLast() {
        switch value {
        case .keyedArchive(let graph): release(graph)
        case .array(let values): stack.append(contentsOf: values)
        case .dictionary(let pairs): stack.append(contentsOf: pairs.map(\.value))
        default: break
        }
    }
    release(body.graph)
}
