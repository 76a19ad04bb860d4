import Foundation
import OrderedCollections
import Testing
import _AutoCodingTestSupport

@testable import AutoCodingFast

/// The native binary-plist writer: round trips, the exact bytes it chooses, and its output read by other
/// implementations (Python's plistlib, Foundation's PropertyListSerialization).
@Suite("Binary plist writer")
struct BPlistWriterTests {
    static func date(_ seconds: Double) -> ArchiveValue { .date(Date(timeIntervalSinceReferenceDate: seconds)) }

    /// Values covering every scalar width and container shape. No sample holds both `0.0` and `-0.0` or a NaN,
    /// since other writers merge or reject those (they are checked separately below).
    static let samples: [ArchiveValue] = [
        .bool(true), .bool(false),
        .integer(0), .integer(255), .integer(256), .integer(65_535), .integer(65_536),
        .integer(4_294_967_295), .integer(4_294_967_296), .integer(.max), .integer(-1), .integer(.min),
        .unsignedInteger(UInt64(Int64.max) + 1), .unsignedInteger(.max),
        .real(0), .real(-0.0), .real(1.5), .real(-1e-300), .real(.infinity), .real(-.infinity),
        .real(.leastNonzeroMagnitude), .real(.greatestFiniteMagnitude),
        date(0), date(86_400.5), date(-978_307_200), date(730_900_800),
        .data([]), .data([0xFF]), .data(Array(repeating: 7, count: 14)), .data(Array(repeating: 7, count: 15)),
        .data((0..<70_000).map { UInt8(truncatingIfNeeded: $0) }),
        .string(""), .string("a"), .string(String(repeating: "x", count: 14)),
        .string(String(repeating: "x", count: 15)), .string(String(repeating: "x", count: 300)),
        .string("café"), .string("日本語"), .string("👍🏽 and 𝄞"), .string("e\u{301}"),
        .string(String(repeating: "é", count: 20)),
        .uid(ArchiveUID(0)), .uid(ArchiveUID(255)), .uid(ArchiveUID(256)), .uid(ArchiveUID(65_536)),
        .uid(ArchiveUID(.max)),
        .array([]), .array([.array([]), .dictionary([:])]), .array((0..<15).map { .integer($0) }),
        .array([.string("same"), .string("same"), .integer(1), .bool(true), .real(1)]),
        .dictionary([:]),
        .dictionary(["z": .integer(1), "a": .integer(2), "m": .array([.uid(ArchiveUID(3))])]),
        .dictionary(["ключ": .string("значение"), "🔑": .dictionary(["nested": .data([1, 2, 3])])]),
        .dictionary(
            Dictionary(uniqueKeysWithValues: (0..<40).map { ("key \($0)", ArchiveValue.integer(Int64($0))) })
                .reduce(into: OrderedDictionary()) { $0[$1.key] = $1.value }
        ),
    ]

    /// A binary plist's object `index` bytes, from its offset to the next object's (or the offset table).
    static func objectBytes(_ plist: [UInt8], _ index: Int) throws -> [UInt8] {
        let trailer = try BPlistTrailer(plist)
        func offset(_ i: Int) -> Int {
            let entry = trailer.offsetTableOffset + i * trailer.offsetIntSize
            return plist[entry..<entry + trailer.offsetIntSize].reduce(0) { $0 << 8 | Int($1) }
        }
        let start = offset(index)
        let end = (0..<trailer.objectCount).map(offset).filter { $0 > start }.min() ?? trailer.offsetTableOffset
        return Array(plist[start..<end])
    }

    // MARK: Round trips

    @Test(arguments: samples)
    func writtenValuesReadBackIdentically(value: ArchiveValue) throws {
        let bytes = value.binaryPropertyList()
        let reread = try ArchiveValue(propertyList: bytes)
        #expect(reread.firstDifference(from: value) == nil)
    }

    @Test func writtenValuesInsideOneArrayReadBackIdentically() throws {
        let value = ArchiveValue.array(Self.samples + [.real(.nan), .real(-.nan)])
        let reread = try ArchiveValue(propertyList: value.binaryPropertyList())
        #expect(reread.firstDifference(from: value) == nil)
    }

    @Test func unsignedIntegersThatFitInt64AreWrittenAsSignedIntegers() throws {
        let bytes = ArchiveValue.unsignedInteger(5).binaryPropertyList()
        #expect(try ArchiveValue(propertyList: bytes) == .integer(5))
        #expect(try Self.objectBytes(bytes, 0) == [0x10, 0x05])
    }

    @Test func keyedArchivesRoundTripThroughTheWriter() throws {
        for name in Fixtures.keyed {
            let archive = try Fixtures.archive(name)
            let reread = try KeyedArchive(bytes: archive.binaryPlist())
            #expect(reread == archive, "\(name)")
        }
    }

    /// A UID is one object however often it is written, including one first met far ahead of the objects written
    /// (numbered apart, so that a single large UID cannot size the dense table) and met again once in range.
    @Test func aUIDMetFarAheadAndAgainInRangeIsOneObject() throws {
        let far = ArchiveValue.uid(ArchiveUID(50_000))
        let integers = (0..<30_000).map { ArchiveValue.integer(Int64($0)) }
        let bytes = ArchiveValue.array([far] + integers + [far]).binaryPropertyList()
        // The array, the integers and one UID.
        #expect(try BPlistTrailer(bytes).objectCount == 1 + 30_000 + 1)
        #expect(try ArchiveValue(propertyList: bytes) == .array([far] + integers + [far]))
    }

    // MARK: Widths

    @Test func smallPlistsUseOneByteReferencesAndOffsets() throws {
        let bytes = ArchiveValue.array([.integer(1), .string("two")]).binaryPropertyList()
        #expect(
            try BPlistTrailer(bytes)
                == BPlistTrailer(
                    offsetIntSize: 1,
                    objectRefSize: 1,
                    objectCount: 3,
                    topObject: 0,
                    offsetTableOffset: 8 + 3 + 2 + 4
                )
        )
        #expect(Array(bytes.suffix(32).prefix(6)) == [0, 0, 0, 0, 0, 0])
    }

    @Test(arguments: [
        (254, 1),  // 255 objects with the array: object numbers 0...254 fit one byte
        (255, 2),  // 256 objects: CoreFoundation's rule sizes references for the count itself
        (65_534, 2),
        (65_535, 4),
    ])
    func referenceWidthIsTheSmallestThatHoldsTheObjectCount(elements: Int, width: Int) throws {
        let value = ArchiveValue.array((0..<elements).map { .integer(Int64($0) + 1000) })
        let bytes = value.binaryPropertyList()
        let trailer = try BPlistTrailer(bytes)
        #expect(trailer.objectCount == elements + 1)
        #expect(trailer.objectRefSize == width)
        #expect(try ArchiveValue(propertyList: bytes) == value)
    }

    @Test func offsetWidthIsTheSmallestThatHoldsTheOffsetTableOffset() throws {
        // Objects end before byte 256: 1-byte offsets; past it, 2-byte; past 65536, 4-byte (CF sizes them by the
        // table offset).
        let small = ArchiveValue.data(Array(repeating: 0, count: 200)).binaryPropertyList()
        #expect(try BPlistTrailer(small).offsetIntSize == 1)
        let medium = ArchiveValue.data(Array(repeating: 0, count: 300)).binaryPropertyList()
        #expect(try BPlistTrailer(medium).offsetIntSize == 2)
        let large = ArchiveValue.data(Array(repeating: 0, count: 70_000)).binaryPropertyList()
        #expect(try BPlistTrailer(large).offsetIntSize == 4)
        #expect(try BPlistTrailer(large).offsetTableOffset == 8 + 1 + 1 + 4 + 70_000)
    }

    @Test func theTopObjectIsObjectZeroAndTheTableFollowsTheObjects() throws {
        let bytes = ArchiveValue.dictionary(["k": .string("v")]).binaryPropertyList()
        let trailer = try BPlistTrailer(bytes)
        #expect(trailer.topObject == 0)
        #expect(trailer.offsetTableOffset + trailer.objectCount * trailer.offsetIntSize + 32 == bytes.count)
        #expect(Array(bytes.prefix(8)) == Array("bplist00".utf8))
    }

    // MARK: Uniquing

    @Test func aStringUsedAThousandTimesIsStoredOnce() throws {
        let value = ArchiveValue.array(Array(repeating: .string("repeated"), count: 1000))
        let bytes = value.binaryPropertyList()
        #expect(try BPlistTrailer(bytes).objectCount == 2)  // the array and one string
        #expect(try ArchiveValue(propertyList: bytes) == value)
    }

    @Test(arguments: [
        ArchiveValue.integer(123_456), .real(2.5), date(1), .data([1, 2, 3]), .uid(ArchiveUID(7)), .bool(true),
        .unsignedInteger(.max), .string("ünï"),
    ])
    func everyScalarKindIsUniqued(scalar: ArchiveValue) throws {
        let bytes = ArchiveValue.array(Array(repeating: scalar, count: 50)).binaryPropertyList()
        #expect(try BPlistTrailer(bytes).objectCount == 2)
    }

    @Test func dictionaryKeysAndEqualStringValuesShareOneObject() throws {
        let value = ArchiveValue.array([.dictionary(["name": .string("name")]), .dictionary(["name": .integer(1)])])
        // array, 2 dictionaries, "name", 1
        #expect(try BPlistTrailer(value.binaryPropertyList()).objectCount == 5)
    }

    @Test func equalContainersAreNotMerged() throws {
        let inner = ArchiveValue.array([.integer(1)])
        let bytes = ArchiveValue.array([inner, inner, inner]).binaryPropertyList()
        #expect(try BPlistTrailer(bytes).objectCount == 5)  // outer, three arrays, one integer
    }

    @Test func negativeZeroAndZeroStayDistinct() throws {
        let value = ArchiveValue.array([.real(0.0), .real(-0.0)])
        let bytes = value.binaryPropertyList()
        #expect(try BPlistTrailer(bytes).objectCount == 3)
        let reread = try ArchiveValue(propertyList: bytes)
        guard case .array(let elements) = reread, case .real(let a) = elements.first, case .real(let b) = elements.last
        else {
            Issue.record("expected two reals, read \(reread)")
            return
        }
        #expect(a.sign == .plus)
        #expect(b.sign == .minus)
    }

    @Test func canonicallyEquivalentStringsStayDistinct() throws {
        // "é" precomposed and decomposed are == in Swift but are different strings in a plist.
        let value = ArchiveValue.array([.string("\u{E9}"), .string("e\u{301}")])
        let bytes = value.binaryPropertyList()
        #expect(try BPlistTrailer(bytes).objectCount == 3)
        #expect(try ArchiveValue(propertyList: bytes).firstDifference(from: value) == nil)
    }

    @Test func valuesOfDifferentKindsWithEqualNumbersStayDistinct() throws {
        let value = ArchiveValue.array([.integer(1), .bool(true), .real(1), .uid(ArchiveUID(1)), Self.date(1)])
        let bytes = value.binaryPropertyList()
        #expect(try BPlistTrailer(bytes).objectCount == 6)
        #expect(try ArchiveValue(propertyList: bytes) == value)
    }

    /// Integers, reals and dates share one uniquing table keyed by their 64 bits: the same bits in three kinds are
    /// three objects, and each repeat is one, past the table's growths.
    @Test func scalarsWithTheSameBitsInThreeKindsAreThreeObjectsEach() throws {
        let distinct = (0..<3000).flatMap { i -> [ArchiveValue] in
            let real = Double(i) + 0.5
            return [.integer(Int64(bitPattern: real.bitPattern)), .real(real), Self.date(real)]
        }
        let value = ArchiveValue.array(distinct + distinct.reversed())
        let bytes = value.binaryPropertyList()
        #expect(try BPlistTrailer(bytes).objectCount == 1 + distinct.count)
        #expect(try ArchiveValue(propertyList: bytes) == value)
    }

    // MARK: Encodings

    @Test(
        arguments: [
            (ArchiveValue.integer(0), [0x10, 0x00]),
            (.integer(255), [0x10, 0xFF]),
            (.integer(256), [0x11, 0x01, 0x00]),
            (.integer(65_536), [0x12, 0x00, 0x01, 0x00, 0x00]),
            (.integer(4_294_967_296), [0x13, 0, 0, 0, 0x01, 0, 0, 0, 0]),
            (.integer(-1), [0x13, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),  // negatives take 8 bytes
            (.unsignedInteger(1 << 63), [0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0, 0, 0, 0, 0, 0, 0]),  // 16 bytes
            (.unsignedInteger(.max), [0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
            (.real(-0.0), [0x23, 0x80, 0, 0, 0, 0, 0, 0, 0]),
            (.real(1.5), [0x23, 0x3F, 0xF8, 0, 0, 0, 0, 0, 0]),
            (date(0), [0x33, 0, 0, 0, 0, 0, 0, 0, 0]),
            (.bool(false), [0x08]),
            (.bool(true), [0x09]),
            (.data([0xAB]), [0x41, 0xAB]),
            (.string("a"), [0x51, 0x61]),  // ASCII: one byte per character
            (.string("é"), [0x61, 0x00, 0xE9]),  // non-ASCII: UTF-16 big-endian
            (.string("😀"), [0x62, 0xD8, 0x3D, 0xDE, 0x00]),  // a surrogate pair: 2 units
            (.string(String(repeating: "a", count: 15)), [0x5F, 0x10, 0x0F] + Array(repeating: 0x61, count: 15)),
            (.uid(ArchiveUID(0)), [0x80, 0x00]),
            (.uid(ArchiveUID(256)), [0x81, 0x01, 0x00]),
            (.uid(ArchiveUID(65_536)), [0x83, 0x00, 0x01, 0x00, 0x00]),
        ] as [(ArchiveValue, [UInt8])]
    )
    func scalarsAreWrittenWithTheirSmallestEncoding(value: ArchiveValue, expected: [UInt8]) throws {
        let bytes = value.binaryPropertyList()
        #expect(try Self.objectBytes(bytes, 0) == expected)
        #expect(try BPlistTrailer(bytes).objectCount == 1)
    }

    @Test func containerCountsOfFifteenOrMoreFollowTheMarker() throws {
        let fourteen = ArchiveValue.array(Array(repeating: .bool(true), count: 14)).binaryPropertyList()
        #expect(try Self.objectBytes(fourteen, 0).prefix(1) == [0xAE])
        let fifteen = ArchiveValue.array(Array(repeating: .bool(true), count: 15)).binaryPropertyList()
        #expect(try Self.objectBytes(fifteen, 0).prefix(3) == [0xAF, 0x10, 0x0F])
        let dictionary = ArchiveValue.dictionary(
            OrderedDictionary(uniqueKeysWithValues: (0..<300).map { ("k\($0)", ArchiveValue.bool(true)) })
        ).binaryPropertyList()
        #expect(try Self.objectBytes(dictionary, 0).prefix(4) == [0xDF, 0x11, 0x01, 0x2C])
    }

    // MARK: Other readers

    @Test(
        .enabled(if: executableOnPath("python3") != nil, "python3 is not on PATH"),
        arguments: samples
    )
    func pythonPlistlibReadsTheOutput(value: ArchiveValue) throws {
        let python = try #require(executableOnPath("python3"))
        let input = try temporaryFile(value.binaryPropertyList())
        let output = FileManager.default.temporaryDirectory.appendingPathComponent(
            "autocoding-\(UUID().uuidString).bplist"
        )
        defer {
            try? FileManager.default.removeItem(at: input)
            try? FileManager.default.removeItem(at: output)
        }
        // plistlib reads our bytes and writes them back with its own writer; we read that.
        let script = """
            import plistlib, sys
            with open(sys.argv[1], 'rb') as f:
                value = plistlib.load(f)
            with open(sys.argv[2], 'wb') as f:
                plistlib.dump(value, f, fmt=plistlib.FMT_BINARY, sort_keys=False)
            print(type(value).__name__)
            """
        let result = try runProcess(python, ["-c", script, input.path, output.path])
        #expect(result.status == 0)
        let reread = try ArchiveValue(propertyList: [UInt8](Data(contentsOf: output)))
        #expect(reread.firstDifference(from: value) == nil, "Python output: \(result.output)")
    }

    @Test(arguments: samples)
    func foundationPropertyListSerializationReadsTheOutput(value: ArchiveValue) throws {
        let object = try PropertyListSerialization.propertyList(
            from: Data(value.binaryPropertyList()),
            options: [],
            format: nil
        )
        // Foundation reads our bytes and writes them back with CoreFoundation's writer; we read that. CF orders
        // dictionary keys by hash, so compare with keys sorted.
        let rewritten = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
        let reread = try ArchiveValue(propertyList: [UInt8](rewritten))
        #expect(reread.withSortedKeys.firstDifference(from: value.withSortedKeys) == nil)
    }

    @Test func foundationReadsTheOutputAsTheExpectedFoundationTypes() throws {
        let value = ArchiveValue.dictionary([
            "string": .string("héllo"), "int": .integer(-42), "real": .real(2.5), "bool": .bool(true),
            "data": .data([1, 2]), "date": Self.date(86_400), "array": .array([.string("x")]),
        ])
        let object = try PropertyListSerialization.propertyList(
            from: Data(value.binaryPropertyList()),
            options: [],
            format: nil
        )
        let dictionary = try #require(object as? [String: Any])
        #expect(dictionary["string"] as? String == "héllo")
        #expect((dictionary["int"] as? NSNumber)?.int64Value == -42)
        #expect((dictionary["real"] as? NSNumber)?.doubleValue == 2.5)
        #expect(dictionary["bool"] as? Bool == true)
        #expect(dictionary["data"] as? Data == Data([1, 2]))
        #expect((dictionary["date"] as? Date)?.timeIntervalSinceReferenceDate == 86_400)
        #expect(dictionary["array"] as? [String] == ["x"])
    }

    // MARK: Scale

    @Test func twoHundredThousandElementsRoundTrip() throws {
        let value = ArchiveValue.array(
            (0..<200_000).map { i in
                i.isMultiple(of: 2) ? .integer(Int64(i)) : .string("s\(i)")
            }
        )
        let bytes = value.binaryPropertyList()
        #expect(try BPlistTrailer(bytes).objectCount == 200_001)
        #expect(try BPlistTrailer(bytes).objectRefSize == 4)
        #expect(try ArchiveValue(propertyList: bytes) == value)
    }

    /// The writer keeps one `Flat` per object (about two million for W1's 100,000 people), in fresh memory the
    /// kernel clears: a case widened past 15 bytes of payload makes the slot 24 bytes again.
    @Test func theWritersObjectSlotIsSixteenBytes() {
        #expect(MemoryLayout<BPlistWriter.Flat>.stride == 16)
    }
}

// MARK: - Depth: writers refuse what readers refuse, and nothing recurses (issue 17)

extension BPlistWriterTests {
    /// `levels` arrays, each holding the next; the innermost holds one integer.
    static func nested(_ levels: Int) -> ArchiveValue {
        var value = ArchiveValue.integer(1)
        for _ in 0..<levels { value = .array([value]) }
        return value
    }

    // 20,000 levels: enough to overflow a test thread's stack through any recursive walk of this module,
    // and within what releasing the tree itself costs (the runtime frees nested arrays recursively, so readers
    // must refuse deeper trees before building them).
    static let deep = 20_000

    /// Runs `body` on a thread with a 256 KiB stack, joined before returning, and returns its result: a walk
    /// that recursed once per level of a `deep` tree would need megabytes there and crash; one that keeps its
    /// own stack does not. (Values are made and freed by the caller, whose stack holds their release.)
    static func onSmallStack<T>(_ body: @escaping () -> T) -> T {
        let task = SmallStackTask(body)
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setstacksize(&attributes, 256 << 10)
        var thread = pthread_t()
        let created = pthread_create(&thread, &attributes, smallStackEntry, Unmanaged.passRetained(task).toOpaque())
        precondition(created == 0, "pthread_create failed")
        pthread_join(thread, nil)
        return task.result as! T
    }

    @Test func writesDeepNestingWithoutRecursion() throws {
        // `encode` of JSON nested 10⁵ deep used to overflow the stack in the writer's recursive flatten.
        let value = Self.nested(Self.deep)
        let (bytes, refused) = Self.onSmallStack {
            let bytes = value.binaryPropertyList()
            let refused = (try? value.binaryPropertyList(readableWith: ArchiveReadingOptions())) == nil
            return (bytes, refused)
        }
        #expect(try BPlistTrailer(bytes).objectCount == Self.deep + 1)
        #expect(refused)
    }

    @Test func refusesToWriteDeeperThanTheReaderReads() throws {
        let options = ArchiveReadingOptions()
        // At the limit: written, and read back.
        let deepest = Self.nested(options.depthLimit)
        #expect(try ArchiveValue(propertyList: deepest.binaryPropertyList(readableWith: options)) == deepest)
        // One level more: the reader would refuse it, so the writer does.
        let tooDeep = Self.nested(options.depthLimit + 1)
        #expect(throws: ArchiveError.self) { try ArchiveValue(propertyList: tooDeep.binaryPropertyList()) }
        let error = #expect(throws: ArchiveError.self) { try tooDeep.binaryPropertyList(readableWith: options) }
        #expect(error?.code == .depthLimitExceeded)
        #expect(error?.reason.contains("depth limit 512") == true, "\(error.map { "\($0)" } ?? "")")
        // 2·10⁴ levels, as `encode` wrote them before: refused without writing anything.
        let farTooDeep = #expect(throws: ArchiveError.self) {
            try Self.nested(Self.deep).binaryPropertyList(readableWith: options)
        }
        #expect(farTooDeep?.code == .depthLimitExceeded)
        // A keyed archive's table nests its values three levels below the plist's root.
        let archive = KeyedArchive(archiver: "NSKeyedArchiver", top: [:], objects: [Self.nested(511)])
        let archiveError = #expect(throws: ArchiveError.self) { try archive.binaryPlist(readableWith: options) }
        #expect(archiveError?.code == .depthLimitExceeded)
    }

    @Test func xmlWriterRefusesWhatTheReaderRefuses() {
        let error = #expect(throws: ArchiveError.self) { try Self.nested(513).xmlPropertyList() }
        #expect(error?.code == .depthLimitExceeded)
        #expect(error?.reason.contains("512") == true, "\(error.map { "\($0)" } ?? "")")
    }

    @Test func deepValuesCompareAndHashWithoutRecursion() throws {
        let a = Self.nested(Self.deep)
        let b = Self.nested(Self.deep)
        let shorter = Self.nested(Self.deep - 1)
        // The UID check of KeyedArchive validation walks with a stack too.
        let archive = KeyedArchive(archiver: "NSKeyedArchiver", top: [:], objects: [a, .uid(ArchiveUID(7))])
        let (equal, sameHash, unequal, error) = Self.onSmallStack {
            var error: ArchiveError?
            do { try archive.validate() } catch let e { error = e as? ArchiveError }
            return (a == b, a.hashValue == b.hashValue, a != shorter, error)
        }
        #expect(equal)
        #expect(sameHash)
        #expect(unequal)
        #expect(error?.code == .invalidUID)
    }

    @Test func equalityAndHashingMatchTheCaseByCaseRules() {
        #expect(ArchiveValue.real(.nan) != .real(.nan))
        #expect(ArchiveValue.real(0) == .real(-0.0))
        #expect(ArchiveValue.real(0).hashValue == ArchiveValue.real(-0.0).hashValue)
        #expect(ArchiveValue.integer(1) != .unsignedInteger(1))
        #expect(ArchiveValue.array([.integer(1)]) != .dictionary(["a": .integer(1)]))
        // A scalar is compared and hashed without the walk; against a container holding it, it still differs.
        #expect(ArchiveValue.string("x") != .array([.string("x")]))
        #expect(ArchiveValue.array([]) != .string(""))
        #expect(Set<ArchiveValue>([.string("x"), .string("x"), .array([.string("x")])]).count == 2)
        let ordered: ArchiveValue = .dictionary(["a": .integer(1), "b": .array([.string("x")])])
        #expect(ordered == .dictionary(["a": .integer(1), "b": .array([.string("x")])]))
        #expect(ordered != .dictionary(["b": .array([.string("x")]), "a": .integer(1)]))
        #expect(Set(Self.samples).count == Set(Self.samples.map { $0 }).count)
    }
}

/// Carries a body to a thread and its result back (see ``BPlistWriterTests/onSmallStack(_:)``).
private final class SmallStackTask: @unchecked Sendable {
    let body: () -> Any
    var result: Any?
    init<T>(_ body: @escaping () -> T) { self.body = { body() } }
}

/// The thread function of ``BPlistWriterTests/onSmallStack(_:)``: runs the task, then releases it.
private func smallStackEntry(_ raw: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    let task = Unmanaged<SmallStackTask>.fromOpaque(raw!).takeRetainedValue()
    task.result = task.body()
    return nil
}
