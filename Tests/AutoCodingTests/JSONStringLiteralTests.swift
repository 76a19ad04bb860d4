import AutoCodingCore
import AutoCodingFast
import Foundation
import Testing

/// The one escaping rule of the package's JSON text, and the output budget it lets writers check before writing.
@Suite("JSON string literals")
struct JSONStringLiteralTests {
    /// Every ASCII byte, the line separators, and non-ASCII text around them.
    static let samples: [String] = [
        "", "plain", "quote \" backslash \\ slash /", "\n\r\t", String(decoding: Array(0..<0x80 as Range<UInt8>), as: UTF8.self),
        "a\u{2028}b\u{2029}c", "\u{E2}\u{80}", "é ü 日本 🙂", String(repeating: "\u{1}", count: 300),
    ]

    @Test func literalsParseBackAndAreRefusedPastTheirLength() throws {
        for sample in Self.samples {
            let literal = JSONStringLiteral.quoted(sample)
            let length = literal.utf8.count
            #expect(JSONStringLiteral.quoted(sample, maxLength: length) == literal)
            #expect(JSONStringLiteral.quoted(sample, maxLength: length - 1) == nil, "\(literal)")
            let buffer = JSONTextBuffer(capacity: 1)
            buffer.append(0x5B)
            #expect(!JSONStringLiteral.append(sample, to: buffer, maxLength: length - 1) && buffer.bytes == [0x5B])
            #expect(JSONStringLiteral.append(sample, to: buffer, maxLength: length))
            #expect(Array(buffer.bytes.dropFirst()) == Array(literal.utf8))
            let parsed = try JSONDecoder().decode(String.self, from: Data(literal.utf8))
            #expect(parsed == sample)
        }
    }

    @Test func controlCharactersAndLineSeparatorsAreEscaped() {
        #expect(JSONStringLiteral.quoted("\u{0}\u{1f}\"\\\n") == #""\u0000\u001f\"\\\n""#)
        #expect(JSONStringLiteral.quoted("a\u{2028}b\u{2029}") == #""a\u2028b\u2029""#)
        #expect(JSONStringLiteral.quoted("\u{7F}é") == "\"\u{7F}é\"")
    }

    @Test func aStringOfControlCharactersCannotPassTheOutputBudget() throws {
        // 10,000 bytes of text that escape to 60,000: a budget of 20,000 refuses the string instead of writing it.
        let graph = ArchiveGraph(root: .reference(.string(String(repeating: "\u{1}", count: 10_000))))
        let error = #expect(throws: ArchiveError.self) { try graph.json(maxOutputBytes: 20_000) }
        #expect(error?.code == .limitExceeded)
        #expect(try graph.json(prettyPrinted: false, maxOutputBytes: 70_000).utf8.count > 60_000)
    }
}
