import Testing

@testable import AutoCodingFast

/// The writer's uniquing table, as it numbers strings: one number per distinct byte sequence.
@Suite("Value numbers")
struct ValueNumbersTests {
    /// Numbers `strings` in order, as the writer does (a new string gets the next number), and returns the number
    /// each got.
    static func number(_ strings: [String]) -> [Int] {
        var table = ValueNumbers()
        var stored: [String] = []
        return strings.map { string in
            var bytes = string
            let number = bytes.withUTF8 { utf8 in
                table.number(of: UnsafeRawBufferPointer(utf8), orAdd: stored.count) { candidate in
                    Array(stored[candidate].utf8) == Array(utf8)
                }
            }
            if number == stored.count { stored.append(string) }
            return number
        }
    }

    @Test func equalBytesShareANumberAndOthersDoNot() {
        // Every length a hash step treats differently (0, 1–3, 4–7, 8, 9–15, 16, 17…), each with a neighbour that
        // differs in its last byte or only in length (a trailing NUL).
        var distinct: [String] = []
        for length in 0...40 {
            let text = String((0..<length).map { Character(UnicodeScalar(UInt8(0x61 + $0 % 26))) })
            distinct += [text, text + "\u{0}", text + "!"]
        }
        distinct = Array(Set(distinct)).sorted()
        // Canonically equivalent, different bytes: two objects, as Apple's archiver writes them.
        distinct += ["caf\u{E9}", "cafe\u{301}"]
        let numbers = Self.number(distinct + distinct.reversed())
        #expect(Array(numbers.prefix(distinct.count)) == Array(0..<distinct.count))
        #expect(Array(numbers.suffix(distinct.count)) == Array((0..<distinct.count).reversed()))
    }

    @Test func manyStringsThroughGrowth() {
        let strings = (0..<50_000).map { "key-\($0 * 7919 % 50_000)" }
        let numbers = Self.number(strings + strings)
        #expect(Array(numbers.prefix(strings.count)) == Array(0..<strings.count))
        #expect(Array(numbers.suffix(strings.count)) == Array(0..<strings.count))
    }
}
