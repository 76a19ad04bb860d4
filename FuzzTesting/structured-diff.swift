// Differential oracles on structure-aware keyed archives (issue 17); the input is a keyed-archive program
// (StructuredKeyed.swift). A disagreement aborts with its oracle's name:
//
//   libplist     the native reader and the libplist backend agree on accept/reject and on the value (the libplist
//                backend may refuse, with libplistFailure, what libplist would misread); so does
//                KeyedArchive(propertyList:) on each value
//   lazy-eager   with the archive read eagerly (ArchiveGraph(bytes:)), every path gives the same values lazily
//                (LazyKeyedArchive.values(at:)) and eagerly (ArchiveGraph.values(at:)), or both fail; if the eager
//                read refuses the archive (and the validated view too), a lazy walk of `$top[*]` that touched every
//                object must refuse it too;
//                KeyedArchiveDecoder decodes the same model from the lazy table and from the validated view
//   writer-reader the checked writer (binaryPlist(readableWith:)) refuses exactly what the reader refuses
//   json-fixed   JSON → graph → JSON is a fixed point, and JSON → archive → JSON too (what `json` then `encode`
//                do); the archive is an equivalent graph; a plain property list's JSON reads back identical
@testable import _AutoCodingCommands
import AutoCodingCore
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStructuredDiff(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    withInput(data, size) { input in
        var builder = KeyedArchiveBuilder(Program(input))
        let generated = stage("generate", input: input.count, sizedBy: { $0.bytes.count }) { builder.build() }
        dump(generated.bytes)
        compare(generated)
    }
}

func compare(_ generated: GeneratedArchive) {
    let bytes = generated.bytes
    let n = bytes.count

    // Native reader vs libplist.
    var libplist = commandOptions
    libplist.backend = .libplist
    let native = stage("native", input: n) { Result { () throws(ArchiveError) in try ArchiveValue(propertyList: bytes, options: commandOptions) } }
    let bridged = stage("libplist", input: n) { Result { () throws(ArchiveError) in try ArchiveValue(propertyList: bytes, options: libplist) } }
    switch (native, bridged) {
    case _ where !enabled("libplist"):
        break
    case (.success(let a), .success(let b)):
        guard identicalValues(a, b) else { violated("libplist", "the native reader and libplist read different values (\(generated.writer))") }
        let ka = Result { () throws(ArchiveError) in try KeyedArchive(propertyList: a, options: commandOptions) }
        let kb = Result { () throws(ArchiveError) in try KeyedArchive(propertyList: b, options: commandOptions) }
        if case .success = ka, case .failure(let error) = kb { violated("libplist", "KeyedArchive accepts the native value but not libplist's: \(error)") }
        if case .failure(let error) = ka, case .success = kb { violated("libplist", "KeyedArchive accepts libplist's value but not the native one: \(error)") }
    case (.success, .failure(let error)) where error.code != .libplistFailure:
        violated("libplist", "the native reader accepts what the libplist backend rejects (\(generated.writer)): \(error)")
    case (.failure(let error), .success):
        violated("libplist", "the libplist backend accepts what the native reader rejects (\(generated.writer)): \(error)")
    default:
        break
    }

    // The writers' checked form refuses exactly what the reader refuses (and otherwise writes the same bytes).
    if generated.writer == "binary", enabled("writer-reader") {
        stage("checked writer", input: n) {
            let checked = Result { () throws(ArchiveError) in try generated.archive.binaryPlist(readableWith: commandOptions) }
            switch (checked, native) {
            case (.success(let written), .success):
                if written != bytes { violated("writer-reader", "binaryPlist(readableWith:) wrote other bytes than binaryPlist()") }
            case (.success, .failure(let error)):
                violated("writer-reader", "binaryPlist(readableWith:) wrote what the reader refuses: \(error)")
            case (.failure(let error), .success):
                violated("writer-reader", "binaryPlist(readableWith:) refuses what the reader reads: \(error)")
            case (.failure, .failure):
                break
            }
        }
    }

    // A plain value's JSON reads back identical.
    if case .success(let value) = native, enabled("json-fixed") {
        stage("plist-json", input: n) {
            let json = value.json(prettyPrinted: false)
            do {
                let back = try ArchiveValue(json: json)
                guard identicalValues(value, back) else { violated("json-fixed", "a property list's JSON reads back different") }
            } catch {
                violated("json-fixed", "a property list's JSON does not read back: \(error)")
            }
        }
    }

    // Lazy vs eager.
    let eager = stage("eager", input: n) { Result { () throws(ArchiveError) in try ArchiveGraph(bytes: bytes, options: commandOptions) } }
    defer { if case .success(let graph) = eager { release(graph) } }
    let lazy = stage("lazy", input: n) { try? LazyKeyedArchive(bytes: bytes, options: commandOptions) }
    switch eager {
    case .success(let graph):
        if enabled("json-fixed") { checkJSONFixedPoint(graph, input: n) }
        guard enabled("lazy-eager") else { return }
        guard let lazy else { violated("lazy-eager", "the eager reader accepts an archive the lazy one cannot open") }
        stage("paths", input: n) {
            for path in generated.paths {
                let l = Result { () throws(ArchivePathError) in try lazy.values(at: path) }
                // The fan-out budget the lazy reader applies, as `get --eager` passes it (the graph's default is
                // 2^20 values: it does not know its input's size).
                let e = Result { () throws(ArchivePathError) in
                    try graph.values(at: path, maxValues: ArchivePath.fanOutBudget(forInputBytes: n))
                }
                switch (l, e) {
                case (.success(let lv), .success(let ev)):
                    let lt = line(lv, path.fansOut)
                    let et = line(ev, path.fansOut)
                    release(lv)
                    guard lt == et else { violated("lazy-eager", "\(path): lazy \(lt.prefix(300)) ≠ eager \(et.prefix(300))") }
                case (.success(let lv), .failure(let error)):
                    release(lv)
                    violated("lazy-eager", "\(path): the lazy reader gives a value, the eager one fails: \(error)")
                case (.failure(let error), .success):
                    violated("lazy-eager", "\(path): the eager reader gives a value, the lazy one fails: \(error)")
                case (.failure, .failure):
                    break
                }
            }
        }
        stage("models", input: n) {
            guard let view = try? KeyedArchiveView(bytes: bytes, options: commandOptions) else {
                violated("lazy-eager", "ArchiveGraph(bytes:) accepts what KeyedArchiveView refuses")
            }
            let decoder = KeyedArchiveDecoder()
            let fromTable = Result { try decoder.decode(DiffModel.self, from: bytes) }
            let fromView = Result { try decoder.decode(DiffModel.self, from: view) }
            switch (fromTable, fromView) {
            case (.success(let a), .success(let b)) where a != b:
                violated("lazy-eager", "a model decodes differently from the lazy table and the view")
            case (.success, .failure(let error)), (.failure(let error), .success):
                violated("lazy-eager", "a model decodes from one of the lazy table and the view only: \(error)")
            default: break
            }
        }
    case .failure(let refusal):
        // The lazy reader may leave unread damage unreported; once it has read everything, it must refuse. Not
        // when the validated view accepts the archive: then the refusal is the graph's own (a plain entry holding
        // UIDs, which a graph cannot keep: written anew, they would name other objects), and the lazy reader,
        // which only reads, shows those UIDs as they are.
        guard let lazy, enabled("lazy-eager") else { return }
        if (try? KeyedArchiveView(bytes: bytes, options: commandOptions)) != nil { return }
        stage("lazy-all", input: n) {
            guard let values = try? lazy.values(at: ArchivePath(steps: [.all])) else { return }
            release(values)
            let touched = lazy.touchedUIDs.count
            if touched >= lazy.objectCount - 1, refusal.code != .limitExceeded {
                violated("lazy-eager", "the lazy reader read all \(lazy.objectCount) objects of an archive the eager one refuses: \(refusal)")
            }
        }
    }
}

/// JSON → graph → JSON, and JSON → archive → graph → JSON, give the same text up to the `$uid` numbers; the
/// archive is equivalent. Numbers may change on the way: `json` prints archive UIDs, which an archive written
/// anew assigns afresh, and shared scalars are numbered after the objects.
/// Each step is the work of one command (`json`, then `encode`'s read of the JSON, its archive, `json` of that),
/// timed as its own stage.
func checkJSONFixedPoint(_ graph: ArchiveGraph, input n: Int) {
    let first = stage("json-fixed: json", input: n) { renumbered(graph.json(prettyPrinted: false)) }
    let back: ArchiveGraph
    do { back = try stage("json-fixed: read the JSON", input: n) { try ArchiveGraph(json: first) } } catch {
        violated("json-fixed", "the JSON of a graph does not read back: \(error)")
    }
    defer { release(back) }
    let second = stage("json-fixed: json again", input: n) { renumbered(back.json(prettyPrinted: false)) }
    guard second == first else { violated("json-fixed", "JSON → graph → JSON changed the text:\n\(first.prefix(500))\n\(second.prefix(500))") }
    let archive = stage("json-fixed: encode", input: n) { Encode.isArchiveGraph(Array(first.utf8)) ? back.binaryPlist() : [] }
    let reread: ArchiveGraph
    do { reread = try stage("json-fixed: read the archive", input: n) { try ArchiveGraph(bytes: archive, options: commandOptions) } } catch {
        violated("json-fixed", "the archive encoded from a graph's JSON does not read: \(error)")
    }
    defer { release(reread) }
    let third = stage("json-fixed: json of the archive", input: n) { renumbered(reread.json(prettyPrinted: false)) }
    guard third == first else { violated("json-fixed", "JSON → archive → JSON changed the text:\n\(first.prefix(500))\n\(third.prefix(500))") }
    guard reread.isEquivalent(to: graph) else { violated("json-fixed", "the archive encoded from the JSON is not equivalent to the graph") }
}

private func line(_ values: [ArchivedValue], _ fansOut: Bool) -> String {
    fansOut ? ArchivedValue.array(values).json(prettyPrinted: false) : values.first.map { $0.json(prettyPrinted: false) } ?? "null"
}

struct DiffModel: Codable, Equatable {
    var name: String?
    var value: Int?
    var children: [String]?
    var next: [String: Int]?
}

/// Whether two values are identical, reals compared bit for bit (NaN equals NaN, -0 differs from 0).
func identicalValues(_ a: ArchiveValue, _ b: ArchiveValue) -> Bool {
    var work = [(a, b)]
    while let (x, y) = work.popLast() {
        switch (x, y) {
        case (.real(let l), .real(let r)):
            guard l.bitPattern == r.bitPattern || (l.isNaN && r.isNaN) else { return false }
        case (.date(let l), .date(let r)):
            let (lt, rt) = (l.timeIntervalSinceReferenceDate, r.timeIntervalSinceReferenceDate)
            guard lt.bitPattern == rt.bitPattern || (lt.isNaN && rt.isNaN) else { return false }
        case (.array(let l), .array(let r)):
            guard l.count == r.count else { return false }
            work.append(contentsOf: zip(l, r))
        case (.dictionary(let l), .dictionary(let r)):
            guard l.keys == r.keys else { return false }
            for (key, value) in l { work.append((value, r[key]!)) }
        default:
            guard x == y else { return false }
        }
    }
    return true
}

/// The JSON text with its `$uid` and `$ref` numbers replaced by their order of first appearance. One pass over
/// the bytes that tracks strings and nesting: a marker is a key (`"$uid":` outside a string), and not a direct
/// key of `$top` (depth 2), whose keys are entry names that may be `$uid` themselves.
func renumbered(_ json: String) -> String {
    let bytes = Array(json.utf8)
    var numbers: [ArraySlice<UInt8>: Int] = [:]
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    var depth = 0
    var i = 0
    let markers = [Array(#""$uid":"#.utf8), Array(#""$ref":"#.utf8)]
    while i < bytes.count {
        let byte = bytes[i]
        if byte == UInt8(ascii: "\"") {
            if depth != 2, let marker = markers.first(where: { bytes[i...].starts(with: $0) }) {
                out.append(contentsOf: marker)
                i += marker.count
                while i < bytes.count, bytes[i] == UInt8(ascii: " ") { i += 1 }
                let start = i
                while i < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) { i += 1 }
                let digits = bytes[start..<i]
                let number = numbers[digits] ?? (numbers.count + 1)
                numbers[digits] = number
                out.append(contentsOf: String(number).utf8)
                continue
            }
            // A string: copied through its closing quote, escapes included.
            out.append(byte)
            i += 1
            while i < bytes.count, bytes[i] != UInt8(ascii: "\"") {
                if bytes[i] == UInt8(ascii: "\\"), i + 1 < bytes.count { out.append(bytes[i]); i += 1 }
                out.append(bytes[i])
                i += 1
            }
            if i < bytes.count { out.append(bytes[i]); i += 1 }
            continue
        }
        if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") { depth += 1 }
        if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") { depth -= 1 }
        out.append(byte)
        i += 1
    }
    return String(decoding: out, as: UTF8.self)
}
