/// Receives JSON structure as events, so that one walk can produce text or Foundation objects.
protocol JSONSink {
    /// Starts an object; a compact one (and everything in it) prints on one line.
    mutating func beginObject(compact: Bool)
    mutating func key(_ key: String)
    mutating func endObject()
    /// Starts an array; a compact one (and everything in it) prints on one line.
    mutating func beginArray(compact: Bool)
    mutating func endArray()
    mutating func string(_ value: String)
    mutating func integer(_ value: Int64)
    mutating func unsigned(_ value: UInt64)
    /// A finite number; non-finite reals never reach the sink.
    mutating func real(_ value: Double)
    mutating func bool(_ value: Bool)
    mutating func null()
    /// Whether the sink has used up its output budget; the writer stops when it has.
    var isFull: Bool { get }
    /// Counts `bytes` of work that prints nothing (decoding nested data) against the budget.
    mutating func spend(_ bytes: Int)
}

