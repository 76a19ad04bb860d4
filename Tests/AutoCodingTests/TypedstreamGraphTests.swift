import AutoCoding
import Foundation
import Testing
import _AutoCodingTestSupport

@testable import AutoCodingCore

/// The typedstream object layer on the shared samples: every one resolves into a graph that writes back the
/// same events, and the Foundation classes map to their values.
@Suite("Typedstream graph")
struct TypedstreamGraphTests {
    static let samples = SharedCorpus.files(in: "typedstream")

    static func graph(_ name: String) throws -> TypedGraph {
        try TypedGraph(bytes: try SharedCorpus.bytes("typedstream", name))
    }

    static func foundation(_ value: TypedValue?) -> TypedFoundation? { value?.object?.foundation }

    @Test(.enabled(if: SharedCorpus.isAvailable, "../shared/corpus is not beside the package"), arguments: samples)
    func graphWritesBackTheSameBytes(_ name: String) throws {
        let bytes = try SharedCorpus.bytes("typedstream", name)
        let stream = try Typedstream(bytes: bytes)
        let graph = try TypedGraph(stream: stream)
        let rewritten = graph.typedstream()
        #expect(rewritten.firstDifference(from: stream) == nil)
        let same = rewritten.typedstreamBytes() == bytes
        #expect(same)
    }

    /// Every sample converts to a keyed archive that reads back strictly, with as many objects and scalars.
    @Test(.enabled(if: SharedCorpus.isAvailable, "../shared/corpus is not beside the package"), arguments: samples)
    func convertsToAValidKeyedArchive(_ name: String) throws {
        let keyed = try Self.graph(name).keyedArchiveGraph()
        let reread = try ArchiveGraph(bytes: keyed.binaryPlist())
        #expect(reread.isEquivalent(to: keyed))
    }

    @Test(.enabled(if: SharedCorpus.isAvailable, "../shared/corpus is not beside the package"))
    func convertsFoundationClassesToTheirKeyedForms() throws {
        let keyed = try ArchiveGraph(
            bytes: try Self.graph("crabstep_foundation-NSDictionaryNested").keyedArchiveGraph().binaryPlist()
        )
        let root = try #require(keyed.root?.object)
        #expect(root.className == "NSDictionary")
        #expect(root["NS.keys"]?.elements?.compactMap(\.string) == ["arr", "data", "num"])
        let values = try #require(root["NS.objects"]?.elements)
        #expect(values[0].object?["NS.objects"]?.elements?.compactMap(\.int) == [1, 2])
        #expect(values[1].bytes == [1, 2])
        #expect(values[2].int == 7)
        let body = try ArchiveGraph(
            bytes: try Self.graph("crabstep_AttributedBodyTextOnly").keyedArchiveGraph().binaryPlist()
        )
        #expect(body.root?.object?["NSString"]?.string == "Noter test")
        #expect(body.root?.object?["NSAttributes"]?.object?.className == "NSDictionary")
    }

    @Test(.enabled(if: SharedCorpus.isAvailable, "../shared/corpus is not beside the package"))
    func mapsFoundationScalars() throws {
        guard case .string(let s)? = try Self.graph("crabstep_foundation-NSString").root?.foundation else {
            Issue.record("NSString")
            return
        }
        #expect(!s.isEmpty)
        guard case .number(let n)? = try Self.graph("crabstep_foundation-NumberInt64").root?.foundation else {
            Issue.record("NSNumber")
            return
        }
        #expect(n.integer == -9_000_000_000)
        guard case .number(let f)? = try Self.graph("crabstep_foundation-NumberFloat").root?.foundation else {
            Issue.record("NSNumber float")
            return
        }
        #expect(f.real == 3.5)
        guard case .date(let t)? = try Self.graph("crabstep_foundation-NSDate").root?.foundation else {
            Issue.record("NSDate")
            return
        }
        #expect(t == 21_692_800)
        guard case .data(let d)? = try Self.graph("crabstep_foundation-NSData").root?.foundation else {
            Issue.record("NSData")
            return
        }
        #expect(!d.isEmpty)
    }

    @Test(.enabled(if: SharedCorpus.isAvailable, "../shared/corpus is not beside the package"))
    func mapsFoundationCollections() throws {
        guard case .dictionary(let pairs)? = try Self.graph("crabstep_foundation-NSDictionaryNested").root?.foundation
        else {
            Issue.record("NSDictionary")
            return
        }
        let keys = pairs.compactMap { pair -> String? in
            if case .string(let s)? = Self.foundation(pair.key) { return s }
            return nil
        }
        #expect(keys == ["arr", "data", "num"])
        guard case .array(let numbers)? = Self.foundation(pairs[0].value) else {
            Issue.record("nested NSArray")
            return
        }
        #expect(
            numbers.compactMap { v -> Int64? in
                if case .number(let n)? = Self.foundation(v) { return n.integer }
                return nil
            } == [1, 2]
        )
        guard case .set(let members)? = try Self.graph("crabstep_foundation-NSSet").root?.foundation else {
            Issue.record("NSSet")
            return
        }
        #expect(members.count == 2)
        guard case .url(let relative, let base)? = try Self.graph("crabstep_foundation-NSURLRelative").root?.foundation
        else {
            Issue.record("NSURL")
            return
        }
        #expect(relative == "page.html")
        guard case .url(let baseString, nil)? = base?.foundation else {
            Issue.record("base NSURL")
            return
        }
        #expect(baseString == "https://example.com/dir/")
    }

    @Test(.enabled(if: SharedCorpus.isAvailable, "../shared/corpus is not beside the package"))
    func mapsAttributedStringRuns() throws {
        guard case .attributedString(let body)? = try Self.graph("crabstep_AttributedBodyTextOnly").root?.foundation
        else {
            Issue.record("NSAttributedString")
            return
        }
        #expect(body.text == "Noter test")
        #expect(body.runs.count == 1)
        #expect(body.runs.first?.length == 10)
        guard case .dictionary(let attributes)? = body.runs.first?.attributes?.foundation else {
            Issue.record("attributes")
            return
        }
        #expect(attributes.count == 1)
        // A run whose attribute set repeats reuses the dictionary of its first appearance.
        guard case .attributedString(let emoji)? = try Self.graph("crabstep_EmojiBoldUnderline").root?.foundation
        else {
            Issue.record("EmojiBoldUnderline")
            return
        }
        #expect(emoji.runs.reduce(0) { $0 + $1.length } == emoji.text.utf16.count)
        #expect(emoji.runs.allSatisfy { $0.attributes != nil })
    }

    @Test(.enabled(if: SharedCorpus.isAvailable, "../shared/corpus is not beside the package"))
    func mapsNeXTClassesAndNibFonts() throws {
        guard case .streamTable(let entries)? = try Self.graph("WorldWideWeb-0.12_IB.proj").root?.foundation else {
            Issue.record("StreamTable")
            return
        }
        #expect(entries.count == 3)
        #expect(entries.allSatisfy { !$0.value.groups.isEmpty })
        // The nested streams hold NeXT Storage (a typed array) and HashTable objects.
        let storages = entries.flatMap { $0.value.objects.filter { $0.className == "Storage" } }
        #expect(!storages.isEmpty)
        for storage in storages {
            guard case .storage(let type, let elements)? = storage.foundation else {
                Issue.record("Storage layout")
                continue
            }
            #expect(type == "*")
            #expect(elements.count == 3)
        }
        let nib = try Self.graph("TLayer_TLayerDemo.nib_objects.nib")
        let fonts = nib.objects.filter { $0.className == "NSFont" }
        #expect(!fonts.isEmpty)
        for font in fonts {
            guard case .font(let name, let size)? = font.foundation else {
                Issue.record("NSFont layout")
                continue
            }
            #expect(name.hasPrefix("Helvetica") || name.hasPrefix("Lucida") || !name.isEmpty)
            #expect(size > 0)
        }
    }

    /// A known class whose groups are not the expected layout (another version, say) is not mapped, stays a
    /// TypedObject, and writes back unchanged.
    @Test func keepsAKnownClassWithAnotherLayoutAsIs() throws {
        let odd = TypedObject(
            classes: [TypedClass("NSString", version: 9), TypedClass("NSObject", version: 0)],
            groups: [
                TypedGroup(
                    encoding: "ii",
                    values: [.signed(1, type: UInt8(ascii: "i")), .signed(2, type: UInt8(ascii: "i"))]
                )
            ]
        )
        #expect(odd.foundation == nil)
        let archiver = TypedstreamArchiver()
        archiver.encodeObject(odd)
        let bytes = archiver.archivedBytes(byteOrder: .big)
        let graph = try TypedGraph(bytes: bytes)
        #expect(graph.root?.foundation == nil)
        #expect(graph.root?.version(of: "NSString") == 9)
        let same = graph.typedstreamBytes() == bytes
        #expect(same)
    }

    /// A group stores one value in place and several in an array: both read, change and write back alike, through
    /// `values` and through the group as a collection.
    @Test func groupsOfOneAndOfManyValuesBehaveAlike() throws {
        let i = UInt8(ascii: "i")
        var group = TypedGroup(encoding: "i", value: .signed(7, type: i))
        #expect(group.count == 1 && group.values.count == 1 && group.first?.integer == 7)
        group.values.append(.signed(8, type: i))
        group.encoding = "ii"
        #expect(group.map(\.integer) == [7, 8] && group.values.map(\.integer) == [7, 8] && group[1].integer == 8)
        group.values.removeFirst()
        #expect(group.count == 1 && group[0].integer == 8)
        group.values = []
        #expect(group.isEmpty && group.values.isEmpty)
        #expect(TypedGroup(encoding: "@", values: [.nil]).count == 1)

        // Read from a stream, a group of one value and one of two hold what was written, in order.
        let object = TypedObject(
            classes: [TypedClass("Pair", version: 0)],
            groups: [TypedGroup(encoding: "i", value: .signed(1, type: i)), TypedGroup(encoding: "ii", values: [
                .signed(2, type: i), .signed(3, type: i),
            ])])
        let bytes = TypedGraph(groups: [TypedGroup(encoding: "@", value: .object(object))]).typedstreamBytes()
        let read = try #require(try TypedGraph(bytes: bytes).root)
        #expect(read.groups.map(\.encoding) == ["i", "ii"])
        #expect(read.groups.map { $0.map(\.integer) } == [[1], [2, 3]])
        #expect(read.groups.map(\.values.count) == [1, 2])
    }

    @Test(.enabled(if: SharedCorpus.isAvailable, "../shared/corpus is not beside the package"))
    func keepsSharedObjectsAsOneInstance() throws {
        let graph = try Self.graph("crabstep_HugeWithRefs")
        let objects = graph.objects
        #expect(objects.count == 5000)
    }
}

// MARK: - Counts and lengths near the integer limits (issue 17)

extension TypedstreamGraphTests {
    /// A little-endian typedstream whose root is a new object of class `name` (version 0, no superclass)
    /// holding `groups`, each a type encoding (written as a new shared string) and its value bytes.
    static func objectStream(_ name: String, groups: [(types: String, values: [UInt8])]) -> [UInt8] {
        func literal(_ text: String) -> [UInt8] { [0x84, UInt8(text.utf8.count)] + Array(text.utf8) }
        var bytes: [UInt8] = [0x04, 0x0B] + Array("streamtyped".utf8) + [0x81, 0xE8, 0x03]  // header, system 1000
        bytes += literal("@")  // the root group's type: one object
        bytes += [0x84, 0x84] + literal(name) + [0x00, 0x85]  // new object of new class `name` v0, no superclass
        for group in groups { bytes += literal(group.types) + group.values }
        return bytes + [0x86]  // end of object
    }

    /// A tagged 8-byte little-endian integer.
    static func int64(_ value: Int64) -> [UInt8] {
        [0x87] + (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    @Test func dictionaryCountOf2To62IsNotADictionaryLayout() throws {
        // NSDictionary's count, then 2·count objects: 1 + 2 · 2⁶² overflows Int.
        let bytes = Self.objectStream("NSDictionary", groups: [(types: "i", values: Self.int64(1 << 62))])
        let graph = try TypedGraph(bytes: bytes)
        #expect(graph.root?.className == "NSDictionary")
        #expect(graph.root?.foundation == nil)
    }

    @Test func arrayAndHashTableCountsNearInt64MaxAreNotTheirLayouts() throws {
        let array = Self.objectStream("NSArray", groups: [(types: "i", values: Self.int64(.max))])  // 1 + Int64.max
        #expect(try TypedGraph(bytes: array).root?.foundation == nil)
        let table = Self.objectStream(
            "HashTable",
            groups: [
                (types: "i", values: Self.int64(1 << 62)),  // the count: 3 + 2 · 2⁶² overflows
                (types: "%%", values: [0x84, 0x01, 0x40, 0x84, 0x01, 0x40]),  // key and value types: atoms "@"
            ]
        )
        #expect(try TypedGraph(bytes: table).root?.foundation == nil)
    }

    @Test func attributedRunLengthsSummingPastInt64MaxAreRefused() throws {
        let string: [UInt8] =
            [0x84, 0x84, 0x84, 0x08] + Array("NSString".utf8) + [
                0x01, 0x85,  // new object of new class NSString v1, no superclass
                0x84, 0x01, 0x2B, 0x02, 0x68, 0x69,  // group "+": "hi"
                0x86,  // end of the string
            ]
        let bytes = Self.objectStream(
            "NSAttributedString",
            groups: [
                (types: "@", values: string),
                (types: "iI", values: [0x01] + Self.int64(.max)),  // run 1: set 1, Int64.max UTF-16 units
                (types: "@", values: [0x85]),  // set 1's attributes: nil
                (types: "iI", values: [0x01] + Self.int64(.max)),  // run 2: location + length overflows
            ]
        )
        let graph = try TypedGraph(bytes: bytes)
        #expect(graph.root?.foundation == nil)
        let error = #expect(throws: TypedstreamDecodingError.self) { try IMessageText(attributedBody: bytes) }
        #expect(error?.description.contains("layout") == true, "\(error?.description ?? "")")
    }
}

// MARK: - Long chains of objects (issue 17)

extension TypedstreamGraphTests {
    /// `count` top-level objects of class `A`, each holding a reference to the one before: 8 bytes per object.
    static func objectChain(_ count: Int) -> [UInt8] {
        /// A tagged integer in its smallest form (one byte outside the tag range, else 2 or 4 bytes).
        func integer(_ v: Int64) -> [UInt8] {
            if v >= -110 && v <= 127 { return [UInt8(truncatingIfNeeded: v)] }
            let width = Int64(Int16.min)...Int64(Int16.max) ~= v ? 2 : 4
            return [width == 2 ? 0x81 : 0x82] + (0..<width).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) }
        }
        var bytes: [UInt8] = [0x04, 0x0B] + Array("streamtyped".utf8) + [0x81, 0xE8, 0x03]  // header
        bytes += [0x84, 0x01, 0x40]  // group: new shared string #0 "@"
        bytes += [0x84, 0x84, 0x84, 0x01, 0x41, 0x00, 0x85]  // object #0 of new class #1 "A" v0, no superclass
        bytes += [0x92, 0x85, 0x86]  // its group "@" (shared string #0): nil; end of object
        for k in 1..<count {
            let previous = Int64(k == 1 ? 0 : k)  // object k is reference #k+1 (class A took #1)
            bytes += [0x92, 0x84, 0x93]  // group "@": new object of class #1
            bytes += [0x92] + integer(previous - 110) + [0x86]  // its group "@": the previous object; end
        }
        return bytes
    }

    @Test func releasesALongChainOfObjectsWithoutRecursion() throws {
        // 20,000 objects in 160 KB: freeing the graph used to recurse once per link and overflow the stack.
        let graph = try TypedGraph(bytes: Self.objectChain(20_000))
        #expect(graph.groups.count == 20_000)
        #expect(graph.groups.last?.values.first?.object?.groups.first?.values.first?.object != nil)
    }
}

// MARK: - Long class chains (issue 17)

extension TypedstreamGraphTests {
    /// An object whose class chain has `length` literal classes, all named `A` (3 bytes per class).
    static func classChain(_ length: Int) -> [UInt8] {
        var bytes: [UInt8] = [0x04, 0x0B] + Array("streamtyped".utf8) + [0x81, 0xE8, 0x03]  // header
        bytes += [0x84, 0x01, 0x40]  // group: new shared string #0 "@"
        bytes += [0x84]  // new object
        bytes += [0x84, 0x84, 0x01, 0x41, 0x00]  // its class: new class, new shared string #1 "A", version 0
        for _ in 1..<length { bytes += [0x84, 0x93, 0x00] }  // superclass: new class named shared string #1, v0
        return bytes + [0x85, 0x86]  // end of the chain (nil); end of object
    }

    @Test func boundsWhatLongClassChainsStore() throws {
        // Each class entry keeps its own chain: 3,000 classes (9 KB) would store 4.5 million of them.
        let error = #expect(throws: ArchiveError.self) { try TypedGraph(bytes: Self.classChain(3_000)) }
        #expect(error?.code == .limitExceeded)
        #expect(error?.reason.contains("class budget") == true, "\(error.map { "\($0)" } ?? "")")
        // Chains of a realistic length read as before.
        let graph = try TypedGraph(bytes: Self.classChain(20))
        #expect(graph.root?.classes.count == 20)
    }
}

// MARK: - One pass from bytes to graph

extension TypedstreamGraphTests {
    /// Two reads of one stream, each as the bytes its graph writes (header first) or its error.
    typealias Reads = (onePass: Result<[UInt8], ArchiveError>, events: Result<[UInt8], ArchiveError>)

    /// The graph of `bytes` read in one pass, and the graph of the events read whole first.
    static func bothReads(_ bytes: [UInt8]) -> Reads {
        func written(_ graph: TypedGraph) -> [UInt8] {
            // The header too: the one-pass read learns the system version last.
            [graph.byteOrder == .big ? 1 : 0] + Array("\(graph.systemVersion)".utf8) + graph.typedstreamBytes()
        }
        let onePass = Result { () throws(ArchiveError) in written(try TypedGraph(bytes: bytes)) }
        let events = Result { () throws(ArchiveError) in written(try TypedGraph(stream: Typedstream(bytes: bytes))) }
        return (onePass, events)
    }

    static func expectSame(_ reads: Reads, _ what: String) {
        switch reads {
        case (.success(let a), .success(let b)):
            let same = a == b  // not compared inside #expect, which would print both streams
            #expect(same, "\(what): the graphs differ")
        case (.failure(let a), .failure(let b)): #expect("\(a)" == "\(b)", "\(what): \(a) against \(b)")
        default: Issue.record("\(what): \(reads.onePass) against \(reads.events)")
        }
    }

    @Test(.enabled(if: SharedCorpus.isAvailable, "../shared/corpus is not beside the package"), arguments: samples)
    func readsTheSameGraphInOnePass(_ name: String) throws {
        Self.expectSame(Self.bothReads(try SharedCorpus.bytes("typedstream", name)), name)
    }

    /// Cut anywhere, a stream fails in one pass with the error its reader gives (the builder reads what the reader
    /// has checked, batch by batch), or reads the same graph.
    @Test(.enabled(if: SharedCorpus.isAvailable, "../shared/corpus is not beside the package"), arguments: samples)
    func failsInOnePassAsItsReaderFails(_ name: String) throws {
        let bytes = try SharedCorpus.bytes("typedstream", name)
        for cut in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 24)) {
            Self.expectSame(Self.bothReads(Array(bytes[..<cut])), "\(name) cut at \(cut)")
        }
    }

    /// A batch holds 64 events. `k` groups of one integer (3 events each) before a nested object move its events
    /// by 3k, so over 64 values of `k` a batch boundary falls at each of its events: inside its class chain of
    /// three, its group, its end. A class chain of 100 classes spans a boundary whatever comes before it.
    @Test func readsTheSameGraphAcrossEveryBatchBoundary() throws {
        let nested: [UInt8] =
            [0x84]  // a new object
            + [0x84, 0x84, 0x01, 0x43, 0x00, 0x84, 0x84, 0x01, 0x42, 0x00, 0x84, 0x84, 0x01, 0x41, 0x00, 0x85]  // C, B, A
            + [0x84, 0x01, 0x69, 0x07, 0x86]  // its group "i": 7; end of object
        for k in 0..<64 {
            let groups = Array(repeating: (types: "i", values: [UInt8(0x05)]), count: k) + [(types: "@", values: nested)]
            let bytes = Self.objectStream("Root", groups: groups)
            let graph = try TypedGraph(bytes: bytes)
            #expect(graph.root?.groups.last?.values.first?.object?.classes.map(\.name) == ["C", "B", "A"])
            Self.expectSame(Self.bothReads(bytes), "\(k) groups before the nested object")
        }
        Self.expectSame(Self.bothReads(Self.classChain(100)), "a chain of 100 classes")
    }
}
