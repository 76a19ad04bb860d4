// The commands are the `_AutoCodingCommands` library; until the package declares it, these tests build empty.
#if canImport(_AutoCodingCommands)
import AutoCoding
import AutoCodingCodegen
import Foundation
import Testing

@testable import _AutoCodingCommands

/// Findings of the structure-aware fuzz target `keyed` (FuzzTesting/structured-keyed.swift) in the commands' code,
/// rebuilt by code in their smallest form, with the oracle each violated. The object-layer cases are in
/// AutoCodingTests/StructuredFuzzRegressionTests.swift.
@Suite("Structured fuzz regressions (commands)")
struct StructuredFuzzCLIRegressionTests {
    /// What `inspect` prints for `archive`, through the sink the command uses.
    static func inspect(_ archive: KeyedArchive, maxDepth: Int? = nil) throws -> [UInt8] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("structured-fuzz-inspect-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let sink = try OutputSink.file(path)
            try ArchiveTree(archive: archive, maxDepth: maxDepth).write(to: sink)
            try sink.flush()
        }
        return Array(try #require(FileManager.default.contents(atPath: path)))
    }

    /// keyed target (oracle: escape): `inspect` printed the archiver name, class names and keys as they were, so an
    /// archive could send ESC sequences (clear the screen, set the window title) and NUL to the terminal. The
    /// smallest artifact had `$archiver` "NSK\u{1E}y\u{0E}dArchiver"; others had ESC, DEL and NUL in names and keys.
    @Test func inspectEscapesControlCharactersFromTheArchive() throws {
        let archive = KeyedArchive(
            archiver: "NSK\u{1B}[2JArchiver",
            top: ["root": .uid(ArchiveUID(1))],
            objects: [
                .string("$null"),
                .dictionary(["$class": .uid(ArchiveUID(2)), "key\u{0}\u{7F}": .string("value\u{1B}]0;title\u{07}")]),
                .dictionary(["$classname": .string("Evil\u{1B}[31m"), "$classes": .array([.string("Evil\u{1B}[31m"), .string("NSObject")])]),
            ]
        )
        let printed = try Self.inspect(archive)
        #expect(!printed.contains { ($0 < 0x20 && $0 != 0x0A && $0 != 0x09) || $0 == 0x7F })
    }

    /// typed target (oracle: escape): the event text of a typedstream (what `events` and, before the h8-tool merge,
    /// `inspect` printed) carried class names and strings with control characters (NUL, ESC sequences) to the
    /// terminal. `events` prints it through TerminalText.
    @Test func eventsEscapesControlCharactersFromTheStream() throws {
        let object = TypedObject(classes: [TypedClass("Evil\u{1B}[2J", version: 0)], groups: [
            TypedGroup(encoding: "+", values: [.string(Array("\u{0}\u{1B}]0;title\u{07}".utf8))]),
        ])
        let stream = try Typedstream(bytes: TypedGraph(groups: [TypedGroup(encoding: "@", values: [.object(object)])]).typedstreamBytes())
        let printed = TerminalText.escaped(stream.eventText(), keepingNewlines: true)
        #expect(!printed.utf8.contains { ($0 < 0x20 && $0 != 0x0A && $0 != 0x09) || $0 == 0x7F })
    }

    /// typed target (oracle: escape, November 26 campaign): a class name holding a carriage return reached the
    /// terminal through `events`, since keeping newlines kept CR with LF; CR moves the cursor back, so the text
    /// after it printed over the line. Only the line feed is kept now.
    @Test func eventsEscapesCarriageReturnsFromTheStream() throws {
        let object = TypedObject(classes: [TypedClass("Invoice\rpaid", version: 0)], groups: [])
        let stream = try Typedstream(bytes: TypedGraph(groups: [TypedGroup(encoding: "@", values: [.object(object)])]).typedstreamBytes())
        let printed = TerminalText.escaped(stream.eventText(), keepingNewlines: true)
        #expect(!printed.utf8.contains(0x0D))
        #expect(printed.contains(#"\u{D}"#))
        #expect(TerminalText.escaped("a\r\nb", keepingNewlines: true) == #"a\u{D}"# + "\nb")
    }

    /// keyed target (oracle: output; a 2,498-byte archive printed past its 1.3 MB budget, after the h1-crash merge):
    /// `inspect` marks instances it has printed (`↩︎ #uid`) but not plain array and dictionary `$objects` entries, so
    /// such entries print in full at every reference, and a plain array holding a UID to itself prints forever. Here
    /// a 1-entry cycle, cut at depth 2,000 by `--depth`: megabytes from a 60-byte archive. Every repeated node must
    /// print as a reference (or spend from a budget).
    @Test func inspectOfAPlainArrayEntryHoldingItselfStaysWithinTheOutputBudget() throws {
        let archive = KeyedArchive(top: ["root": .uid(ArchiveUID(1))], objects: [.string("$null"), .array([.uid(ArchiveUID(1))])])
        let printed = try Self.inspect(archive, maxDepth: 2_000)
        #expect(printed.count <= 100 * archive.binaryPlist().count + (1 << 20))
    }

    /// keyed target, campaign after the h1/h2/h8 merges (oracle: time; `inspect` took 2 s of CPU for a 115 KB
    /// archive): a class name of 58,000 ESC characters and a key of 56,000 backslashes, printed (escaped) at every
    /// reference and in the class chain. Its output must stay within the output budget.
    @Test func inspectOfLongEscapedNamesPrintsInProportionToTheArchive() throws {
        let name = String(repeating: "\u{1B}", count: 58_000)
        let key = String(repeating: "\\", count: 56_000)
        let archive = KeyedArchive(
            top: ["root": .uid(ArchiveUID(1))],
            objects: [
                .string("$null"),
                .dictionary(["$class": .uid(ArchiveUID(4)), "NS.objects": .array(Array(repeating: .uid(ArchiveUID(2)), count: 8))]),
                .dictionary(["$class": .uid(ArchiveUID(3)), key: .uid(ArchiveUID(2))]),
                .dictionary(["$classname": .string(name), "$classes": .array([.string(name), .string(name), .string("NSObject")])]),
                .dictionary(["$classname": .string("NSArray"), "$classes": .array([.string("NSArray"), .string("NSObject")])]),
            ]
        )
        // A bound on the work instead of a clock (no timed tests): the tree prints the name once per reference,
        // escaped (6 bytes a character), 3.2 MB here, within the output budget.
        let input = archive.binaryPlist().count
        let printed = try Self.inspect(archive)
        #expect(printed.count <= OutputBudget.bytes(forInputBytes: input))
        #expect(printed.count >= 8 * 58_000)
    }

    /// keyed target, campaign after the h8-tool merge (oracle: escape, 17 artifacts): `inspect --classes` escapes
    /// the class table with newlines kept (it is multi-line text), so a class name's own carriage return or line
    /// feed reaches the terminal: "\r" returns to the start of the line and lets a name overwrite what was printed
    /// before it, "\n" forges rows. Names must be escaped before the table is joined.
    @Test func inspectClassesEscapesLineBreaksInClassNames() throws {
        let name = "Innocent\rEvil\nforged row"
        let archive = KeyedArchive(
            top: ["root": .uid(ArchiveUID(1))],
            objects: [
                .string("$null"),
                .dictionary(["$class": .uid(ArchiveUID(2))]),
                .dictionary(["$classname": .string(name), "$classes": .array([.string(name), .string("NSObject")])]),
            ]
        )
        let printed = TerminalText.escaped(ArchiveTree.classTable(archive), keepingNewlines: true)
        #expect(!printed.contains("\r"))
        #expect(!printed.contains("Evil\nforged"))
    }

    /// typed target, campaign after the h1/h2/h8 merges (oracle: time; `json` of a 511 KB attributedBody did not
    /// finish in 30 s, in `JSONLine.appendString` under `TypedstreamJSON.json(_:options:)`): an attribute held an
    /// NSArray of 365 references to one NSString of 70,888 escape characters. `IMessageText` maps it quickly, but
    /// the message JSON prints the string (escaped, 6 bytes a character) at every reference, 155 MB, and is built
    /// whole before `json` compares its size with the output budget. It must refer to the repeated object or
    /// spend from the budget while it is built.
    @Test func typedstreamJSONOfASharedAttributeStringIsBudgetedWhileBuilt() throws {
        let string = TypedObject.string(String(repeating: "\u{1B}", count: 70_888))
        let attributes = TypedObject.dictionary([
            // 439 KB of data, as in the artifact (an embedded keyed archive there): it raises the input size, and
            // with it the budgets that are proportional to it.
            (key: .object(.string("padding")), value: .object(.data(Array(repeating: 0, count: 439_000)))),
            (key: .object(.string(IMessageText.Key.messagePart)), value: .object(.array(Array(repeating: .object(string), count: 365)))),
        ])
        let body = TypedObject.attributedString("hello", runs: [(length: 5, attributes: attributes)])
        let bytes = TypedGraph(groups: [TypedGroup(encoding: "@", values: [.object(body)])]).typedstreamBytes()
        let budget = OutputBudget.bytes(forInputBytes: bytes.count)
        // The text would be 155 MB; building stops once it passes the budget, naming it.
        let error = #expect(throws: ArchiveError.self) {
            try TypedstreamJSON.json(bytes, options: ArchiveReadingOptions(), maxOutputBytes: budget)
        }
        #expect(error?.code == .limitExceeded)
        #expect(error?.reason.contains("maxOutputBytes = \(budget) bytes") == true)
        // Within a budget it fits, the same body prints in full.
        let small = TypedObject.attributedString("hi", runs: [(length: 2, attributes: TypedObject.dictionary([
            (key: .object(.string("k")), value: .object(.array(Array(repeating: .object(.string("\u{1B}")), count: 3)))),
        ]))])
        let smallBytes = TypedGraph(groups: [TypedGroup(encoding: "@", values: [.object(small)])]).typedstreamBytes()
        let text = try TypedstreamJSON.json(smallBytes, options: ArchiveReadingOptions(), maxOutputBytes: 1 << 20)
        #expect(text.contains(#""k":["\u001b","\u001b","\u001b"]"#))
    }

    /// keyed target, campaign after the h1/h2/h8 merges (oracle: output; one `batch --json` record was 25.9 MB for a
    /// 78 KB archive, budget 8.9 MB): 371 objects shared one class descriptor whose `$classes` held 35 KB of names,
    /// and the graph JSON prints the chain with every object; `BatchDecoder` calls the unbudgeted `json()`. The
    /// record must stay within the budget (the chain printed once, or the budgeted writer and an error record).
    @Test func batchJSONOfObjectsSharingALongClassChainStaysWithinTheBudget() throws {
        let chain: [ArchiveValue] = (0..<300).map { .string("Class\($0)" + String(repeating: "x", count: 100)) }
        var objects: [ArchiveValue] = [.string("$null")]
        for i in 1...300 { objects.append(.dictionary(["$class": .uid(ArchiveUID(301)), "next": .uid(ArchiveUID(UInt32(i == 300 ? 0 : i + 1)))])) }
        objects.append(.dictionary(["$classname": .string("App.Node"), "$classes": .array(chain)]))
        let bytes = KeyedArchive(top: ["root": .uid(ArchiveUID(1))], objects: objects).binaryPlist()
        let outcome = BatchDecoder(options: ArchiveReadingOptions(), withJSON: true).decode(bytes)
        // The chain prints with the first object only, so the record is about the size of the archive.
        let json = try #require(outcome.graphJSON)
        #expect(json.components(separatedBy: "Class299").count == 2)
        #expect(json.utf8.count <= 2 * bytes.count)
    }

    /// keyed target (oracle: codegen-escape): codegen copied a key holding a line break ("\0x.y#x.y\n" in the
    /// artifact) into the generated Swift as it was; a class name or key such as "}\nfunc injected() {}" would be
    /// code. Names must become identifiers, and text kept from the archive escaped literals.
    @Test func codegenDoesNotCopyLineBreaksFromTheArchiveIntoSwift() throws {
        let object = ArchivedObject(className: "Evil\nfunc injectedClass() {}", chain: ["Evil\nfunc injectedClass() {}", "NSObject"])
        object.fields["key\n}\nfunc injectedKey() {}"] = .inline(.integer(1))
        let output = ModelCodegen.generate([(name: "evil.archive", graph: ArchiveGraph(roots: ["root": .object(object)]))])
        #expect(!output.source.contains("\nfunc injectedClass() {}"))
        #expect(!output.source.contains("\nfunc injectedKey() {}"))
    }

    /// keyed target (oracle: crash, stack overflow in `ModelInference.infer(_:nested:enqueue:)`): codegen of an
    /// archive whose root NSSet holds itself (the smallest artifact: 227 bytes, `NS.objects` six references to the
    /// set) recursed without end; with three references (129-byte artifact) it ran for minutes instead (the
    /// recursion branches). Codegen must terminate (a memo or a depth limit) and still write a model.
    @Test
    func codegenOfASetContainingItselfTerminates() throws {
        let set = ArchivedObject(className: "NSSet", chain: ["NSSet", "NSObject"])
        set.fields["NS.objects"] = .array(Array(repeating: .object(set), count: 6))
        defer { set.fields = [:] }
        let graph = ArchiveGraph(roots: ["NS.bytes": .object(set)])
        let output = ModelCodegen.generate([(name: "set.archive", graph: graph)])
        #expect(!output.source.isEmpty)
    }
}
#endif
