import AutoCoding
import AutoCodingFast
import Foundation
import OrderedCollections
import Testing
import _AutoCodingTestSupport

@Suite("Archive paths")
struct ArchivePathTests {
    /// Ann, Bob and Cy in an NSArray at `$top.root`; each has `friends` (an NSArray), `best` (Ann ↔ Bob is a
    /// cycle), an inline `age` and an in-place `tags` array; `$top.dict` is an NSDictionary; `$top.count` is
    /// an inline integer; Cy's `best` is `$null`.
    static func people() throws -> LazyKeyedArchive {
        func person(_ name: String, _ age: Int64) -> ArchivedObject {
            let object = ArchivedObject(className: "Person", chain: ["Person", "NSObject"])
            object["name"] = .reference(.string(name))
            object["age"] = .inline(.integer(age))
            object["tags"] = .array([.reference(.string("t-\(name)"))])
            return object
        }
        let (ann, bob, cy) = (person("Ann", 30), person("Bob", 40), person("Cy", 50))
        func array(_ elements: [ArchivedObject]) -> ArchivedValue {
            .object(ArchivedObject(className: "NSArray", chain: ["NSArray", "NSObject"], fields: ["NS.objects": .array(elements.map { .object($0) })]))
        }
        ann["friends"] = array([bob, cy])
        bob["friends"] = array([ann])
        cy["friends"] = array([cy, ann])
        ann["best"] = .object(bob)
        bob["best"] = .object(ann)
        cy["best"] = .null
        let dict = ArchivedObject(
            className: "NSDictionary", chain: ["NSDictionary", "NSObject"],
            fields: ["NS.keys": .array([.reference(.string("alpha")), .reference(.string("beta"))]),
                     "NS.objects": .array([.object(ann), .reference(.integer(2))])])
        let graph = ArchiveGraph(roots: ["root": array([ann, bob, cy]), "dict": .object(dict), "count": .inline(.integer(3))])
        return try LazyKeyedArchive(bytes: graph.binaryPlist())
    }

    static func strings(_ values: [ArchivedValue]) -> [String?] { values.map(\.string) }

    // MARK: Syntax

    @Test(arguments: [
        "$top.root", "$top.root[\"NS.objects\"][3].name", "$top.root[*].friends[0].name", "$top[\"a\\\"b\\\\c\"]",
        "$top.$0.NS", "$top.root[12][*][\"x y\"]",
    ])
    func parsesAndPrintsBack(_ text: String) throws {
        #expect(try ArchivePath(parsing: text).description == text)
    }

    @Test func parsesSteps() throws {
        let path = try ArchivePath(parsing: "$top.root[\"NS.objects\"][3][*].name")
        #expect(path.steps == [.key("root"), .key("NS.objects"), .index(3), .all, .key("name")])
        #expect(path.fansOut)
    }

    @Test(arguments: [
        ("$top.", 5, "expected a key after '.'"), ("$top[-]", 6, "expected digits after '-'"),
        ("$top[-99999999999999999999]", 24, "index too large"),
        ("$top.a..b", 7, "expected a key after '.'"), ("$topx", 4, "expected '.' or '['"),
        ("$top[", 5, "expected *, an index or a quoted key after '['"), ("$top[x]", 5, "expected *, an index or a quoted key after '['"),
        ("$top[\"abc", 9, "unterminated quoted key"), ("$top[\"a\\b\"]", 8, "only \\\" and \\\\ may follow a backslash"),
        ("$top[3", 6, "expected ']'"), ("$top[*x]", 6, "expected ']'"), ("$top[99999999999999999999]", 23, "index too large"),
    ])
    func rejectsMalformedPaths(_ text: String, _ offset: Int, _ reason: String) {
        let error = #expect(throws: ArchivePathError.self) { try ArchivePath(parsing: text) }
        #expect(error?.offset == offset)
        #expect(error?.reason == reason)
        #expect(error?.step == nil)
        #expect(error?.code == .invalidSyntax)
        #expect(error?.description == "invalidSyntax: \(text): at byte \(offset): \(reason)")
    }

    // MARK: Evaluation

    @Test func followsKeysIndexesAndUIDs() throws {
        let archive = try Self.people()
        #expect(Self.strings(try archive.values(at: "$top.root[\"NS.objects\"][1].name")) == ["Bob"])
        #expect(Self.strings(try archive.values(at: "$top.root[1].name")) == ["Bob"])
        #expect(try archive.values(at: "$top.root[2].age").map(\.int) == [50])
        #expect(Self.strings(try archive.values(at: "$top.root[0].tags[0]")) == ["t-Ann"])
        #expect(try archive.values(at: "$top.count").map(\.int) == [3])
        #expect(try archive.values(at: "$top[\"count\"]").map(\.int) == [3])
        #expect(try archive.values(at: "$top[*]").count == 3)
    }

    @Test func indexesDictionaryElementsByKey() throws {
        let archive = try Self.people()
        #expect(Self.strings(try archive.values(at: "$top.dict[\"alpha\"].name")) == ["Ann"])
        #expect(try archive.values(at: "$top.dict[\"beta\"]").map(\.int) == [2])
        // A stored key wins over an element key; `.key` and `["key"]` are one step.
        #expect(try archive.values(at: "$top.dict[\"NS.keys\"][1]").map(\.string) == ["beta"])
        #expect(Self.strings(try archive.values(at: "$top.dict.alpha.name")) == ["Ann"])
        #expect(Self.strings(try archive.values(at: "dict.alpha.name")) == ["Ann"])
        // On an NSDictionary a number is a key, never a position (as plutil reads a dictionary).
        let error = #expect(throws: ArchivePathError.self) { try archive.values(at: "$top.dict.0") }
        #expect(error?.reason == ".0: NSDictionary instance (UID 2) has no key \"0\"")
    }

    @Test func keyPathsAndNegativeIndicesReachTheSameValues() throws {
        let archive = try Self.people()
        #expect(Self.strings(try archive.values(at: "root.1.name")) == ["Bob"])
        #expect(Self.strings(try archive.values(at: "root.-1.name")) == ["Cy"])
        #expect(Self.strings(try archive.values(at: "$top.root[-1].name")) == ["Cy"])
        #expect(Self.strings(try archive.values(at: "$top.root[-3].friends[-1].name")) == ["Cy"])
        #expect(Self.strings(try archive.values(at: "root.0.tags.0")) == ["t-Ann"])
        #expect(Self.strings(try archive.values(at: "root.NS\\.objects.2.name")) == ["Cy"])
        #expect(try archive.values(at: "count").map(\.int) == [3])
        let error = #expect(throws: ArchivePathError.self) { try archive.values(at: "$top.root[-4]") }
        #expect(error?.reason == "[-4]: index -4 counts back past the first of the 3 elements of NSArray instance (UID 1)")
        let keyPath = #expect(throws: ArchivePathError.self) { try archive.values(at: "root.3") }
        #expect(keyPath?.code == .stepNotApplicable)
        #expect(keyPath?.message == "$top.root.3: step 2: .3: index 3 is beyond the 3 elements of NSArray instance (UID 1)")
    }

    @Test func fansOut() throws {
        let archive = try Self.people()
        #expect(Self.strings(try archive.values(at: "$top.root[*].name")) == ["Ann", "Bob", "Cy"])
        #expect(Self.strings(try archive.values(at: "$top.root[*].friends[0].name")) == ["Bob", "Ann", "Cy"])
        #expect(Self.strings(try archive.values(at: "$top.root[*].friends[*].name")) == ["Bob", "Cy", "Ann", "Cy", "Ann"])
        #expect(try archive.values(at: "$top.root[0].tags[*]").count == 1)
    }

    @Test func walksAroundCycles() throws {
        let archive = try Self.people()
        #expect(Self.strings(try archive.values(at: "$top.root[0].best.best.best.best.name")) == ["Ann"])
        #expect(Self.strings(try archive.values(at: "$top.root[2].friends[0].friends[0].friends[1].name")) == ["Ann"])
        // The value of a cyclic object is finite: its second appearance is a reference.
        let ann = try #require(try archive.values(at: "$top.root[0]").first)
        let json = ann.json(prettyPrinted: false)
        #expect(json.hasPrefix("{\"$class\":\"Person\",\"$classes\":[\"Person\",\"NSObject\"],\"$uid\":1,\"name\":\"Ann\""))
        #expect(json.contains("{\"$ref\":1}"))
        #expect(ann.object?["best"]?.object?["best"]?.object === ann.object)
    }

    @Test func touchesOnlyTheObjectsOnThePath() throws {
        let archive = try Self.people()
        #expect(try archive.values(at: "$top.root[1].age").map(\.int) == [40])
        let touched = archive.touchedUIDs
        // The root NSArray, Bob, and their two class descriptors; no other person, name or tag.
        #expect(touched.count == 4)
        let classes = try touched.compactMap { try archive.archiveClass(of: $0)?.name }
        #expect(classes.sorted() == ["NSArray", "Person"])
    }

    // MARK: Errors name the step

    @Test(arguments: [
        ("$top", 0, "$top is not a value; add a step such as .root"),
        ("$top.nothing", 1, ".nothing: $top has no key \"nothing\" (keys: root, dict, count)"),
        ("$top[0]", 1, "[0]: $top holds keys; [0] does not name one"),
        ("$top[*].name", 2, ".name: NSArray instance (UID 1) has no key \"name\" (branch 0 of the fan-out)"),
        ("$top.root.name", 2, ".name: NSArray instance (UID 1) has no key \"name\""),
        ("$top.root[3]", 2, "[3]: index 3 is beyond the 3 elements of NSArray instance (UID 1)"),
        ("$top.root[0].name.length", 4, ".length: a string (UID 8) has no keys"),
        ("$top.root[0][0]", 3, "[0]: Person instance (UID 5) is neither an array nor an NSArray/NSDictionary-like instance"),
        ("$top.root[2].best.name", 4, ".name: the value is $null (UID 0)"),
        ("$top.count.x", 2, ".x: an integer (in place) has no keys"),
        ("$top.root[*].best.name", 4, ".name: the value is $null (UID 0) (branch 2 of the fan-out)"),
        ("$top.root[0][*]", 3, "[*]: Person instance (UID 5) is neither an array nor an NSArray/NSDictionary-like instance"),
    ])
    func reportsTheStepAtFault(_ text: String, _ step: Int, _ reason: String) throws {
        let archive = try Self.people()
        let error = #expect(throws: ArchivePathError.self) { try archive.values(at: text) }
        #expect(error?.step == step)
        #expect(error?.reason == reason)
        #expect(error?.code == .stepNotApplicable)
        #expect(error?.description == "stepNotApplicable: \(text): step \(step): \(reason)")
    }

    @Test func reportsArchiveDamageAtTheStep() throws {
        let objects: [ArchiveValue] = [
            .string("$null"), .dictionary(["$class": .uid(ArchiveUID(2)), "next": .uid(ArchiveUID(9))]),
            ArchiveClass(name: "Node").descriptor,
        ]
        let bytes = KeyedArchive(top: ["root": .uid(ArchiveUID(1))], objects: objects).binaryPlist()
        let archive = try LazyKeyedArchive(bytes: bytes)
        let error = #expect(throws: ArchivePathError.self) { try archive.values(at: "$top.root.next.next") }
        #expect(error?.step == 3)
        #expect(error?.code == .invalidArchive)
        #expect(error?.archiveError?.code == .invalidUID)
    }

    // MARK: Lazy and eager agree

    /// The lazy walk and the decoded graph give the same answers, and the lazy graph of each `$top` entry is
    /// graph-equal to the eager decode: on the people archive and on every corpus archive.
    @Test func lazyAndEagerPathsAgreeOnThePeople() throws {
        let graph = ArchiveGraph(roots: try Self.people().values(at: "$top.root").first.map { ["root": $0] } ?? [:])
        let lazy = try LazyKeyedArchive(bytes: graph.binaryPlist())
        for text in [
            "$top.root[*].name", "$top.root[0].best.best", "$top.root[2].friends[*].age", "$top.root[\"NS.objects\"][1]",
            "root.-1.friends.0", "$top.root[-2].tags[*]", "root.0.friends.1.name",
        ] {
            let path = try ArchivePath(parsing: text)
            let a = ArchiveGraph(roots: ["v": .array(try lazy.values(at: path))])
            let b = ArchiveGraph(roots: ["v": .array(try graph.values(at: path))])
            #expect(a.isEquivalent(to: b), "\(text)")
        }
        // Failures too: the same step and the same reason, but for the UIDs a decoded graph no longer knows.
        for text in ["$top.root[3]", "$top.root[-4]", "root.0.name.x", "root.2.best.name", "$top.nothing", "root.0.0", "$top[0]"] {
            let path = try ArchivePath(parsing: text)
            let a = #expect(throws: ArchivePathError.self) { try lazy.values(at: path) }
            let b = #expect(throws: ArchivePathError.self) { try graph.values(at: path) }
            #expect(a?.step == b?.step, "\(text)")
            let withoutUIDs = a?.reason.replacing(/\s\(UID \d+\)/, with: "")
            #expect(withoutUIDs == b?.reason, "\(text)")
        }
    }

    @Test(.enabled(if: SharedCorpus.isAvailable, "../shared/corpus is not beside the package"))
    func lazyTopEntriesAreGraphEqualToTheEagerDecodeOnTheCorpus() throws {
        var compared = 0
        for name in SharedCorpus.files(in: "apple") {
            let bytes = try SharedCorpus.bytes("apple", name)
            guard let eager = try? ArchiveGraph(bytes: bytes) else { continue }
            let lazy = try LazyKeyedArchive(bytes: bytes)
            // One walk for all entries, so objects shared between `$top` entries stay shared.
            let roots = OrderedDictionary(uniqueKeysWithValues: zip(try lazy.topKeys(), try lazy.values(at: "$top[*]")))
            #expect(ArchiveGraph(archiver: lazy.archiver, roots: roots).isEquivalent(to: eager), "\(name)")
            compared += 1
        }
        #expect(compared > 40)
    }
}
