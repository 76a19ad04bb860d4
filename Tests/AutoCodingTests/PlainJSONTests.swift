import AutoCoding
import AutoCodingFast
import Foundation
import OrderedCollections
import Testing
import _AutoCodingTestSupport

@Suite("Plain JSON")
struct PlainJSONTests {
    static let budget = 1 << 20

    /// The plain JSON of an archive made by the encoder, compact.
    static func plain<T: Encodable>(_ value: T, options: PlainJSONOptions = .init()) throws -> String {
        let graph = try ArchiveGraph(bytes: try KeyedArchiveEncoder().encodeBytes(value))
        return try graph.plainJSON(prettyPrinted: false, options: options, maxOutputBytes: budget)
    }

    static func parse(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }

    // MARK: Foundation values

    @Test func printsFoundationValuesAsJSONValues() throws {
        struct Values: Codable {
            var date = Date(timeIntervalSinceReferenceDate: 0.5)
            var data: Data = Data([1, 2, 3])
            var id = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
            var link = URL(string: "https://example.org/a?b=1")!
            var names = ["Ann", "Bo"]
            var tags: Set<String> = ["x"]
            var ratio = 0.25
            var flag = true
        }
        #expect(
            try Self.plain(Values())
                == #"{"root":{"date":"2001-01-01T00:00:00.500Z","data":"AQID","id":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","#
                + #""link":"https://example.org/a?b=1","names":["Ann","Bo"],"tags":["x"],"ratio":0.25,"flag":true}}"#)
    }

    @Test func printsRangesAndGeometryAsObjects() throws {
        struct Shapes: Codable {
            var range = ArchiveRange(location: 3, length: 9)
            var point = ArchivePoint(x: 1.5, y: -2)
            var size = ArchiveSize(width: 640, height: 480)
            var rect = ArchiveRect(x: 0.1, y: 0.2, width: 30, height: 40)
        }
        #expect(
            try Self.plain(Shapes())
                == #"{"root":{"range":{"location":3,"length":9},"point":{"x":1.5,"y":-2.0},"#
                + #""size":{"width":640.0,"height":480.0},"rect":{"x":0.1,"y":0.2,"width":30.0,"height":40.0}}}"#)
    }

    @Test func printsAURLRelativeToItsBase() throws {
        let base = ArchivedObject(className: "NSURL", fields: ["NS.base": .null, "NS.relative": .reference(.string("https://example.org/dir/"))])
        let url = ArchivedObject(className: "NSURL", fields: ["NS.base": .object(base), "NS.relative": .reference(.string("page.html"))])
        let json = try ArchiveGraph(root: .object(url)).plainJSON(prettyPrinted: false, maxOutputBytes: Self.budget)
        #expect(json == #"{"root":"https://example.org/dir/page.html"}"#)
    }

    // MARK: Dictionaries

    @Test func printsStringKeyedDictionariesAsObjects() throws {
        #expect(try Self.plain(["b": 1]) == #"{"root":{"b":1}}"#)
    }

    @Test func printsNumberKeysAsTheirText() throws {
        #expect(try Self.plain([7: "seven"]) == #"{"root":{"7":"seven"}}"#)
    }

    /// Keys that are not strings or numbers, or whose texts collide (`1` and `"1"`), print as key–value pairs.
    @Test func printsOtherKeysAsPairs() throws {
        let dictionary = ArchivedObject(
            className: "NSDictionary",
            fields: [
                "NS.keys": .array([.inline(.integer(1)), .reference(.string("1"))]),
                "NS.objects": .array([.reference(.string("one")), .reference(.string("uno"))]),
            ])
        let json = try ArchiveGraph(root: .object(dictionary)).plainJSON(prettyPrinted: false, maxOutputBytes: Self.budget)
        #expect(json == #"{"root":[{"key":1,"value":"one"},{"key":"1","value":"uno"}]}"#)
    }

    // MARK: Objects, sharing and cycles

    /// The issue's jq case: `.root[].name` gives every name, including those of objects referenced twice.
    @Test func sharedObjectsPrintInFullAtEveryReference() throws {
        let ann = ArchivedObject(className: "Person", fields: ["name": .reference(.string("Ann"))])
        let bo = ArchivedObject(className: "Person", fields: ["name": .reference(.string("Bo")), "friend": .object(ann)])
        let array = ArchivedObject(className: "NSArray", fields: ["NS.objects": .array([.object(ann), .object(bo), .object(ann)])])
        let json = try ArchiveGraph(root: .object(array)).plainJSON(maxOutputBytes: Self.budget)
        let root = try #require(try Self.parse(json) as? [String: Any])["root"] as? [[String: Any]]
        #expect(root?.map { $0["name"] as? String } == ["Ann", "Bo", "Ann"])
        #expect((root?[1]["friend"] as? [String: Any])?["name"] as? String == "Ann")
    }

    @Test func cutsCyclesWithAMarker() throws {
        let node = ArchivedObject(className: "Node", fields: ["label": .reference(.string("a"))])
        node["next"] = .object(node)
        let json = try ArchiveGraph(root: .object(node)).plainJSON(prettyPrinted: false, maxOutputBytes: Self.budget)
        #expect(json == #"{"root":{"label":"a","next":{"$cycle":"Node"}}}"#)
        node.fields = [:]
    }

    @Test func printsClassNamesOnlyWhenAsked() throws {
        let node = ArchivedObject(className: "App.Note", fields: ["title": .reference(.string("t"))])
        let graph = ArchiveGraph(root: .object(node))
        #expect(try graph.plainJSON(prettyPrinted: false, maxOutputBytes: Self.budget) == #"{"root":{"title":"t"}}"#)
        let named = try graph.plainJSON(
            prettyPrinted: false, options: PlainJSONOptions(includesClassNames: true), maxOutputBytes: Self.budget)
        #expect(named == #"{"root":{"$class":"App.Note","title":"t"}}"#)
    }

    @Test func printsAttributedStringsAsTextOrRuns() throws {
        let text = ArchiveAttributedString(
            string: "héllo world",
            runs: [.init(range: 0..<5, attributes: ["Bold": true]), .init(range: 5..<11, attributes: ["Size": 12.5])])
        let graph = try ArchiveGraph(bytes: [UInt8](try KeyedArchiver.archivedData(withRootObject: text)))
        #expect(try graph.plainJSON(prettyPrinted: false, maxOutputBytes: Self.budget) == #"{"root":"héllo world"}"#)
        let runs = try graph.plainJSON(
            prettyPrinted: false, options: PlainJSONOptions(includesAttributeRuns: true), maxOutputBytes: Self.budget)
        #expect(
            runs == #"{"root":{"text":"héllo world","runs":[{"location":0,"length":5,"attributes":{"Bold":true}},"#
                + #"{"location":5,"length":6,"attributes":{"Size":12.5}}]}}"#)
    }

    // MARK: Budget

    /// A DAG of 40 arrays, each holding the next twice, expands to 2^40 leaves: the budget stops it, with an
    /// error naming the budget, after about as much work as the budget's size.
    @Test func aDoublingDAGStopsAtTheBudget() throws {
        var inner = ArchivedValue.reference(.string("leaf"))
        for _ in 0..<40 {
            inner = .object(ArchivedObject(className: "NSArray", fields: ["NS.objects": .array([inner, inner])]))
        }
        let graph = ArchiveGraph(root: inner)
        let error = #expect(throws: ArchiveError.self) { try graph.plainJSON(maxOutputBytes: 10_000) }
        #expect(error?.code == .limitExceeded)
        #expect("\(error.map { "\($0)" } ?? "")".contains("maxOutputBytes = 10000 bytes"))
    }

    // MARK: Property lists and typedstreams

    @Test func printsPlainPropertyListValues() throws {
        let value = ArchiveValue.dictionary([
            "when": .date(Date(timeIntervalSinceReferenceDate: 0)), "bytes": .data([255]), "id": .uid(ArchiveUID(rawValue: 3)),
            "nan": .real(.nan),
        ])
        #expect(
            try value.plainJSON(prettyPrinted: false, maxOutputBytes: Self.budget)
                == #"{"when":"2001-01-01T00:00:00Z","bytes":"/w==","id":3,"nan":"nan"}"#)
    }

    @Test func printsTypedstreamsThroughTheirFoundationValues() throws {
        let range = TypedObject(
            classes: [TypedClass("NSValue", version: 0), TypedClass("NSObject", version: 0)],
            groups: [
                TypedGroup(encoding: "*", values: [.cString(TypedCString("{_NSRange=QQ}"))]),
                TypedGroup(
                    encoding: "{_NSRange=QQ}",
                    values: [.structure([.unsigned(2, type: UInt8(ascii: "Q")), .unsigned(5, type: UInt8(ascii: "Q"))], encoding: "{_NSRange=QQ}")]),
            ])
        let dictionary = TypedObject.dictionary([
            (key: .object(.string("range")), value: .object(range)),
            (key: .object(.string("when")), value: .object(.date(1))),
            (key: .object(.string("list")), value: .object(.array([.object(.number(Int64(7)))]))),
        ])
        let graph = TypedGraph(groups: [TypedGroup(encoding: "@", values: [.object(dictionary)])])
        let read = try TypedGraph(bytes: graph.typedstreamBytes())
        #expect(
            try read.plainJSON(prettyPrinted: false, maxOutputBytes: Self.budget)
                == #"{"root":{"range":{"location":2,"length":5},"when":"2001-01-01T00:00:01Z","list":[7]}}"#)
    }

    // MARK: Nested data

    /// Data holding a keyed archive or a typedstream prints decoded with `nestedLevels`, as base64 without.
    @Test func decodesNestedArchivesInPlaceWhenAsked() throws {
        let inner = ArchiveGraph(root: .reference(.string("inside"))).binaryPlist()
        let typed = TypedGraph(groups: [TypedGroup(encoding: "@", values: [.object(.string("typed"))])]).typedstreamBytes()
        let holder = ArchivedObject(
            className: "Holder",
            fields: ["archive": .reference(.data(inner)), "stream": .reference(.data(typed)), "raw": .inline(.data([1]))])
        let graph = ArchiveGraph(root: .object(holder))
        let flat = try graph.plainJSON(prettyPrinted: false, maxOutputBytes: Self.budget)
        #expect(flat.contains(#""archive":"\#(Data(inner).base64EncodedString())""#))
        let nested = try graph.plainJSON(
            prettyPrinted: false, options: PlainJSONOptions(nestedLevels: 1), maxOutputBytes: Self.budget)
        #expect(nested == #"{"root":{"archive":{"root":"inside"},"stream":{"root":"typed"},"raw":"AQ=="}}"#)
    }

    /// One nested archive referenced 1,000 times: each decode spends its bytes, so the walk stops at the budget
    /// even though each copy prints little.
    @Test func nestedDecodingSpendsTheBudget() throws {
        // 10 KB of an entry no UID names: decoding reads it, the plain form prints `{"root":"x"}`.
        let inner = KeyedArchive(
            top: ["root": .uid(ArchiveUID(1))], objects: [.string("$null"), .string("x"), .data(Array(repeating: 7, count: 10_000))]
        ).binaryPlist()
        #expect(try ArchiveGraph(bytes: inner).plainJSON(prettyPrinted: false, maxOutputBytes: 100) == #"{"root":"x"}"#)
        let list = ArchivedObject(
            className: "NSArray", fields: ["NS.objects": .array(Array(repeating: .reference(.data(inner)), count: 1_000))])
        let graph = ArchiveGraph(root: .object(list))
        // 1,000 copies print 13 KB but decode 10 MB.
        let error = #expect(throws: ArchiveError.self) {
            try graph.plainJSON(prettyPrinted: false, options: PlainJSONOptions(nestedLevels: 1), maxOutputBytes: 1 << 20)
        }
        #expect(error?.code == .limitExceeded)
        #expect(try graph.plainJSON(prettyPrinted: false, options: PlainJSONOptions(nestedLevels: 1), maxOutputBytes: 20 << 20).count < 20_000)
    }
}
