// Shared by the structure-aware targets (scripts/fuzz-structured.sh): the program reader that turns the fuzzer's
// bytes into construction steps, the oracles, and helpers that free cyclic graphs so that memory stays a measure
// of the current input.
import AutoCodingCore
import Foundation
import OrderedCollections

#if canImport(Glibc)
import Glibc
#endif

// MARK: Oracles

/// Stops the fuzzer: an oracle does not hold. The message names the oracle, so that a crash artifact says what
/// it violated (`grep 'fuzz oracle violated'` in a log).
func violated(_ oracle: String, _ message: @autoclosure () -> String) -> Never {
    let text = "fuzz oracle violated [\(oracle)]: \(message())\n"
    trace(text)
    abort()
}

/// Writes a line to standard error, unbuffered (it must survive the abort or kill that may follow).
func trace(_ text: String) {
    var bytes = Array((text.hasSuffix("\n") ? text : text + "\n").utf8)
    _ = write(2, &bytes, bytes.count)
}

/// Oracles turned off by FUZZ_SKIP (names separated by commas, such as `escape,codegen-escape`): to explore past
/// a known finding until its fix is merged. Crashes cannot be skipped, but `codegen` skips the codegen stage and
/// `runs` keeps attributed-string run lengths small; FUZZ_MAX_NESTING lowers the nesting depth. Fork mode
/// (`smoke`) goes on after a crash.
let skippedOracles: Set<String> = {
    guard let text = getenv("FUZZ_SKIP") else { return [] }
    return Set(String(cString: text).split(separator: ",").map(String.init))
}()

func enabled(_ oracle: String) -> Bool { !skippedOracles.contains(oracle) }

/// What a command may write for an input of `inputBytes`: 100 × the input + 1 MiB (issue 17's target).
func outputBudget(_ inputBytes: Int) -> Int { 100 * inputBytes + (1 << 20) }

/// Checks one command's output size against the budget.
func checkOutput(_ command: String, _ produced: Int, input: Int) {
    reportOutput(produced, input: input)
    guard produced > outputBudget(input), enabled("output") else { return }
    violated("output", "\(command) wrote \(produced) bytes for a \(input)-byte input (budget \(outputBudget(input)))")
}

/// Text that came from an archive must be escaped before it reaches a terminal: no control character but
/// the newline (and the tab) in what `inspect` prints.
func checkNoControlCharacters(_ command: String, _ text: some Sequence<UInt8>) {
    guard enabled("escape") else { return }
    for byte in text where byte < 0x20 && byte != 0x0A && byte != 0x09 || byte == 0x7F {
        violated("escape", "\(command) printed the control character 0x\(String(byte, radix: 16)) from the archive")
    }
}

/// The process's peak resident set so far, in MiB (libFuzzer's -rss_limit_mb checks it too; this names the stage).
func peakRSSMiB() -> Int {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Int(usage.ru_maxrss) / 1024
}

/// The thread's CPU time in seconds, for the time oracle: unlike wall time it does not grow when other processes
/// share the cores (libFuzzer's -timeout, in wall time, catches a stage that blocks).
func now() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

/// Runs one stage of a target, and names it when it takes more CPU time than the time oracle allows
/// (``stageBudget(input:)``; libFuzzer's -timeout catches a stage that never returns). `sizedBy` sizes the budget
/// by what the stage made when that is larger than its input: a program of 186 bytes repeats its way to a 1.4 MB
/// stream, which the generator takes 0.55 s to write under ASan, linear in what it writes.
func stage<T>(
    _ name: String, input: Int, sizedBy size: (T) -> Int = { _ in 0 }, _ body: () throws -> T
) rethrows -> T {
    if traceStages { trace("stage \(name): start") }
    let start = now()
    let result = try body()
    let elapsed = now() - start
    reportTime(elapsed)
    if traceStages { trace("stage \(name): \(Int(elapsed * 1000)) ms, input \(input) bytes, peak RSS \(peakRSSMiB()) MiB") }
    let budget = stageBudget(input: max(input, size(result)))
    if elapsed > budget, enabled("time") {
        violated("time", "\(name) took \(elapsed) s of CPU for a \(input)-byte input (budget \(budget) s)")
    }
    return result
}

/// FUZZ_TRACE=1 prints each stage's time (for replaying an input).
let traceStages = getenv("FUZZ_TRACE") != nil

/// The deepest in-place nesting the generators build (FUZZ_MAX_NESTING, default 2,000): four times the readers'
/// depth limit, so the limits are crossed. Far deeper values would overflow the stack in the generator itself,
/// since Swift destroys a nested enum value recursively (the readers never build one past their limits).
/// Chains of objects (``maxChainLength``) are flat in the archive and may be much longer.
let maxNesting: Int = {
    if let text = getenv("FUZZ_MAX_NESTING"), let value = Int(String(cString: text)) { return max(1, value) }
    return 2_000
}()

/// The longest chains of objects the generators build (FUZZ_MAX_CHAIN, default 40,000).
let maxChainLength: Int = {
    if let text = getenv("FUZZ_MAX_CHAIN"), let value = Int(String(cString: text)) { return max(1, value) }
    return 40_000
}()

let stageSeconds: Double = {
    if let text = getenv("FUZZ_STAGE_SECONDS"), let value = Double(String(cString: text)) { return value }
    return 1.0
}()

/// The input bytes one ``stageSeconds`` covers (FUZZ_STAGE_BYTES, default 128 KiB).
let stageBytes: Int = {
    if let text = getenv("FUZZ_STAGE_BYTES"), let value = Int(String(cString: text)) { return max(1, value) }
    return 128 * 1024
}()

/// The CPU time a stage may take on an `input`-byte archive or stream: ``stageSeconds`` per ``stageBytes``, and
/// never less than ``stageSeconds``. Bounded time means linear time: the programs build inputs of several MB,
/// which a stage's whole-input passes under ASan and coverage take seconds to read (a 3.4 MB archive's
/// `KeyedArchiveView` alone took 1.0 s; `encode`, five passes, 4.2 µs per byte of a 508 KB archive, as linear
/// as the debug command line's 0.9 µs), while a blowup past linear on a small input still fails at one second.
func stageBudget(input: Int) -> Double {
    stageSeconds * max(1, Double(input) / Double(stageBytes))
}

/// The options every target decodes with: the defaults (what the commands use), so a finding is what a user
/// would meet.
let commandOptions = ArchiveReadingOptions()


// MARK: Progress features

// The oracles judge sizes and times, which coverage does not see: an input that makes a command print 50× its size
// covers the same code as one that prints 2×. These functions turn the ratios into coverage (one switch case per
// power of two), so libFuzzer keeps the inputs that come closer to a budget and mutates them further.

nonisolated(unsafe) var featureCounters = [UInt64](repeating: 0, count: 41)

/// The bucket of a value: the number of bits it needs (0 for 0 or less).
func bucket(_ value: Int) -> Int { value <= 0 ? 0 : Int.bitWidth - value.leadingZeroBitCount }

/// Reports an output of `produced` bytes for an input of `input` bytes (the ratio in sixteenths).
func reportOutput(_ produced: Int, input: Int) { outputFeature(bucket(produced * 16 / max(input, 1))) }

/// Reports a stage's CPU time (in microseconds).
func reportTime(_ seconds: Double) {
    // Only from 16 ms up: below, the buckets would follow timing noise and bloat the corpus.
    if seconds >= 0.016 { cpuFeature(bucket(Int(seconds * 1e6))) }
}

/// One coverage edge per power of two of the output ratio.
@inline(never)
func outputFeature(_ bucket: Int) {
    switch bucket {
    case 0: featureCounters[0] &+= 1
    case 1: featureCounters[1] &+= 1
    case 2: featureCounters[2] &+= 1
    case 3: featureCounters[3] &+= 1
    case 4: featureCounters[4] &+= 1
    case 5: featureCounters[5] &+= 1
    case 6: featureCounters[6] &+= 1
    case 7: featureCounters[7] &+= 1
    case 8: featureCounters[8] &+= 1
    case 9: featureCounters[9] &+= 1
    case 10: featureCounters[10] &+= 1
    case 11: featureCounters[11] &+= 1
    case 12: featureCounters[12] &+= 1
    case 13: featureCounters[13] &+= 1
    case 14: featureCounters[14] &+= 1
    case 15: featureCounters[15] &+= 1
    case 16: featureCounters[16] &+= 1
    case 17: featureCounters[17] &+= 1
    case 18: featureCounters[18] &+= 1
    case 19: featureCounters[19] &+= 1
    case 20: featureCounters[20] &+= 1
    case 21: featureCounters[21] &+= 1
    case 22: featureCounters[22] &+= 1
    case 23: featureCounters[23] &+= 1
    case 24: featureCounters[24] &+= 1
    case 25: featureCounters[25] &+= 1
    case 26: featureCounters[26] &+= 1
    case 27: featureCounters[27] &+= 1
    case 28: featureCounters[28] &+= 1
    case 29: featureCounters[29] &+= 1
    case 30: featureCounters[30] &+= 1
    case 31: featureCounters[31] &+= 1
    case 32: featureCounters[32] &+= 1
    case 33: featureCounters[33] &+= 1
    case 34: featureCounters[34] &+= 1
    case 35: featureCounters[35] &+= 1
    case 36: featureCounters[36] &+= 1
    case 37: featureCounters[37] &+= 1
    case 38: featureCounters[38] &+= 1
    case 39: featureCounters[39] &+= 1
    default: featureCounters[40] &+= 1
    }
}

/// One coverage edge per power of two of a stage's CPU microseconds.
@inline(never)
func cpuFeature(_ bucket: Int) {
    switch bucket {
    case 0: featureCounters[0] &+= 1
    case 1: featureCounters[1] &+= 1
    case 2: featureCounters[2] &+= 1
    case 3: featureCounters[3] &+= 1
    case 4: featureCounters[4] &+= 1
    case 5: featureCounters[5] &+= 1
    case 6: featureCounters[6] &+= 1
    case 7: featureCounters[7] &+= 1
    case 8: featureCounters[8] &+= 1
    case 9: featureCounters[9] &+= 1
    case 10: featureCounters[10] &+= 1
    case 11: featureCounters[11] &+= 1
    case 12: featureCounters[12] &+= 1
    case 13: featureCounters[13] &+= 1
    case 14: featureCounters[14] &+= 1
    case 15: featureCounters[15] &+= 1
    case 16: featureCounters[16] &+= 1
    case 17: featureCounters[17] &+= 1
    case 18: featureCounters[18] &+= 1
    case 19: featureCounters[19] &+= 1
    case 20: featureCounters[20] &+= 1
    case 21: featureCounters[21] &+= 1
    case 22: featureCounters[22] &+= 1
    case 23: featureCounters[23] &+= 1
    case 24: featureCounters[24] &+= 1
    case 25: featureCounters[25] &+= 1
    case 26: featureCounters[26] &+= 1
    case 27: featureCounters[27] &+= 1
    case 28: featureCounters[28] &+= 1
    case 29: featureCounters[29] &+= 1
    case 30: featureCounters[30] &+= 1
    case 31: featureCounters[31] &+= 1
    case 32: featureCounters[32] &+= 1
    case 33: featureCounters[33] &+= 1
    case 34: featureCounters[34] &+= 1
    case 35: featureCounters[35] &+= 1
    case 36: featureCounters[36] &+= 1
    case 37: featureCounters[37] &+= 1
    case 38: featureCounters[38] &+= 1
    case 39: featureCounters[39] &+= 1
    default: featureCounters[40] &+= 1
    }
}

// MARK: The program

/// The fuzzer's bytes read as a program of construction steps: each call consumes a few bytes and returns a
/// choice. Exhausted input reads as zeros, so every program is complete and small changes in the bytes make
/// small changes in the structure.
struct Program {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { index >= bytes.count }
    var remaining: Int { max(0, bytes.count - index) }

    mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    /// A number in `0..<bound`: one byte for bounds up to 256, two above.
    mutating func int(below bound: Int) -> Int {
        guard bound > 1 else { return 0 }
        if bound <= 256 { return Int(byte()) % bound }
        let raw = Int(byte()) << 8 | Int(byte())
        return raw % bound
    }

    /// A number in `range`, small values likelier (the byte's high bits pick a scale).
    mutating func size(_ range: ClosedRange<Int>) -> Int {
        let b = byte()
        let span = range.upperBound - range.lowerBound
        let value: Int
        switch b >> 6 {
        case 0: value = Int(b & 0x3F) % 8
        case 1: value = Int(b & 0x3F)
        case 2: value = Int(b & 0x3F) << 4 | Int(byte() & 0x0F)
        default: value = (Int(byte()) << 8 | Int(byte())) * (Int(b & 0x3F) + 1)
        }
        return range.lowerBound + (span <= 0 ? 0 : value % (span + 1))
    }

    mutating func bool() -> Bool { byte() & 1 == 1 }

    /// True with probability about `n`/256.
    mutating func chance(_ n: UInt8) -> Bool { byte() < n }

    mutating func pick<T>(_ choices: [T]) -> T { choices[int(below: choices.count)] }

    mutating func raw64() -> UInt64 {
        var value: UInt64 = 0
        for _ in 0..<8 { value = value << 8 | UInt64(byte()) }
        return value
    }

    /// An integer, often one at an edge: 0, ±1, the ends of each width, powers of two, near `Int64.max`.
    mutating func int64() -> Int64 {
        switch byte() % 8 {
        case 0, 1: return Int64(Int8(bitPattern: byte()))
        case 2: return pick(Self.edges)
        case 3: return pick(Self.edges) &+ Int64(Int8(bitPattern: byte()))
        case 4: return Int64(1) << Int64(byte() % 63)
        case 5: return -(Int64(1) << Int64(byte() % 63))
        default: return Int64(bitPattern: raw64())
        }
    }

    static let edges: [Int64] = [
        0, 1, -1, 127, 128, -128, -129, 255, 256, 32767, 32768, -32769, 65535, 65536, Int64(Int32.max),
        Int64(Int32.max) + 1, Int64(Int32.min), Int64(UInt32.max), Int64.max, Int64.min, Int64.max - 1, Int64.min + 1,
        1 << 53, (1 << 53) + 1, 1 << 62, (1 << 62) + 1, 1 << 31, 1 << 32, 67_108_800, 1 << 26, 1 << 20, 1 << 30,
        Int64.max - 110, Int64.max / 2, 0x7FFF_FFFF_FFFF_FF00,
    ]

    mutating func double() -> Double {
        switch byte() % 6 {
        case 0: return Double(int64())
        case 1: return pick([0.0, -0.0, .nan, .infinity, -.infinity, .greatestFiniteMagnitude, .leastNonzeroMagnitude, 0.5, 1e300, -1e-300])
        case 2: return Double(Int8(bitPattern: byte())) / 4
        default: return Double(bitPattern: raw64())
        }
    }

    /// A string: identifiers, Foundation and archive keys, markers, control and escape characters, newlines
    /// and comment closers (for codegen), Unicode, and long runs (for references that print many times).
    mutating func string() -> String {
        switch byte() % 8 {
        case 0, 1, 2: return pick(Self.words)
        case 3: return pick(Self.hostile)
        case 4:
            // Long: a run of one character, referenced many times elsewhere.
            let unit = pick(["a", "é", "🌍", "\u{1B}", "\\", "\"", "x\n"])
            return String(repeating: unit, count: size(1...(1 << 16)))
        case 5:
            var text = ""
            for _ in 0..<int(below: 4) { text += pick(Self.words) + pick(Self.hostile) }
            return text
        default:
            let count = int(below: 16)
            var scalars = String.UnicodeScalarView()
            for _ in 0..<count {
                let value: UInt32 = byte() & 1 == 0 ? UInt32(byte() & 0x7F) : UInt32(int(below: 0x11_0000))
                if let scalar = Unicode.Scalar(value) { scalars.append(scalar) }
            }
            return String(scalars)
        }
    }

    static let words = [
        "", "a", "root", "name", "next", "children", "value", "title", "items", "NS.objects", "NS.keys", "NS.string",
        "NS.count", "NS.time", "NS.data", "NS.bytes", "NSString", "NSAttributes", "NSAttributeInfo", "NS.base",
        "NS.relative", "$class", "$classname", "$classes", "$null", "$top", "$objects", "$archiver", "$version",
        "$ref", "$uid", "$data", "$date", "$inline", "$entry", "$cfuid", "$real", "$$data", "CF$UID", "x.y", "a[0]",
        "[*]", "héllo", "🌍", "0", "1", "-1", "nan", "inf", "class", "self", "init", "default", "Type", "_", "__x",
        "__kIMMessagePartAttributeName", "__kIMLinkAttributeName", "__kIMFileTransferGUIDAttributeName",
    ]

    static let hostile = [
        "\n", "\r\n", "\u{1B}[2J", "\u{1B}]0;title\u{07}", "\u{0}", "\u{7F}", "\u{9B}", "*/", "/*", "\"", "\\",
        "\"\"\"", "#", "}\nfunc evil() {}\n", "\u{FEFF}", "\u{202E}", "\u{2028}", "`", "'", "$", "$$", ".", "[", "]",
    ]

    mutating func bytes(max: Int) -> [UInt8] { (0..<int(below: max + 1)).map { _ in byte() } }
}

// MARK: Freeing cyclic graphs

/// Every object reachable from `values`, each once (an explicit stack).
func archivedObjects(in values: [ArchivedValue]) -> [ArchivedObject] {
    var seen = Set<ObjectIdentifier>()
    var result: [ArchivedObject] = []
    var stack = values
    while let value = stack.popLast() {
        switch value {
        case .object(let object):
            guard seen.insert(ObjectIdentifier(object)).inserted else { continue }
            result.append(object)
            stack.append(contentsOf: object.fields.values)
        case .array(let elements): stack.append(contentsOf: elements)
        case .dictionary(let entries): stack.append(contentsOf: entries.values)
        default: break
        }
    }
    return result
}

/// Empties every object reachable from `values`, so that cycles do not outlive the input.
func release(_ values: [ArchivedValue]) {
    for object in archivedObjects(in: values) { object.fields = [:] }
}

func release(_ graph: ArchiveGraph?) {
    guard let graph else { return }
    // The library's own walk: it also reaches the `$objects` entries `$top` does not (crafted inputs have them).
    // Its contract: every object the graph reached is empty afterwards. Listed before the walk, which empties them
    // (and frees what only they held) as it goes.
    let reached = archivedObjects(in: Array(graph.roots.values))
    graph.breakReferenceCycles()
    for object in reached where !object.fields.isEmpty {
        violated("breakReferenceCycles", "an object of class \(object.className) keeps \(object.fields.count) fields")
    }
}

/// The objects an object's fields refer to directly (through in-place arrays and dictionaries).
private func children(of object: ArchivedObject) -> [ArchivedObject] {
    var result: [ArchivedObject] = []
    var stack = Array(object.fields.values)
    while let value = stack.popLast() {
        switch value {
        case .object(let child): result.append(child)
        case .array(let elements): stack.append(contentsOf: elements)
        case .dictionary(let entries): stack.append(contentsOf: entries.values)
        default: break
        }
    }
    return result
}

/// Whether the graph has a cycle (an iterative depth-first search).
func hasCycle(_ graph: ArchiveGraph) -> Bool {
    var state: [ObjectIdentifier: Bool] = [:]  // false: on the stack; true: done
    for root in archivedObjects(in: Array(graph.roots.values)) where state[ObjectIdentifier(root)] == nil {
        var stack: [(ArchivedObject, [ArchivedObject])] = [(root, children(of: root))]
        state[ObjectIdentifier(root)] = false
        while !stack.isEmpty {
            if let child = stack[stack.count - 1].1.popLast() {
                switch state[ObjectIdentifier(child)] {
                case false?: return true
                case true?: continue
                case nil:
                    state[ObjectIdentifier(child)] = false
                    stack.append((child, children(of: child)))
                }
            } else {
                state[ObjectIdentifier(stack.removeLast().0)] = true
            }
        }
    }
    return false
}

/// Empties every object of a typedstream graph.
func release(_ graph: TypedGraph?) {
    guard let graph else { return }
    // Its contract: every object the graph reached is empty afterwards (the walk moves groups and values out of
    // the objects, and frees the graph as it goes). Listed before the walk: after it, only the top-level objects
    // are reachable, and the check would see nothing else.
    let reached = graph.objects
    graph.breakReferenceCycles()
    for object in reached where !object.groups.isEmpty {
        violated("breakReferenceCycles", "an object of class \(object.className) keeps \(object.groups.count) groups")
    }
}

private func children(of object: TypedObject) -> [TypedObject] {
    var result: [TypedObject] = []
    var stack = object.groups.flatMap(\.values)
    while let value = stack.popLast() {
        switch value {
        case .object(let child): result.append(child)
        case .array(let values, _), .structure(let values, _): stack.append(contentsOf: values)
        default: break
        }
    }
    return result
}

func hasCycle(_ graph: TypedGraph) -> Bool {
    var state: [ObjectIdentifier: Bool] = [:]
    for root in graph.objects where state[ObjectIdentifier(root)] == nil {
        var stack: [(TypedObject, [TypedObject])] = [(root, children(of: root))]
        state[ObjectIdentifier(root)] = false
        while !stack.isEmpty {
            if let child = stack[stack.count - 1].1.popLast() {
                switch state[ObjectIdentifier(child)] {
                case false?: return true
                case true?: continue
                case nil:
                    state[ObjectIdentifier(child)] = false
                    stack.append((child, children(of: child)))
                }
            } else {
                state[ObjectIdentifier(stack.removeLast().0)] = true
            }
        }
    }
    return false
}

// MARK: Input

/// FUZZ_DUMP=FILE writes the archive or stream a program built to FILE (to replay an artifact through the
/// commands, or to turn it into a regression test).
func dump(_ bytes: [UInt8]) {
    guard let path = getenv("FUZZ_DUMP") else { return }
    _ = FileManager.default.createFile(atPath: String(cString: path), contents: Data(bytes))
}

/// Runs `body` on the input as `[UInt8]`.
@inline(__always)
func withInput(_ data: UnsafePointer<UInt8>, _ size: Int, _ body: ([UInt8]) -> Void) -> CInt {
    body(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
