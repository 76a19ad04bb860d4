import AutoCoding
import AutoCodingCore
import AutoCodingFast
import Foundation
import OrderedCollections
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Hostile inputs built at the object level whose danger is amplification: a small input naming a large output
/// through shared references. Each asserts a bounded output or the error naming its budget; every budget is
/// passed to the call, so that a missing fix fails fast instead of writing gigabytes.
@Suite("Amplification: shared references print once or spend a budget")
struct AmplificationTests {
    /// A keyed archive whose root NSArray refers `count` times to one `$objects` string entry.
    static func sharedStringArchive(length: Int, count: Int) -> [UInt8] {
        KeyedArchive(
            top: ["root": .uid(ArchiveUID(1))],
            objects: [
                .string("$null"),
                .dictionary([
                    "$class": .uid(ArchiveUID(2)),
                    "NS.objects": .array(Array(repeating: .uid(ArchiveUID(3)), count: count)),
                ]),
                .dictionary(["$classname": .string("NSArray"), "$classes": .array([.string("NSArray"), .string("NSObject")])]),
                .string(String(repeating: "x", count: length)),
            ]
        ).binaryPlist()
    }

    /// The address of a string's UTF-8 storage (nil for a string stored in place).
    static func storage(_ string: String) -> UnsafeRawPointer? {
        string.utf8.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
    }

    /// keyed fuzz target (oracle time, November 26): a typed decode made a new Swift string for every reference to
    /// one string entry, so a 67 KB archive of a 40 KB string referenced from thousands of elements decoded into
    /// 535 MB in 3.9 s. A string entry is now made at most twice, then shared: memory follows the archive.
    @Test func aStringReferencedManyTimesDecodesIntoOneSharedStorage() throws {
        let bytes = Self.sharedStringArchive(length: 100_000, count: 2_000)
        let strings = try KeyedArchiveDecoder().decode([String].self, from: bytes)
        #expect(strings.count == 2_000 && strings.allSatisfy { $0.utf8.count == 100_000 })
        #expect(Set(strings.dropFirst().map { Self.storage($0) }).count == 1)
        let objects = try #require(try KeyedUnarchiver(bytes: bytes).decodeObject(forKey: "root") as? [Any])
        let dynamic = objects.compactMap { $0 as? String }
        #expect(dynamic.count == 2_000)
        #expect(Set(dynamic.dropFirst().map { Self.storage($0) }).count == 1)
    }

    @Test func aSharedStringPrintsOnceAndRoundTrips() throws {
        let length = 64 << 10
        let bytes = Self.sharedStringArchive(length: length, count: 1_000)
        let graph = try ArchiveGraph(bytes: bytes)
        // Without `$ref` for strings this is 64 MiB; the budget makes a regression throw instead of printing it.
        let json = try graph.json(maxOutputBytes: OutputBudget.bytes(forInputBytes: bytes.count))
        #expect(json.utf8.count < length + 40_000)
        #expect(json.contains(#""$uid": 2"#) && json.contains(#"{"$ref": 2}"#))
        // JSON → graph → archive → JSON gives the same text, and the archive holds the string once.
        let again = try ArchiveGraph(json: json)
        let archive = again.keyedArchive()
        #expect(archive.objects.filter { $0.stringValue?.utf8.count == length }.count == 1)
        #expect(try ArchiveGraph(bytes: archive.binaryPlist()).json() == json)
    }

    @Test func equalStringsInTwoEntriesPrintOnceAndTheTextIsStable() throws {
        let text = ArchiveValue.string("a string longer than fifteen bytes")
        let bytes = KeyedArchive(
            top: ["a": .uid(ArchiveUID(1)), "b": .uid(ArchiveUID(2))], objects: [.string("$null"), text, text]
        ).binaryPlist()
        let json = try ArchiveGraph(bytes: bytes).json()
        #expect(json.contains(#"{"$ref": 1}"#))
        #expect(try ArchiveGraph(bytes: ArchiveGraph(json: json).binaryPlist()).json() == json)
    }

    @Test func aRefBeforeTheSharedValueItNamesIsRefused() throws {
        let json = #"{"$archiver": "NSKeyedArchiver", "$top": {"a": {"$ref": 1}, "b": {"$entry": "xxxxxxxxxxxxxxxxxxxxxxxx", "$uid": 1}}}"#
        #expect(throws: ArchiveJSONError.self) { try ArchiveGraph(json: json) }
    }

    /// Readers that lift the input-sized node budget (16 nodes per input byte): what `json` and `inspect`
    /// then meet is bounded by the output budget instead.
    static var liftedNodeBudget: ArchiveReadingOptions {
        var options = ArchiveReadingOptions()
        options.maxExpandedNodesPerInputByte = .max
        return options
    }

    @Test func aSharedReferenceDAGIsRefusedByTheInputSizedNodeBudget() throws {
        // 22 arrays, each holding the next twice: 2²² nodes from a 300-byte file. Every walk of the value
        // (validate, json, inspect, get) would pay for them, so the readers refuse it, eager and lazy.
        let bytes = HostilePlists.keyedArchiveHoldingBomb(levels: 22)
        for read in [{ _ = try ArchiveGraph(bytes: bytes) }, { _ = try ArchiveValue(propertyList: bytes) }] {
            let error = #expect(throws: ArchiveError.self) { try read() }
            #expect(error?.code == .limitExceeded)
            #expect(error?.reason.contains("expands to more than") == true, "\(error?.reason ?? "")")
        }
    }

    /// A typed decode reads a graph value (`ArchivedValue`) through the whole archive's graph, which the same
    /// budget refuses; the error says why, where it said only that the archive "cannot be read as a graph".
    @Test func aGraphValueOverTheNodeBudgetNamesTheBudget() throws {
        struct Holder: Decodable { let payload: ArchivedValue }
        let bytes = HostilePlists.keyedArchiveHoldingBomb(levels: 22)
        let error = #expect(throws: DecodingError.self) { _ = try KeyedArchiveDecoder().decode(Holder.self, from: bytes) }
        guard case .dataCorrupted(let context)? = error else {
            Issue.record("expected dataCorrupted, got \(String(describing: error))")
            return
        }
        #expect(context.debugDescription.contains("cannot be read as a graph"), "\(context.debugDescription)")
        #expect(context.debugDescription.contains("expands to more than"), "\(context.debugDescription)")
        #expect(context.codingPath.map(\.stringValue) == ["payload"])
    }

    @Test func aSharedReferenceDAGInAnArchiveThrowsTheOutputBudget() throws {
        // 22 arrays, each holding the next twice: 2²² nodes once expanded, read with the node budget lifted.
        let bytes = HostilePlists.keyedArchiveHoldingBomb(levels: 22)
        let graph = try ArchiveGraph(bytes: bytes, options: Self.liftedNodeBudget)
        let error = #expect(throws: ArchiveError.self) {
            try graph.json(maxOutputBytes: OutputBudget.bytes(forInputBytes: bytes.count))
        }
        #expect(error?.code == .limitExceeded)
        #expect(error?.reason.contains("maxOutputBytes") == true)
        // Equivalence compares the shared arrays once.
        #expect(graph.isEquivalent(to: graph))
    }

    @Test func aSharedReferenceDAGInAPlainPlistThrowsTheOutputBudget() throws {
        let bytes = HostilePlists.nestedArrays(levels: 22, fanOut: 2)
        let value = try ArchiveValue(propertyList: bytes, options: Self.liftedNodeBudget)
        let error = #expect(throws: ArchiveError.self) {
            try value.json(maxOutputBytes: OutputBudget.bytes(forInputBytes: bytes.count))
        }
        #expect(error?.code == .limitExceeded)
    }

    @Test func theLazyPathReaderSharesScalarEntries() throws {
        let bytes = Self.sharedStringArchive(length: 64 << 10, count: 1_000)
        let archive = try LazyKeyedArchive(bytes: bytes)
        let values = try archive.values(at: "$top.root")
        let json = try #require(values.first).json(maxOutputBytes: OutputBudget.bytes(forInputBytes: bytes.count))
        #expect(json.utf8.count < (64 << 10) + 40_000)
    }

    @Test func aFanOutOverSharedReferencesThrowsItsBudget() throws {
        // An NSArray holding itself 100 times: each [*] multiplies the values by 100.
        let bytes = KeyedArchive(
            top: ["root": .uid(ArchiveUID(1))],
            objects: [
                .string("$null"),
                .dictionary([
                    "$class": .uid(ArchiveUID(2)),
                    "NS.objects": .array(Array(repeating: .uid(ArchiveUID(1)), count: 100)),
                ]),
                .dictionary(["$classname": .string("NSArray"), "$classes": .array([.string("NSArray"), .string("NSObject")])]),
            ]
        ).binaryPlist()
        let path = "$top.root[*][*][*][*]"
        let lazy = #expect(throws: ArchivePathError.self) { try LazyKeyedArchive(bytes: bytes).values(at: path) }
        #expect(lazy?.reason.contains("fan-out budget") == true)
        #expect(lazy?.code == .limitExceeded)
        let graph = try ArchiveGraph(bytes: bytes)
        let eager = #expect(throws: ArchivePathError.self) {
            try graph.values(at: ArchivePath(parsing: path), maxValues: ArchivePath.fanOutBudget(forInputBytes: bytes.count))
        }
        #expect(eager?.reason.contains("fan-out budget") == true)
        #expect(eager?.code == .limitExceeded)
    }

    @Test func allTopKeysAreReadInOnePass() throws {
        var top = OrderedDictionary<String, ArchiveValue>()
        for i in 0..<20_000 { top["k\(i)"] = .integer(Int64(i)) }
        let bytes = KeyedArchive(top: top, objects: [.string("$null")]).binaryPlist()
        let clock = ContinuousClock()
        let start = clock.now
        let values = try LazyKeyedArchive(bytes: bytes).values(at: "$top[*]")
        #expect(values.count == 20_000)
        // Quadratic (a key lookup per key) took seconds here; one pass takes milliseconds even unoptimized.
        #expect(clock.now - start < .seconds(5))
    }

    @Test func iMessageAttributesHoldingADAGThrowTheirBudget() throws {
        // 40 NSArrays, each holding the next twice, as the value of one attribute.
        var level = TypedObject.array([])
        for _ in 0..<40 { level = .array([.object(level), .object(level)]) }
        let attributes = TypedObject.dictionary([(key: .object(.string("k")), value: .object(level))])
        let body = TypedObject.attributedString("hi", runs: [(length: 2, attributes: attributes)])
        let bytes = TypedGraph(groups: [TypedGroup(encoding: "@", values: [.object(body)])]).typedstreamBytes()
        #expect(bytes.count < 2_000)
        #expect(throws: TypedstreamDecodingError.self) { try IMessageText(attributedBody: bytes) }
    }

    @Test func theInputReaderStopsAtTheLimitOnAnEndlessSource() throws {
        let start = ContinuousClock.now
        let error = #expect(throws: ArchiveError.self) { try ArchiveInput.read("/dev/zero", limit: 1 << 20) }
        #expect(error?.code == .limitExceeded)
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test func theInputReaderReadsAPipeOnce() throws {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        let payload = [UInt8](repeating: 7, count: 100_000)
        let (readEnd, writeEnd) = (fds[0], fds[1])
        // A writer thread: the pipe holds 64 KiB, so writing it all first would block.
        let writer = Thread {
            payload.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let n = write(writeEnd, buffer.baseAddress! + offset, buffer.count - offset)
                    if n <= 0 { break }
                    offset += n
                }
            }
            close(writeEnd)
        }
        writer.start()
        defer { close(readEnd) }
        #expect(try ArchiveInput.read(fd: readEnd, name: "pipe", limit: 1 << 20) == payload)
    }
}
