#if canImport(_AutoCodingCommands)
import AutoCoding
import Foundation
import OrderedCollections
import Testing
import _AutoCodingTestSupport

@testable import AutoCodingCodegen
@testable import _AutoCodingCommands

/// What the commands print for hostile archives built in code: bounded, escaped, and never code.
@Suite("Hostile archives: bounded, escaped output")
struct HostileOutputTests {
    static let evil = "\"\n}\nfunc evil() {}\n//"

    /// An archive whose root instance's class name and one key carry `text`, and whose other field holds an
    /// NSSet that contains itself.
    static func archive(carrying text: String) -> KeyedArchive {
        KeyedArchive(
            top: ["root": .uid(ArchiveUID(1))],
            objects: [
                .string("$null"),
                .dictionary(["$class": .uid(ArchiveUID(2)), text: .uid(ArchiveUID(3)), "set": .uid(ArchiveUID(4))]),
                .dictionary(["$classname": .string("Bad" + text), "$classes": .array([.string("Bad" + text), .string("NSObject")])]),
                .string("value" + text),
                .dictionary(["$class": .uid(ArchiveUID(5)), "NS.objects": .array([.uid(ArchiveUID(4))])]),
                .dictionary(["$classname": .string("NSSet"), "$classes": .array([.string("NSSet"), .string("NSObject")])]),
            ])
    }

    @Test func codegenKeepsArchiveTextInsideLiteralsAndComments() throws {
        let graph = try ArchiveGraph(archive: Self.archive(carrying: Self.evil))
        let source = ModelCodegen.generate([(name: "evil\n}\nfunc fileEvil() {}", graph: graph)]).source
        // No line of the source is the injected code: it only appears escaped, inside a literal or a comment.
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(!lines.contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix("func evil()") })
        #expect(!lines.contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix("func fileEvil()") })
        for line in lines where line.contains("func evil()") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            #expect(trimmed.hasPrefix("//") || line.contains(#"\u{A}}\u{A}func evil() {}\u{A}//""#), "\(line)")
        }
        #expect(source.contains(#"static var archiveClassName: String { "Bad\"\u{A}}\u{A}func evil() {}\u{A}//" }"#))
        #expect(ModelSource.literal("a\u{1B}b\r\"\\") == #""a\u{1B}b\u{D}\"\\""#)
        #expect(ModelSource.comment("x */ y\n z") == #"x * / y\u{A} z"#)
    }

    @Test func codegenEndsOnADAGOfCollections() throws {
        // 40 NSArrays, each holding the next twice: 2⁴⁰ paths without a memo.
        var objects: [ArchiveValue] = [
            .string("$null"),
            .dictionary(["$classname": .string("NSArray"), "$classes": .array([.string("NSArray"), .string("NSObject")])]),
            .dictionary(["$classname": .string("Holder"), "$classes": .array([.string("Holder"), .string("NSObject")])]),
            .dictionary(["$class": .uid(ArchiveUID(2)), "items": .uid(ArchiveUID(4))]),
        ]
        for level in 0..<40 {
            let next = ArchiveValue.uid(ArchiveUID(UInt32(5 + level)))
            objects.append(.dictionary(["$class": .uid(ArchiveUID(1)), "NS.objects": .array(level == 39 ? [] : [next, next])]))
        }
        let graph = try ArchiveGraph(archive: KeyedArchive(top: ["root": .uid(ArchiveUID(3))], objects: objects))
        let start = ContinuousClock.now
        let source = ModelCodegen.generate([(name: "dag", graph: graph)]).source
        #expect(source.contains("final class Holder"))
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test func terminalTextEscapesControls() {
        #expect(TerminalText.escaped("a\u{1B}[2Jb\u{7F}\u{9B}\tc\nd") == #"a\u{1B}[2Jb\u{7F}\u{9B}"# + "\tc" + #"\u{A}d"#)
        #expect(TerminalText.escaped("x\ny", keepingNewlines: true) == "x\ny")
        #expect(TerminalText.escaped("plain é ✓") == "plain é ✓")
    }

    @Test func inspectAndValidateEscapeArchiveText() throws {
        let scratch = try TemporaryDirectory()
        let path = scratch.path("escape.plist")
        try Data(Self.archive(carrying: "\u{1B}]52;c;aGk=\u{7}").binaryPlist()).write(to: URL(fileURLWithPath: path))
        for arguments in [["inspect", path], ["validate", path]] {
            let result = try CLI.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(!result.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
            #expect(result.stdout.contains(#"\u{1B}]52"#))
        }
    }

    @Test func inspectIndentationStopsGrowing() throws {
        // A chain of 3,000 objects: with 3 characters per level the tree would be 13 MB.
        var objects: [ArchiveValue] = [
            .string("$null"),
            .dictionary(["$classname": .string("Link"), "$classes": .array([.string("Link"), .string("NSObject")])]),
        ]
        let length = 3_000
        for i in 0..<length {
            objects.append(.dictionary(["$class": .uid(ArchiveUID(1)), "next": .uid(ArchiveUID(i == length - 1 ? 0 : UInt32(i + 3)))]))
        }
        let scratch = try TemporaryDirectory()
        let path = scratch.path("chain.plist")
        try Data(KeyedArchive(top: ["root": .uid(ArchiveUID(2))], objects: objects).binaryPlist()).write(to: URL(fileURLWithPath: path))
        let result = try CLI.run(["inspect", path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.utf8.count < length * 200)
        #expect(result.stdout.contains("(depth 2999)"))
    }

    @Test func jsonAndInspectReadStandardInputAndHonourTheBudget() throws {
        let xml = String(decoding: try Self.archive(carrying: "x").xmlPlist(), as: UTF8.self)
        let json = try CLI.run(["json", "-"], input: xml)
        #expect(json.status == 0, "\(json.stderr)")
        #expect(json.stdout.contains(#""$class": "Badx""#))
        let inspect = try CLI.run(["inspect", "-"], input: xml)
        #expect(inspect.status == 0 && inspect.stdout.contains("Badx"))
        let tight = try CLI.run(["json", "--max-output-bytes", "10", "-"], input: xml)
        #expect(tight.status == 1 && tight.stdout.isEmpty)
        #expect(tight.stderr.contains("maxOutputBytes = 10"))
    }
}
#endif
