#if canImport(_AutoCodingCommands)
import AutoCoding
import Foundation
import Testing
import _AutoCodingTestSupport

@testable import _AutoCodingCommands

/// `json --plain` on files the project makes: the data for jq, in every input format, within the budget.
@Suite("json --plain")
struct PlainJSONCommandTests {
    /// The issue's case: `jq '.root[].name'` on a people archive gives every name (objects referenced twice
    /// included), never null.
    @Test func namesOfAPeopleArchiveComeOutWithoutNulls() throws {
        let samples = try makeSamples(count: 1, rows: 1)
        let result = try CLI.run(["json", "--plain", samples.path("archives/000000-people.plist")])
        #expect(result.status == 0)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let people = try #require(document["root"] as? [[String: Any]])
        #expect(people.count > 1)
        #expect(people.allSatisfy { ($0["name"] as? String)?.isEmpty == false })
        #expect(!result.stdout.contains("$ref"))
    }

    @Test func anAttributedStringPrintsItsTextOrItsRuns() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("body.typedstream")
        try Data(TypedstreamCommandTests.attributedBody()).write(to: URL(fileURLWithPath: path))
        let text = try CLI.run(["json", "--plain", "--compact", path])
        #expect(text.stdout == #"{"root":"Hi Bob"}"# + "\n")
        let runs = try CLI.run(["json", "--plain", "--with-runs", "--compact", path])
        #expect(
            runs.stdout
                == #"{"root":{"text":"Hi Bob","runs":[{"location":0,"length":3,"attributes":{"__kIMMessagePartAttributeName":0}},"#
                + #"{"location":3,"length":3,"attributes":{"__kIMMessagePartAttributeName":0,"#
                + #""__kIMMentionConfirmedMention":"+15550100"}}]}}"# + "\n")
    }

    /// `--nested`: an iMessage-style typedstream kept as data in a plain plist prints as its text.
    @Test func nestedDataPrintsDecoded() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("holder.plist")
        let value = ArchiveValue.dictionary(["body": .data(TypedstreamCommandTests.attributedBody())])
        try Data(value.binaryPropertyList()).write(to: URL(fileURLWithPath: path))
        let result = try CLI.run(["json", "--plain", "--nested", "--compact", path])
        #expect(result.stdout == #"{"body":{"root":"Hi Bob"}}"# + "\n")
    }

    @Test func aPlainPropertyListPrintsItsValue() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("plain.plist")
        let value = ArchiveValue.dictionary(["blob": .data([0, 1]), "when": .date(Date(timeIntervalSinceReferenceDate: 60))])
        try Data(value.binaryPropertyList()).write(to: URL(fileURLWithPath: path))
        let result = try CLI.run(["json", "--plain", "--compact", path])
        #expect(result.stdout == #"{"blob":"AAE=","when":"2001-01-01T00:01:00Z"}"# + "\n")
    }

    /// Past the budget: an error naming it, exit 1, and nothing on standard output.
    @Test func aGraphPastTheBudgetPrintsNothing() throws {
        let samples = try makeSamples(count: 1, rows: 1)
        let result = try CLI.run(["json", "--plain", "--max-output-bytes", "200", samples.path("archives/000000-people.plist")])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("maxOutputBytes = 200 bytes"))
    }

    /// One numbering: the lossless JSON's `$uid` of an object read from an archive is its UID, the `#n` of
    /// `inspect` (and the `UID n` of `get`).
    @Test func losslessJSONNumbersObjectsByTheirArchiveUID() throws {
        let samples = try makeSamples(count: 2, rows: 1)
        let path = samples.path("archives/000001-notes.plist")
        let tree = try CLI.run(["inspect", path])
        let json = try CLI.run(["json", "--compact", path])
        let rootLine = try #require(tree.lines.first { $0.hasPrefix("root: ") })
        let number = try #require(rootLine.split(separator: "#").last.flatMap { Int($0) })
        let subfolders = try #require(tree.lines.first { $0.contains("subfolders: NSArray #") })
        let arrayNumber = try #require(subfolders.split(separator: "#").last.flatMap { Int($0) })
        #expect(json.stdout.contains(#""$uid":\#(number),"name":"Notes""#))
        #expect(json.stdout.contains(#""$classes":["NSArray","NSObject"],"$uid":\#(arrayNumber),"#))
        // Read back and printed again, the numbers stay.
        let back = try ArchiveGraph(json: json.stdout)
        #expect(back.json(prettyPrinted: false) + "\n" == json.stdout)
    }

    @Test func theOptionsOfThePlainFormNeedPlain() throws {
        let result = try CLI.run(["json", "--with-class", "-"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--with-class, --with-runs and --nested need --plain."))
    }
}
#endif
