import AutoCoding
import AutoCodingFast
import Foundation
import OrderedCollections
import Testing
import _AutoCodingTestSupport

@Suite("Graph JSON")
struct GraphJSONTests {
    /// Parses JSON text with Foundation, the independent check that the output is valid JSON.
    static func foundationParse(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }

    /// JSON → graph → JSON must give the same text, and the graph must be equivalent to the original.
    static func expectRoundTrip(_ graph: ArchiveGraph, sourceLocation: SourceLocation = #_sourceLocation) throws {
        for pretty in [true, false] {
            let text = graph.json(prettyPrinted: pretty)
            let back = try ArchiveGraph(json: text)
            #expect(back.isEquivalent(to: graph), sourceLocation: sourceLocation)
            #expect(back.json(prettyPrinted: pretty) == text, sourceLocation: sourceLocation)
        }
    }

    /// Breaks a chain link by link, so that freeing it does not recurse once per object.
    static func dismantle(_ head: ArchivedObject?, link: String) {
        var next = head
        while let object = next {
            next = object[link]?.object
            object.fields = [:]
        }
    }

    /// diff fuzz target (oracle json-fixed, November 26 campaign): a binary plist may store one in-place
    /// `NS.objects` array for two objects. The JSON prints the array in full at both, but the count of shared
    /// scalars walked it once, so a string in it printed plainly twice; read back, the two are one entry, printed
    /// as `$entry` and `$ref`: JSON → graph → JSON was not a fixed point.
    @Test func aScalarInAnArrayStoredOnceForTwoObjectsPrintsOnceAndReadsBackTheSame() throws {
        let text = "a string of more than 15 bytes, stored once"
        let elements: [ArchivedValue] = [.reference(.string(text)), .inline(.integer(1))]
        let first = ArchivedObject(className: "NSArray", chain: ["NSArray", "NSObject"], fields: ["NS.objects": .array(elements)])
        let second = ArchivedObject(className: "NSArray", chain: ["NSArray", "NSObject"], fields: ["NS.objects": .array(elements)])
        let root = ArchivedObject(className: "NSArray", chain: ["NSArray", "NSObject"], fields: [
            "NS.objects": .array([.object(first), .object(second)]),
        ])
        let graph = ArchiveGraph(root: .object(root))
        let json = graph.json(prettyPrinted: false)
        #expect(json.components(separatedBy: text).count == 2, "the text once: \(json)")
        #expect(json.contains(#"{"$ref":"#))
        // Read back, the text prints the same way. (Its `$uid` may change once: a graph read from JSON keeps
        // the objects' numbers and numbers shared scalars after them; from then on the text is a fixed point.)
        let back = try ArchiveGraph(json: json)
        #expect(back.isEquivalent(to: graph))
        let again = back.json(prettyPrinted: false)
        #expect(again.components(separatedBy: text).count == 2)
        #expect(try ArchiveGraph(json: again).json(prettyPrinted: false) == again)
    }

    // MARK: Shape

    @Test func printsTheDocumentShape() throws {
        let person = ArchivedObject(className: "Person", chain: ["Person", "NSObject"])
        person["name"] = .reference(.string("Ann"))
        person["age"] = .inline(.integer(4))
        person["tall"] = .inline(.bool(false))
        person["nothing"] = .null
        let graph = ArchiveGraph(roots: ["root": .object(person), "$0": .inline(.integer(7))])
        #expect(
            graph.json() == """
                {
                  "$archiver": "NSKeyedArchiver",
                  "$top": {
                    "root": {
                      "$class": "Person",
                      "$classes": ["Person", "NSObject"],
                      "$uid": 1,
                      "name": "Ann",
                      "age": 4,
                      "tall": false,
                      "nothing": null
                    },
                    "$0": 7
                  }
                }
                """)
        #expect(
            graph.json(prettyPrinted: false)
                == #"{"$archiver":"NSKeyedArchiver","$top":{"root":{"$class":"Person","$classes":["Person","NSObject"],"$uid":1,"name":"Ann","age":4,"tall":false,"nothing":null},"$0":7}}"#
        )
        try Self.expectRoundTrip(graph)
    }

    @Test func cyclesTerminateWithRef() throws {
        let parent = ArchivedObject(className: "Node")
        let child = ArchivedObject(className: "Node", fields: ["parent": .object(parent)])
        parent["child"] = .object(child)
        parent["me"] = .object(parent)
        let graph = ArchiveGraph(root: .object(parent))
        let text = graph.json(prettyPrinted: false)
        #expect(
            text
                == #"{"$archiver":"NSKeyedArchiver","$top":{"root":{"$class":"Node","$uid":1,"child":{"$class":"Node","$uid":2,"parent":{"$ref":1}},"me":{"$ref":1}}}}"#
        )
        let back = try ArchiveGraph(json: text)
        #expect(back.isEquivalent(to: graph))
        let root = try #require(back.root?.object)
        #expect(root["me"]?.object === root)
        #expect(root["child"]?.object?["parent"]?.object === root)
    }

    @Test func sharedObjectsPrintOnceThenAsRef() throws {
        let shared = ArchivedObject(className: "NSString", fields: ["NS.string": .reference(.string("s"))])
        let list = ArchivedObject(
            className: "NSArray", fields: ["NS.objects": .array([.object(shared), .object(shared), .object(shared)])])
        let graph = ArchiveGraph(roots: ["root": .object(list), "again": .object(shared)])
        let text = graph.json()
        #expect(text.components(separatedBy: "\"$class\": \"NSString\"").count == 2)
        #expect(text.components(separatedBy: "{\"$ref\": 2}").count == 4)
        let back = try ArchiveGraph(json: text)
        #expect(back.isEquivalent(to: graph))
        let elements = try #require(back.root?.object?["NS.objects"]?.elements)
        #expect(elements[0].object === elements[2].object)
        #expect(back.roots["again"]?.object === elements[1].object)
        // Losing the sharing would not be equivalent: the check has teeth.
        let unshared = text.replacingOccurrences(of: "{\"$ref\": 2}", with: "{\"$class\": \"NSString\"}")
        #expect(try !ArchiveGraph(json: unshared).isEquivalent(to: graph))
    }

    // MARK: Scalars

    /// Every kind of scalar in both placements, plus keys that look like markers.
    static func scalarGraph() -> ArchiveGraph {
        let date = Date(timeIntervalSinceReferenceDate: 600_000_000.25)
        let object = ArchivedObject(className: "Everything")
        let fields: OrderedDictionary<String, ArchivedValue> = [
            "string": .reference(.string("referenced \"quoted\" \\ \n\t\u{1} é 😀")),
            "inlineString": .inline(.string("in place")),
            "int": .inline(.integer(-42)),
            "boxedInt": .reference(.integer(42)),
            "big": .inline(.unsignedInteger(UInt64.max)),
            "boxedBig": .reference(.unsignedInteger(1 << 63)),
            "real": .inline(.real(1.0)),
            "boxedReal": .reference(.real(-0.1)),
            "tiny": .inline(.real(.leastNonzeroMagnitude)),
            "infinity": .inline(.real(.infinity)),
            "minusInf": .reference(.real(-.infinity)),
            "bool": .inline(.bool(true)),
            "boxedBool": .reference(.bool(false)),
            "data": .inline(.data([0, 1, 2, 255])),
            "boxedData": .reference(.data([])),
            "date": .inline(.date(date)),
            "boxedDate": .reference(.date(Date(timeIntervalSinceReferenceDate: 1e-7))),
            "farDate": .inline(.date(Date(timeIntervalSinceReferenceDate: 1e15))),
            "uid": .reference(.uid(ArchiveUID(7))),
            "inlineUID": .inline(.uid(ArchiveUID(3))),
            "plistArray": .reference(.array([.string("a"), .integer(1), .dictionary(["$data": .bool(true)])])),
            "plistDictionary": .inline(.dictionary(["k": .string("v")])),
            "$data": .inline(.integer(1)),
            "$$ref": .inline(.integer(2)),
            "$0": .inline(.integer(3)),
            "dictionary": .dictionary(["$class": .null, "x": .array([.null, .inline(.integer(1))])]),
        ]
        object.fields = fields
        return ArchiveGraph(archiver: "SCNKeyedArchiver", roots: ["root": .object(object)])
    }

    @Test func everyScalarKeepsItsValueAndPlacement() throws {
        let graph = Self.scalarGraph()
        try Self.expectRoundTrip(graph)
        let text = graph.json()
        #expect(text.contains(#""inlineString": {"$inline": "in place"}"#))
        #expect(text.contains(#""boxedInt": {"$entry": 42}"#))
        #expect(text.contains(#""big": 18446744073709551615"#))
        #expect(text.contains(#""real": 1.0"#))
        #expect(text.contains(#""infinity": {"$real": "inf"}"#))
        #expect(text.contains(#""data": {"$data": "AAEC/w=="}"#))
        #expect(text.contains(#""date": {"$date": "2020-01-06T10:40:00.250Z"}"#))
        #expect(text.contains(#""$$data": 1"#))
        #expect(text.contains(#""$$$ref": 2"#))
        #expect(text.contains(#""$0": 3"#))
        #expect(text.contains(#""$$class": null"#))
        _ = try Self.foundationParse(text)
        // Changing the placement of one scalar is noticed by the equivalence check.
        let moved = text.replacingOccurrences(of: #"{"$entry": 42}"#, with: "42")
        #expect(try !ArchiveGraph(json: moved).isEquivalent(to: graph))
    }

    /// Integers are written digit by digit, not through `String`: the extremes and zero keep their spelling.
    @Test(arguments: [Int64.min, -1, 0, 7, 10, Int64.max])
    func integersPrintTheirDecimalDigits(_ value: Int64) throws {
        #expect(ArchiveValue.integer(value).json(prettyPrinted: false) == String(value))
        #expect(ArchiveValue.unsignedInteger(UInt64.max).json(prettyPrinted: false) == String(UInt64.max))
        #expect(try ArchiveValue(json: ArchiveValue.integer(value).json()) == .integer(value))
    }

    @Test(arguments: [
        (0.0, "2001-01-01T00:00:00Z"),
        (-978_307_200.0, "1970-01-01T00:00:00Z"),
        (-978_307_201.5, "1969-12-31T23:59:58.500Z"),
        (1.0e9 + 0.125, "2032-09-09T01:46:40.125Z"),
        (-63_113_904_000.0, "0001-01-01T00:00:00Z"),
        (252_423_993_599.0, "9999-12-31T23:59:59Z"),
    ])
    func datesPrintAsISO8601(_ time: Double, _ iso: String) throws {
        let value = ArchiveValue.date(Date(timeIntervalSinceReferenceDate: time))
        #expect(value.json(prettyPrinted: false) == #"{"$date":"\#(iso)"}"#)
        #expect(try ArchiveValue(json: value.json()) == value)
    }

    @Test func datesThatISO8601CannotHoldExactlyCarryTheirSeconds() throws {
        for time in [1e-12, 0.001_234_567_890_123_4, 1e15, -1e15, .nan] {
            let value = ArchiveValue.date(Date(timeIntervalSinceReferenceDate: time))
            let text = value.json(prettyPrinted: false)
            #expect(text.contains("$time"), "\(text)")
            let back = try ArchiveValue(json: text)
            if time.isNaN {
                guard case .date(let date) = back else {
                    Issue.record("not a date: \(back)")
                    continue
                }
                #expect(date.timeIntervalSinceReferenceDate.isNaN)
            } else {
                #expect(back == value)
            }
        }
    }

    @Test func jsonNestedDeeperThanAnyReadableArchiveIsRefused() throws {
        // `encode` of JSON nested 10⁵ deep built a value the runtime then released recursively (a stack overflow);
        // the parser refuses it, as the archive reader would refuse the archive.
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let error = #expect(throws: ArchiveJSONError.self) { try ArchiveValue(json: deep) }
        #expect(error?.description.contains("nested deeper than") == true, "\(String(describing: error))")
        #expect(throws: ArchiveJSONError.self) { try ArchiveGraph(json: Data(deep.utf8)) }
        // What the reader reads still parses and writes.
        let readable = ArchiveReadingOptions().depthLimit
        let atLimit = String(repeating: "[", count: readable) + "1" + String(repeating: "]", count: readable)
        let value = try ArchiveValue(json: atLimit)
        #expect(try ArchiveValue(propertyList: value.binaryPropertyList(readableWith: ArchiveReadingOptions())) == value)
    }

    @Test func plainPropertyListsPrintAsPlainJSON() throws {
        let value = ArchiveValue.dictionary([
            "name": .string("x"), "n": .integer(1), "r": .real(2.5), "ok": .bool(true), "bytes": .data([1, 2]),
            "list": .array([.uid(ArchiveUID(1)), .dictionary([:]), .array([])]),
        ])
        let text = value.json(prettyPrinted: false)
        #expect(
            text == #"{"name":"x","n":1,"r":2.5,"ok":true,"bytes":{"$data":"AQI="},"list":[{"$cfuid":1},{},[]]}"#)
        #expect(try ArchiveValue(json: text) == value)
        #expect(try ArchiveValue(json: value.json()) == value)
        let object = try #require(value.jsonObject() as? [String: Any])
        #expect(object["name"] as? String == "x")
        #expect(JSONSerialization.isValidJSONObject(object))
    }

    // MARK: Validity

    @Test func outputIsValidJSONForFoundation() throws {
        let graph = Self.scalarGraph()
        let parsed = try #require(try Self.foundationParse(graph.json()) as? [String: Any])
        #expect(parsed["$archiver"] as? String == "SCNKeyedArchiver")
        let root = try #require((parsed["$top"] as? [String: Any])?["root"] as? [String: Any])
        #expect(root["$class"] as? String == "Everything")
        #expect(root["int"] as? Int == -42)
        _ = try Self.foundationParse(graph.json(prettyPrinted: false))
    }

    @Test func jsonObjectMatchesTheText() throws {
        let graph = Self.scalarGraph()
        let object = try #require(graph.jsonObject())
        #expect(JSONSerialization.isValidJSONObject(object))
        let fromObject = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        let fromText = try JSONSerialization.data(
            withJSONObject: Self.foundationParse(graph.json()), options: [.sortedKeys])
        #expect(fromObject == fromText)
    }

    // MARK: Reading errors

    @Test(arguments: [
        ("", "unexpected end of input"),
        ("{", "expected a string key"),
        (#"{"$archiver": "A", "$top": {}"#, "expected ','"),
        (#"{"$archiver": "A", "$top": {}} x"#, "after the end"),
        (#"[1, 2]"#, "must be an object"),
        (#"{"$archiver": "A"}"#, "no $top"),
        (#"{"$archiver": "A", "$top": {}, "extra": 1}"#, "unexpected key"),
        (#"{"$archiver": "A", "$top": {"root": {"$ref": 9}}}"#, "names no object"),
        (#"{"$archiver": "A", "$top": {"a": {"$class": "X", "$uid": 1}, "b": {"$uid": 1, "$class": "X"}}}"#, "twice"),
        (#"{"$archiver": "A", "$top": {"root": {"$data": "!!!"}}}"#, "base64"),
        (#"{"$archiver": "A", "$top": {"root": {"$date": "yesterday"}}}"#, "ISO 8601"),
        (#"{"$archiver": "A", "$top": {"root": {"$inline": null}}}"#, "null is not"),
        (#"{"$archiver": "A", "$top": {"root": {"$inline": 1, "x": 2}}}"#, "no other key"),
        (#"{"$archiver": "A", "$top": {"root": {"$uid": 1}}}"#, "outside an object"),
        (#"{"$archiver": "A", "$top": {"root": {"$class": "X", "$data": 1}}}"#, "unexpected marker"),
        (#"{"$archiver": "A", "$top": {"root": {"a": 1, "a": 2}}}"#, "duplicate key"),
        (#"{"$archiver": "A", "$top": {"root": "\ud800"}}"#, "surrogate"),
        (#"{"$archiver": "A", "$top": {"root": 01}}"#, "leading zero"),
        (#"{"$archiver": "A", "$top": {"root": tru}}"#, "invalid literal"),
        (#"{"$archiver": "A", "$top": {"root": {"$cfuid": -1}}}"#, "$cfuid"),
    ])
    func malformedJSONThrowsAClearError(_ text: String, _ expected: String) throws {
        let error = #expect(throws: ArchiveJSONError.self) { try ArchiveGraph(json: text) }
        #expect(error?.description.contains(expected) == true, "\(error.map(String.init(describing:)) ?? "no error")")
    }

    @Test func readsForwardReferencesAndUnnumberedObjects() throws {
        // Hand-written JSON: a reference before its definition, `$uid` before `$class`, an object without `$uid`.
        let text = """
            {"$archiver": "A", "$top": {"a": {"$ref": 5}, "b": {"$uid": 5, "$class": "X", "n": {"$class": "Y"}}}}
            """
        let graph = try ArchiveGraph(json: Data(text.utf8))
        #expect(graph.roots["a"]?.object === graph.roots["b"]?.object)
        #expect(graph.roots["b"]?.object?["n"]?.object?.className == "Y")
    }

    // MARK: Scale

    @Test func aChainOf200000ObjectsPrintsAndReadsBackWithoutRecursion() throws {
        var head = ArchivedObject(className: "Node", fields: ["n": .inline(.integer(0))])
        let tail = head
        for i in 1..<200_000 {
            head = ArchivedObject(className: "Node", fields: ["n": .inline(.integer(Int64(i))), "next": .object(head)])
        }
        tail["next"] = .object(head)  // and close it into a cycle
        let graph = ArchiveGraph(root: .object(head))
        defer { Self.dismantle(head, link: "next") }

        let compact = graph.json(prettyPrinted: false)
        #expect(compact.hasSuffix(#""next":{"$ref":1}}"# + String(repeating: "}", count: 199_999) + "}}"))
        let pretty = graph.json()
        // Indentation is capped, so the pretty text stays linear in size.
        #expect(pretty.utf8.count < 500 * 200_000)
        #expect(graph.jsonObject() == nil)

        let back = try ArchiveGraph(json: compact)
        defer { Self.dismantle(back.root?.object, link: "next") }
        #expect(back.isEquivalent(to: graph))
    }

    // MARK: Corpus

    @Test(.enabled(if: SharedCorpus.isAvailable, "needs ../shared/corpus beside the package"))
    func everyAppleArchiveConvertsToJSONAndBack() throws {
        var checked = 0
        for name in SharedCorpus.files(in: "apple") {
            let graph = try ArchiveGraph(bytes: SharedCorpus.bytes("apple", name))
            let text = graph.json()
            _ = try Self.foundationParse(text)
            let back = try ArchiveGraph(json: text)
            #expect(back.isEquivalent(to: graph), "\(name)")
            #expect(back.json() == text, "\(name)")
            #expect(try ArchiveGraph(json: graph.json(prettyPrinted: false)).isEquivalent(to: graph), "\(name)")
            // The rebuilt graph still encodes to an archive that reads back equivalent.
            #expect(try ArchiveGraph(bytes: back.binaryPlist()).isEquivalent(to: graph), "\(name)")
            checked += 1
        }
        #expect(checked == SharedCorpus.files(in: "apple").count)
        #expect(checked > 0)
    }

    // MARK: Class chains

    /// Objects of one class print its chain once (a long chain shared by 300 objects was printed 300 times);
    /// an object whose chain differs from the first one of its name prints its own, `[]` included.
    @Test func printsEachClassChainOnce() throws {
        let chain = ["App.Node", "App.Base", "NSObject"]
        let nodes = (0..<3).map { _ in ArchivedObject(className: "App.Node", chain: chain) }
        let odd = ArchivedObject(className: "App.Node", chain: [])
        let other = ArchivedObject(className: "App.Node", chain: ["App.Node", "NSObject"])
        // The first node holds the others, so they close (and are read) before it.
        nodes[0]["children"] = .array(nodes.dropFirst().map { .object($0) } + [.object(odd), .object(other)])
        let graph = ArchiveGraph(root: .object(nodes[0]))
        let text = graph.json(prettyPrinted: false)
        #expect(text.components(separatedBy: #""$classes":["App.Node","App.Base","NSObject"]"#).count == 2)
        #expect(text.contains(#""$classes":[]"#))
        #expect(text.contains(#""$classes":["App.Node","NSObject"]"#))
        let back = try ArchiveGraph(json: text)
        let elements = try #require(back.root?.object?["children"]?.elements)
        let children = elements.compactMap(\.object)
        #expect(back.root?.object?.archiveClass.chain == chain)
        #expect(children.map(\.archiveClass.chain) == [chain, chain, [], ["App.Node", "NSObject"]])
        try Self.expectRoundTrip(graph)
    }

    /// A first object without a chain: later ones of its name print theirs, and read back with them.
    @Test func aChainlessFirstObjectKeepsLaterChains() throws {
        let first = ArchivedObject(className: "Thing")
        let second = ArchivedObject(className: "Thing", chain: ["Thing", "NSObject"])
        first["next"] = .object(second)
        let graph = ArchiveGraph(root: .object(first))
        let back = try ArchiveGraph(json: graph.json())
        #expect(back.root?.object?.archiveClass.chain == [])
        #expect(back.root?.object?["next"]?.object?.archiveClass.chain == ["Thing", "NSObject"])
        try Self.expectRoundTrip(graph)
    }
}
