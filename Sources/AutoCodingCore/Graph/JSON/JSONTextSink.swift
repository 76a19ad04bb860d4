import AutoCodingFast

/// Prints JSON text into a byte buffer. The buffer is a reference (``JSONTextBuffer``): copies of a sink write
/// into one text, so a writer keeps a single sink.
struct JSONTextSink: JSONSink {
    private let bytes = JSONTextBuffer()
    private let prettyPrinted: Bool
    /// One entry per open container: whether it has elements yet, and whether it prints on one line.
    private var open: [(hasElements: Bool, compact: Bool)] = []
    private var afterKey = false
    /// Indentation stops growing here, so a deep chain prints in linear space.
    private static let maxIndentLevels = 32

    /// The output budget: past it the sink is full and the writer stops.
    private let maxBytes: Int

    init(prettyPrinted: Bool, maxBytes: Int = .max) {
        self.prettyPrinted = prettyPrinted
        self.maxBytes = maxBytes
    }

    var text: String { bytes.text }

    /// Whether more than `maxBytes` bytes have been written, or a string literal was refused for passing them.
    /// Checked between values, so the text may pass the budget by one value other than a string (at most one
    /// scalar of the input).
    var isFull: Bool { overflowed || bytes.count > maxBytes - spent }

    /// Whether a string literal was left out for passing the budget.
    private var overflowed = false

    /// Work counted against the budget besides the text (nested data decoded by the plain form).
    private var spent = 0

    mutating func spend(_ count: Int) {
        spent = spent > Int.max - count ? Int.max : spent + count
    }

    /// A line break and the indentation, copied from one buffer (appending spaces one by one is slow).
    private static let lineBreak: [UInt8] = [0x0A] + [UInt8](repeating: 0x20, count: 2 * maxIndentLevels)

    private mutating func newline() {
        let length = 1 + 2 * min(open.count, Self.maxIndentLevels)
        Self.lineBreak.withUnsafeBufferPointer { bytes.append(UnsafeBufferPointer(rebasing: $0[..<length])) }
    }

    /// Writes the separator before a value or key: nothing after a key, else a comma and a line break.
    private mutating func beforeValue() {
        if afterKey {
            afterKey = false
            return
        }
        guard let last = open.indices.last else { return }
        if open[last].hasElements { bytes.append(UInt8(ascii: ",")) } else { open[last].hasElements = true }
        guard prettyPrinted else { return }
        if open[last].compact {
            if bytes.last == UInt8(ascii: ",") { bytes.append(0x20) }
        } else {
            newline()
        }
    }

    private mutating func begin(_ bracket: UInt8, compact: Bool) {
        beforeValue()
        bytes.append(bracket)
        open.append((false, compact || (open.last?.compact ?? false)))
    }

    private mutating func end(_ bracket: UInt8) {
        guard let closing = open.popLast() else { return }
        if prettyPrinted && closing.hasElements && !closing.compact { newline() }
        bytes.append(bracket)
    }

    mutating func beginObject(compact: Bool) { begin(UInt8(ascii: "{"), compact: compact) }
    mutating func endObject() { end(UInt8(ascii: "}")) }
    mutating func beginArray(compact: Bool) { begin(UInt8(ascii: "["), compact: compact) }
    mutating func endArray() { end(UInt8(ascii: "]")) }

    mutating func key(_ key: String) {
        beforeValue()
        appendQuoted(key)
        bytes.append(UInt8(ascii: ":"))
        if prettyPrinted { bytes.append(0x20) }
        afterKey = true
    }

    mutating func string(_ value: String) {
        beforeValue()
        appendQuoted(value)
    }

    mutating func integer(_ value: Int64) {
        beforeValue()
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        appendDigits(value.magnitude)
    }

    mutating func unsigned(_ value: UInt64) {
        beforeValue()
        appendDigits(value)
    }

    /// The decimal digits of `value`, written without making a `String` (a tenth of the cost for the small
    /// numbers, `$uid`s and `$ref`s, that a graph's text is full of).
    private mutating func appendDigits(_ value: UInt64) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var rest = value
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            } while rest != 0
            bytes.append(UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    mutating func real(_ value: Double) {
        beforeValue()
        var text = JSONNumberText.real(value)
        text.withUTF8 { bytes.append($0) }
    }

    mutating func bool(_ value: Bool) {
        beforeValue()
        bytes.append(value ? "true" : "false")
    }

    mutating func null() {
        beforeValue()
        bytes.append("null")
    }

    /// A literal that would pass the budget is not written: the sink is full instead, so that a string of
    /// control characters (six bytes of text each) cannot take the text past the budget.
    private mutating func appendQuoted(_ string: String) {
        // `spent` saturates at Int.max: subtracted from `maxBytes` alone it cannot overflow.
        let remaining = maxBytes - spent
        guard bytes.count <= remaining, JSONStringLiteral.append(string, to: bytes, maxLength: remaining - bytes.count)
        else {
            overflowed = true
            return
        }
    }
}

extension JSONTextSink {
    /// Runs `write` with a budgeted writer and returns its text, or throws once the text passes the budget.
    static func text(
        prettyPrinted: Bool, maxOutputBytes: Int, _ write: (inout GraphJSONWriter<JSONTextSink>) -> Void
    ) throws(ArchiveError) -> String {
        var writer = GraphJSONWriter(sink: JSONTextSink(prettyPrinted: prettyPrinted, maxBytes: maxOutputBytes))
        write(&writer)
        guard !writer.sink.isFull else { throw OutputBudget.exceeded(maxOutputBytes, what: "the JSON text") }
        return writer.sink.text
    }
}
