import AutoCoding
import AutoCodingFast
import Foundation
import Testing

@Suite("Archive path syntax")
struct ArchivePathSyntaxTests {
    /// Pieces of keys that a printer can get wrong: separators, quotes, escapes, brackets, spaces, controls,
    /// digits and signs (which read as indices in key paths), the `$top` prefix, non-ASCII letters and marks.
    static let pieces = [
        "", ".", "[", "]", "\"", "\\", " ", "*", "[*]", "[0]", "\"]", "\\\"", "$top", "$", "0", "-1", "12", "-",
        "+", ":", "/", "@", "a", "Z", "_", "NS.objects", "é", "名前", "🙂", "\u{301}", "\n", "\t", "\u{1B}[2J",
        "\u{202E}", "'", "\u{0}", "a b",
    ]

    /// A deterministic generator (a 64-bit LCG), so a failure names a path that reproduces.
    struct Generator {
        var state: UInt64
        mutating func next(below n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
    }

    /// Every key of up to three pieces, and random paths mixing them with indices (negative ones too) and
    /// `[*]`: the printed path parses back to an equal path, and printing that gives the same text.
    @Test func everyPrintedPathParsesBackToAnEqualPath() throws {
        var keys = Self.pieces
        for a in Self.pieces { for b in Self.pieces { keys.append(a + b) } }
        var generator = Generator(state: 17)
        for _ in 0..<2000 { keys.append((0..<3).map { _ in Self.pieces[generator.next(below: Self.pieces.count)] }.joined()) }
        var checked = 0
        for key in keys {
            let path = ArchivePath(steps: [.key(key)])
            let parsed = try ArchivePath(parsing: path.description)
            #expect(parsed == path, "\(path.description.debugDescription)")
            #expect(parsed.description == path.description)
            checked += 1
        }
        let indices = [0, 1, -1, 42, -42, Int.max, Int.min]
        for _ in 0..<2000 {
            let steps: [ArchivePath.Step] = (0..<(1 + generator.next(below: 5))).map { _ in
                switch generator.next(below: 3) {
                case 0: .key(keys[generator.next(below: keys.count)])
                case 1: .index(indices[generator.next(below: indices.count)])
                default: .all
                }
            }
            let path = ArchivePath(steps: steps)
            #expect(try ArchivePath(parsing: path.description) == path, "\(path.description.debugDescription)")
            checked += 1
        }
        #expect(checked == keys.count + 2000)
    }

    @Test(arguments: [
        ("root", "$top.root"), ("name", "$top.name"), ("a.b", "$top[\"a.b\"]"), ("", "$top[\"\"]"), ("0", "$top.0"),
        ("-1", "$top.-1"), ("NS.objects", "$top[\"NS.objects\"]"), ("x y", "$top[\"x y\"]"), ("名前", "$top.名前"),
        ("a\"b", "$top[\"a\\\"b\"]"), ("a\\b", "$top[\"a\\\\b\"]"), ("*", "$top[\"*\"]"), ("$class", "$top.$class"),
    ])
    func plainNamesPrintBareAndOthersQuoted(_ key: String, _ text: String) {
        #expect(ArchivePath(steps: [.key(key)]).description == text)
    }

    // MARK: Key paths

    @Test func keyPathsAreKeyStepsFromTop() throws {
        #expect(try ArchivePath(parsing: "root.0.name").steps == [.key("root"), .key("0"), .key("name")])
        #expect(try ArchivePath(parsing: "root.0.name") == ArchivePath(parsing: "$top.root.0.name"))
        #expect(try ArchivePath(parsing: "root.NS\\.objects.-1").steps == [.key("root"), .key("NS.objects"), .key("-1")])
        #expect(try ArchivePath(parsing: "a\\\\b").steps == [.key("a\\b")])
        // Brackets and `*` are key characters in a key path: the `$top` syntax has the steps they name.
        #expect(try ArchivePath(parsing: "root[0].*").steps == [.key("root[0]"), .key("*")])
        #expect(try ArchivePath(keyPath: "$top.x").steps == [.key("$top"), .key("x")])
        #expect(try ArchivePath(parsing: "$top.x").steps == [.key("x")])
        #expect(try ArchivePath(parsing: "root.0.name").description == "$top.root.0.name")
    }

    @Test(arguments: [
        ("", 0, "empty path: write a key path such as root.name, or a path such as $top.root"),
        (".root", 0, "expected a key (a key path has no empty keys; write $top[\"\"] for one)"),
        ("root.", 5, "expected a key (a key path has no empty keys; write $top[\"\"] for one)"),
        ("root..name", 5, "expected a key (a key path has no empty keys; write $top[\"\"] for one)"),
        ("a\\b", 2, "only \\. and \\\\ may follow a backslash in a key path"),
        ("a\\", 2, "only \\. and \\\\ may follow a backslash in a key path"),
        ("$topx", 4, "expected '.' or '['"),
    ])
    func rejectsMalformedKeyPaths(_ text: String, _ offset: Int, _ reason: String) {
        let error = #expect(throws: ArchivePathError.self) { try ArchivePath(parsing: text) }
        #expect(error?.code == .invalidSyntax)
        #expect(error?.offset == offset)
        #expect(error?.reason == reason)
    }

    // MARK: Property lists

    static let plist = ArchiveValue.dictionary([
        "items": .array([.dictionary(["name": .string("first")]), .dictionary(["name": .string("last")])]),
        "count": .integer(2), "a.b": .bool(true),
    ])

    @Test func propertyListPathsStartAtTheRoot() throws {
        #expect(try Self.plist.values(at: ArchivePath(parsing: "items.0.name")) == [.string("first")])
        #expect(try Self.plist.values(at: ArchivePath(parsing: "items.-1.name")) == [.string("last")])
        #expect(try Self.plist.values(at: ArchivePath(parsing: "$top.items[*].name")) == [.string("first"), .string("last")])
        #expect(try Self.plist.values(at: ArchivePath(parsing: "$top[\"a.b\"]")) == [.bool(true)])
        #expect(try Self.plist.values(at: ArchivePath(parsing: "$top")) == [Self.plist])
        #expect(try Self.plist.values(at: ArchivePath(parsing: "$top[*]")).count == 3)
    }

    @Test(arguments: [
        ("items.2", 2, ".2: index 2 is beyond the 2 elements of an array"),
        ("items.x", 2, ".x: an array has no keys; a key on an array must be an index"),
        ("$top.items[-3]", 2, "[-3]: index -3 counts back past the first of the 2 elements of an array"),
        ("count.x", 2, ".x: an integer has no keys"),
        ("$top[0]", 1, "[0]: a dictionary is neither an array nor an NSArray/NSDictionary-like instance"),
        ("nothing", 1, ".nothing: a dictionary has no key \"nothing\""),
    ])
    func propertyListErrorsNameTheStep(_ text: String, _ step: Int, _ reason: String) throws {
        let error = #expect(throws: ArchivePathError.self) { try Self.plist.values(at: ArchivePath(parsing: text)) }
        #expect(error?.code == .stepNotApplicable)
        #expect(error?.step == step)
        #expect(error?.reason == reason)
    }

    // MARK: Raw text

    @Test func rawTextIsPlutilsRawForm() throws {
        #expect(ArchiveValue.string("a \"b\"\n").rawText == "a \"b\"\n")
        #expect(ArchiveValue.integer(-3).rawText == "-3")
        #expect(ArchiveValue.unsignedInteger(.max).rawText == "18446744073709551615")
        #expect(ArchiveValue.real(2.5).rawText == "2.5")
        #expect(ArchiveValue.real(2).rawText == "2.0")
        #expect(ArchiveValue.real(.infinity).rawText == "inf")
        #expect(ArchiveValue.bool(false).rawText == "false")
        #expect(ArchiveValue.date(Date(timeIntervalSinceReferenceDate: 0)).rawText == "2001-01-01T00:00:00Z")
        #expect(ArchiveValue.data([1, 2, 255]).rawText == "AQL/")
        #expect(ArchiveValue.uid(ArchiveUID(7)).rawText == "7")
        #expect(ArchiveValue.array([.integer(1)]).rawText == nil)
        #expect(ArchiveValue.dictionary([:]).rawText == nil)
        #expect(ArchivedValue.reference(.string("x")).rawText == "x")
        #expect(ArchivedValue.inline(.integer(4)).rawText == "4")
        #expect(ArchivedValue.null.rawText == nil)
        let string = ArchivedObject(className: "NSMutableString", chain: ["NSMutableString", "NSString", "NSObject"])
        string["NS.string"] = .reference(.string("mutable"))
        #expect(ArchivedValue.object(string).rawText == "mutable")
        let date = ArchivedObject(className: "NSDate", chain: ["NSDate", "NSObject"], fields: ["NS.time": .inline(.real(86400))])
        #expect(ArchivedValue.object(date).rawText == "2001-01-02T00:00:00Z")
        #expect(ArchivedValue.object(ArchivedObject(className: "Person")).rawText == nil)
    }
}
