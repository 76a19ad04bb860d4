import AutoCoding
import Foundation
import Testing

/// Findings of the structure-aware fuzz targets (FuzzTesting/structured-*.swift, scripts/fuzz-structured.sh), issue 17.
///
/// The targets' inputs are programs for a generator, which change meaning whenever the generator does, so each
/// finding is kept here as the archive or stream it built, rebuilt by code in its smallest form, with the oracle it
/// violated. Cases whose fix is not merged yet are disabled (a crash would stop the run) or marked as known issues;
/// the lead enables them after the merge. The command-level cases (inspect, codegen) are in
/// AutoCodingCLITests/StructuredFuzzCLIRegressionTests.swift.
@Suite("Structured fuzz regressions (object layer)")
struct StructuredFuzzRegressionTests {
    /// The output oracle of the targets: 100 × the input + 1 MiB.
    static func budget(_ inputBytes: Int) -> Int { 100 * inputBytes + (1 << 20) }

    // MARK: Writers

    /// keyed and diff targets (oracle: crash, stack overflow in `BPlistWriter.flatten`): a field holding in-place
    /// arrays nested 60,000 deep (what `encode` builds from JSON nested that deep) overflowed the stack of the
    /// binary-plist writer, which recursed once per level. The writer must not recurse; the reader may refuse the
    /// depth.
    @Test(.disabled("fixed by h1-crash (no recursion in BPlistWriter.flatten); enable after the merge"))
    func aValueNested100000DeepWritesWithoutOverflowingTheStack() throws {
        var value = ArchiveValue.string("leaf")
        for _ in 0..<100_000 { value = .array([value]) }
        let bytes = value.binaryPropertyList()
        #expect(bytes.starts(with: Array("bplist00".utf8)))
        #expect(throws: ArchiveError.self) { try ArchiveValue(propertyList: bytes) }
    }

    // MARK: Typedstreams

    /// An `NSAttributedString` stream whose runs are `lengths` long (UTF-16 units), each with the same attribute set.
    static func attributedBody(text: String, lengths: [UInt64]) -> [UInt8] {
        var groups = [TypedGroup(encoding: "@", values: [.object(.string(text))])]
        for (index, length) in lengths.enumerated() {
            groups.append(TypedGroup(encoding: "iI", values: [.signed(1, type: UInt8(ascii: "i")), .unsigned(length, type: UInt8(ascii: "I"))]))
            if index == 0 { groups.append(TypedGroup(encoding: "@", values: [.object(.dictionary([]))])) }
        }
        let body = TypedObject(
            classes: [TypedClass("NSAttributedString", version: 0), TypedClass("NSObject", version: 0)], groups: groups)
        return TypedGraph(groups: [TypedGroup(encoding: "@", values: [.object(body)])]).typedstreamBytes()
    }

    /// typed target (oracle: crash, arithmetic overflow in `TypedObject.attributedString()`): run lengths of
    /// Int64.max and 1 made `location += length` trap when the attributed string was mapped (every command, and
    /// `IMessageText`). The runs must be refused or clamped, not trapped on.
    @Test(.disabled("fixed by h1-crash (checked arithmetic on run locations); enable after the merge"))
    func attributedStringRunsSummingPastIntMaxDoNotTrap() throws {
        let bytes = Self.attributedBody(text: "hello", lengths: [UInt64(Int64.max), 1])
        let graph = try TypedGraph(bytes: bytes)
        _ = graph.root?.foundation
        _ = try? IMessageText(attributedBody: bytes)
    }

    /// typed target (oracle: convert): a stream whose second top-level group holds an array (`[2i]`) or a struct
    /// became a keyed graph with the in-place container under `$top["$1"]`, which every keyed reader refuses
    /// ("$top["$1"] is a container"), so `convert --to keyed` wrote an archive nothing reads. `keyedArchiveGraph()`
    /// must give a graph whose archive reads back (the value wrapped in an object, say), or refuse.
    @Test func theKeyedGraphOfAStreamWithATopLevelArrayReadsBack() throws {
        let graph = TypedGraph(groups: [
            TypedGroup(encoding: "@", values: [.object(.number(Int64(7)))]),
            TypedGroup(encoding: "[2i]", values: [.array([.signed(1, type: UInt8(ascii: "i")), .signed(2, type: UInt8(ascii: "i"))], encoding: "[2i]")]),
        ])
        let keyed = graph.keyedArchiveGraph()
        withKnownIssue("keyedArchiveGraph puts a top-level array in $top; not fixed yet") {
            _ = try ArchiveGraph(bytes: keyed.binaryPlist())
        }
    }

    /// typed target (oracle: memory, 2 GB at `JSONTextSink.appendQuoted`): a 245 KB stream whose array holds one
    /// long NSString object many times printed the string at every reference once converted to a keyed graph (the
    /// conversion makes strings `$objects` scalars, which the JSON writer does not print as `$ref`). Here a 10 KB
    /// string referenced 2,000 times: the JSON must stay within the output budget (or refer to the repeated node).
    @Test func theKeyedGraphOfASharedStringPrintsWithinTheOutputBudget() throws {
        let string = TypedObject.string(String(repeating: "a", count: 10_000))
        let array = TypedObject.array(Array(repeating: .object(string), count: 2_000))
        let bytes = TypedGraph(groups: [TypedGroup(encoding: "@", values: [.object(array)])]).typedstreamBytes()
        let keyed = try TypedGraph(bytes: bytes).keyedArchiveGraph()
        let json = try? keyed.json(prettyPrinted: false)
        withKnownIssue("strings print in full at every reference; fixed by h2-amplify") {
            #expect((json?.utf8.count ?? 0) <= Self.budget(bytes.count))
        }
    }

    /// typed target (oracle: escape): `eventText()` (what `inspect` and `events` print for a typedstream) copied
    /// class names and strings with control characters (NUL, ESC sequences) to the terminal.
    @Test func typedstreamEventTextEscapesControlCharacters() throws {
        let object = TypedObject(classes: [TypedClass("Evil\u{1B}[2J", version: 0)], groups: [
            TypedGroup(encoding: "+", values: [.string(Array("\u{0}\u{1B}]0;title\u{07}".utf8))]),
        ])
        let stream = try Typedstream(bytes: TypedGraph(groups: [TypedGroup(encoding: "@", values: [.object(object)])]).typedstreamBytes())
        let text = stream.eventText()
        withKnownIssue("archive text reaches the terminal unescaped; not fixed yet") {
            #expect(!text.utf8.contains { ($0 < 0x20 && $0 != 0x0A && $0 != 0x09) || $0 == 0x7F })
        }
    }

    /// typed target (oracle: time; `IMessageText` did not return): an attributed string whose attribute value is
    /// a DAG of NSArrays, each holding the next twice (the artifact: 33 objects in 16 KB), was expanded at every
    /// reference down to the depth limit (512): 2^40 values for 40 levels. The text layer must refer to a
    /// repeated object or spend from a budget.
    @Test(.disabled("fixed by h2-amplify (IMessageText expands shared objects once or within a budget); enable after the merge"))
    func anIMessageAttributeHoldingADoublingDAGDecodesQuickly() throws {
        var inner = TypedValue.object(.string("leaf"))
        for _ in 0..<40 { inner = .object(.array([inner, inner])) }
        let attributes = TypedObject.dictionary([(key: .object(.string(IMessageText.Key.messagePart)), value: inner)])
        let body = TypedObject.attributedString("hello", runs: [(length: 5, attributes: attributes)])
        let bytes = TypedGraph(groups: [TypedGroup(encoding: "@", values: [.object(body)])]).typedstreamBytes()
        let start = ContinuousClock.now
        _ = try? IMessageText(attributedBody: bytes)
        #expect(ContinuousClock.now - start < .seconds(1))
    }

    // MARK: Lazy and eager

    /// An archive whose root is a plain array `$objects` entry (not an NSArray instance).
    static let plainArrayRoot = KeyedArchive(top: ["root": .uid(ArchiveUID(1))], objects: [.string("$null"), .array([.integer(1), .integer(2)])])

    /// diff target (oracle: lazy-eager): on a root that is a plain array entry, `[*]` and `[i]` gave the elements
    /// lazily (`get`) and failed eagerly (`get --eager`: "the step does not apply to a array"); the artifact's path
    /// was `$top.root[*][*].next.left["root"]` over an empty array, `[]` lazily. Both readers must give the same result.
    @Test(arguments: ["$top.root[*]", "$top.root[0]"])
    func lazyAndEagerPathsAgreeOnAPlainArrayEntry(path: String) throws {
        let bytes = Self.plainArrayRoot.binaryPlist()
        let lazy = try? LazyKeyedArchive(bytes: bytes).values(at: path).map { $0.json(prettyPrinted: false) }
        let eager = try? ArchiveGraph(bytes: bytes).values(at: ArchivePath(parsing: path)).map { $0.json(prettyPrinted: false) }
        withKnownIssue("lazy and eager paths disagree on plain array entries; not fixed yet") {
            #expect(lazy == eager)
        }
    }

    // MARK: Paths

    /// keyed target (oracle: path): a path's `description` did not parse back for a negative index (`[-1]`), an
    /// empty key (`$top.`) or a key that is not an identifier (`.a.b` reads as two steps). The text `get` is shown
    /// must be the path: quote such keys (`[""]`, `["a.b"]`), and write or refuse negative indices consistently.
    @Test(arguments: [
        [ArchivePath.Step.key("root"), .index(-1)],
        [.key("")],
        [.key("a.b")],
        [.key("root"), .key("x[0]")],
    ])
    func aPathsDescriptionParsesBackToThePath(steps: [ArchivePath.Step]) throws {
        let path = ArchivePath(steps: steps)
        let parsed = try? ArchivePath(parsing: path.description)
        withKnownIssue("ArchivePath.description is not quoted for every key; not fixed yet") {
            #expect(parsed == path)
        }
    }
}
