import AutoCodingFast
import Foundation
import OrderedCollections

// MARK: - The JSON form
//
// A graph prints as `{"$archiver": "NSKeyedArchiver", "$top": {"root": …, …}}`. Inside it:
//
// | graph value                          | JSON                                                              |
// |--------------------------------------|-------------------------------------------------------------------|
// | object, first time printed           | `{"$class": "Name", "$classes": [chain], "$uid": n, field: …}`   |
// | the same object, every later time    | `{"$ref": n}`                                                     |
// | `.null`                              | `null`                                                            |
// | `.array` / `.dictionary` (in place)  | a JSON array / a JSON object without markers                      |
// | string                               | `"text"` (referenced) or `{"$inline": "text"}`                    |
// | bool, number, data, date, UID        | plain (in place) or `{"$entry": …}` (its own `$objects` entry)    |
// | data, date                           | `{"$data": "<base64>"}`, `{"$date": "<ISO 8601>"}`                |
// | UID, non-finite real                 | `{"$cfuid": n}`, `{"$real": "nan"}` (or `"inf"`, `"-inf"`)        |
//
// Why the default form depends on the type: NSKeyedArchiver stores strings as their own `$objects` entries
// (`encodeObject:` of an NSString) and numbers, booleans and bytes in place (`encodeInteger:`, `encodeBool:`,
// `encodeBytes:`), so printing the usual form plainly keeps almost every value unwrapped (counted on the
// shared corpus: 8,364 referenced vs 282 in-place strings, 3,454 in-place vs 1,586 referenced integers,
// 909 in-place vs 20 referenced data). Property-list arrays and dictionaries used as scalars are always wrapped,
// since a bare JSON array or object is an in-place graph container.
//
// `$uid` numbers count objects in the order they are first printed, from 1; they are not archive UIDs.
// `$classes` is printed only when the archive has a chain. A date whose ISO 8601 text does not give back the
// exact `Double` also carries `"$time"`, the seconds since 2001-01-01 (authoritative when present). A dictionary
// or field key that looks like a marker (`$data`, `$$data` …) gets one more leading `$`, so any key survives.

/// An error thrown when JSON text is malformed or is not the graph/property-list form ``ArchiveGraph`` prints.
public struct ArchiveJSONError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong, in words.
    public var reason: String
    /// The byte offset in the JSON text where the problem was found, when known.
    public var offset: Int?

    /// Creates an error with a reason and an optional byte offset.
    public init(_ reason: String, offset: Int? = nil) {
        self.reason = reason
        self.offset = offset
    }

    /// The reason, prefixed by the byte offset when known.
    public var description: String {
        offset.map { "JSON at byte \($0): \(reason)" } ?? "JSON: \(reason)"
    }
}

extension ArchiveGraph {
    /// The graph as a JSON string in the form described in this file: objects with `$class`/`$uid` the first
    /// time, `{"$ref": n}` after that, scalars as JSON values, `$null` as `null`.
    ///
    /// The walk uses an explicit worklist, so chains a million objects long and cycles cost no stack. The
    /// output nests as deeply as the graph; with `prettyPrinted`, indentation stops growing after 32 levels so
    /// that the text stays linear in the graph's size.
    public func json(prettyPrinted: Bool = true) -> String {
        var writer = GraphJSONWriter(sink: JSONTextSink(prettyPrinted: prettyPrinted))
        writer.write(self)
        return writer.sink.text
    }

    /// The graph as Foundation JSON objects (`[String: Any]`, `[Any]`, `String`, `Int`, `Double`, `Bool`,
    /// `NSNull`), the same values ``json(prettyPrinted:)`` prints, ready for `JSONSerialization`.
    ///
    /// Returns nil when the result would nest deeper than 512 levels: Foundation containers release their
    /// elements recursively, so a deeper tree could overflow the stack when freed (and `JSONSerialization`
    /// refuses such depths anyway). Use ``json(prettyPrinted:)`` for deep graphs. Dictionaries do not keep key order.
    public func jsonObject() -> Any? {
        var writer = GraphJSONWriter(sink: JSONObjectSink())
        writer.write(self)
        return writer.sink.result
    }

    /// Rebuilds a graph from the JSON that ``json(prettyPrinted:)`` prints: objects by `$uid`, `{"$ref": n}`
    /// back to them (forward references are accepted too), `$inline`/`$entry` wrappers, `$data`, `$date`.
    ///
    /// Parsing is iterative, so deeply nested input costs no stack. Throws ``ArchiveJSONError`` naming the byte
    /// offset for malformed JSON, unknown markers, a `$ref` with no matching `$uid`, or a `$uid` defined twice.
    public init(json: String) throws {
        try self.init(jsonBytes: Array(json.utf8))
    }

    /// Rebuilds a graph from UTF-8 JSON data, in the form ``json(prettyPrinted:)`` prints.
    public init(json: Data) throws {
        try self.init(jsonBytes: [UInt8](json))
    }

    private init(jsonBytes: [UInt8]) throws {
        var builder = GraphJSONBuilder(root: .document)
        try JSONParser.parse(jsonBytes, into: &builder)
        guard case .document(let graph) = try builder.finish() else {
            throw ArchiveJSONError("the JSON is not an archive graph")
        }
        self = graph
    }
}

extension ArchivedValue {
    /// One graph value as JSON, in the form ``ArchiveGraph/json(prettyPrinted:)`` prints values inside
    /// `$top` (objects numbered from 1 within this value).
    public func json(prettyPrinted: Bool = true) -> String {
        var writer = GraphJSONWriter(sink: JSONTextSink(prettyPrinted: prettyPrinted))
        writer.write(self)
        return writer.sink.text
    }
}

extension ArchiveValue {
    /// A property-list value as JSON: strings, numbers and booleans plain, arrays and dictionaries as JSON
    /// containers, data as `{"$data": "<base64>"}`, dates as `{"$date": "<ISO 8601>"}`, UIDs as `{"$cfuid": n}`.
    ///
    /// These are the same forms ``ArchiveGraph/json(prettyPrinted:)`` uses inside a graph.
    public func json(prettyPrinted: Bool = true) -> String {
        var writer = GraphJSONWriter(sink: JSONTextSink(prettyPrinted: prettyPrinted))
        writer.write(self)
        return writer.sink.text
    }

    /// The value as Foundation JSON objects, or nil when it nests deeper than 512 levels; see
    /// ``ArchiveGraph/jsonObject()``.
    public func jsonObject() -> Any? {
        var writer = GraphJSONWriter(sink: JSONObjectSink())
        writer.write(self)
        return writer.sink.result
    }

    /// Reads a property-list value from the JSON that ``json(prettyPrinted:)`` prints. JSON `null` is rejected,
    /// since property lists have no null.
    public init(json: String) throws {
        var builder = GraphJSONBuilder(root: .plist)
        try JSONParser.parse(Array(json.utf8), into: &builder)
        guard case .plist(let value) = try builder.finish() else {
            throw ArchiveJSONError("the JSON is not a property-list value")
        }
        self = value
    }
}

// MARK: - Markers

/// The marker keys of the JSON form, and the escaping that keeps ordinary keys apart from them.
enum GraphJSONKey {
    static let archiver = "$archiver"
    static let top = "$top"
    static let className = "$class"
    static let classes = "$classes"
    static let uid = "$uid"
    static let ref = "$ref"
    static let inline = "$inline"
    static let entry = "$entry"
    static let data = "$data"
    static let date = "$date"
    static let time = "$time"
    static let real = "$real"
    static let cfuid = "$cfuid"

    /// Marker names without their `$`.
    private static let reserved: Set<Substring> = [
        "class", "classes", "uid", "ref", "inline", "entry", "data", "date", "time", "real", "cfuid",
    ]

    /// The number of leading `$` when the rest of `key` is a reserved name, else 0.
    private static func markerDollars(_ key: String) -> Int {
        // Most keys do not start with `$`; looking at one byte keeps them off the slow path.
        guard key.utf8.first == UInt8(ascii: "$") else { return 0 }
        let base = key.drop { $0 == "$" }
        return reserved.contains(base) ? key.count - base.count : 0
    }

    /// Whether `key` is a marker (`$data`), as opposed to an ordinary key or an escaped one (`$$data`).
    static func isMarker(_ key: String) -> Bool { markerDollars(key) == 1 }

    /// The key as printed: one more `$` for keys that would read as markers.
    static func escape(_ key: String) -> String { markerDollars(key) >= 1 ? "$" + key : key }

    /// The key as stored: one `$` fewer for escaped keys. Callers reject unescaped markers first.
    static func unescape(_ key: String) -> String { markerDollars(key) >= 2 ? String(key.dropFirst()) : key }
}

// MARK: - Writing

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
}

/// Walks a graph in document order with an explicit stack and reports it to a sink.
///
/// Every container on the way pushes a frame instead of recursing, so the depth of the walk is bounded by
/// memory, not by the thread's stack.
struct GraphJSONWriter<Sink: JSONSink> {
    var sink: Sink
    private var numbers: [ObjectIdentifier: Int] = [:]
    private var stack: [Frame] = []

    private enum Frame {
        case graphArray([ArchivedValue], Int)
        case graphDictionary(OrderedDictionary<String, ArchivedValue>, Int, escapesKeys: Bool)
        case plistArray([ArchiveValue], Int)
        case plistDictionary(OrderedDictionary<String, ArchiveValue>, Int)
        /// Closes a wrapper object (`$inline`, `$entry`, the document) once its value is written.
        case endObject
    }

    init(sink: Sink) { self.sink = sink }

    mutating func write(_ graph: ArchiveGraph) {
        sink.beginObject(compact: false)
        sink.key(GraphJSONKey.archiver)
        sink.string(graph.archiver)
        sink.key(GraphJSONKey.top)
        sink.beginObject(compact: false)
        stack.append(.endObject)
        // `$top` keys are never markers (the document level has its own keys), so they print as they are.
        stack.append(.graphDictionary(graph.roots, 0, escapesKeys: false))
        drain()
    }

    mutating func write(_ value: ArchiveValue) {
        writePlist(value)
        drain()
    }

    mutating func write(_ value: ArchivedValue) {
        writeGraph(value)
        drain()
    }

    private mutating func drain() {
        while let frame = stack.popLast() {
            switch frame {
            case .endObject:
                sink.endObject()
            case .graphArray(let elements, let i):
                guard i < elements.count else { sink.endArray(); continue }
                stack.append(.graphArray(elements, i + 1))
                writeGraph(elements[i])
            case .graphDictionary(let entries, let i, let escapesKeys):
                guard i < entries.count else { sink.endObject(); continue }
                stack.append(.graphDictionary(entries, i + 1, escapesKeys: escapesKeys))
                let (key, value) = entries.elements[i]
                sink.key(escapesKeys ? GraphJSONKey.escape(key) : key)
                writeGraph(value)
            case .plistArray(let elements, let i):
                guard i < elements.count else { sink.endArray(); continue }
                stack.append(.plistArray(elements, i + 1))
                writePlist(elements[i])
            case .plistDictionary(let entries, let i):
                guard i < entries.count else { sink.endObject(); continue }
                stack.append(.plistDictionary(entries, i + 1))
                let (key, value) = entries.elements[i]
                sink.key(GraphJSONKey.escape(key))
                writePlist(value)
            }
        }
    }

    /// Writes a scalar or opens a container (pushing its frame).
    private mutating func writeGraph(_ value: ArchivedValue) {
        switch value {
        case .null:
            sink.null()
        case .object(let object):
            let id = ObjectIdentifier(object)
            if let number = numbers[id] {
                sink.beginObject(compact: true)
                sink.key(GraphJSONKey.ref)
                sink.integer(Int64(number))
                sink.endObject()
                return
            }
            let number = numbers.count + 1
            numbers[id] = number
            sink.beginObject(compact: false)
            sink.key(GraphJSONKey.className)
            sink.string(object.archiveClass.name)
            if !object.archiveClass.chain.isEmpty {
                sink.key(GraphJSONKey.classes)
                sink.beginArray(compact: true)
                for name in object.archiveClass.chain { sink.string(name) }
                sink.endArray()
            }
            sink.key(GraphJSONKey.uid)
            sink.integer(Int64(number))
            stack.append(.graphDictionary(object.fields, 0, escapesKeys: true))
        case .array(let elements):
            sink.beginArray(compact: false)
            stack.append(.graphArray(elements, 0))
        case .dictionary(let entries):
            sink.beginObject(compact: false)
            stack.append(.graphDictionary(entries, 0, escapesKeys: true))
        case .inline(let scalar):
            writeScalar(scalar, isReference: false)
        case .reference(let scalar):
            writeScalar(scalar, isReference: true)
        }
    }

    /// A scalar in its plain form when that is its type's default placement, else wrapped.
    private mutating func writeScalar(_ scalar: ArchiveValue, isReference: Bool) {
        if Self.defaultIsReference(scalar) == isReference {
            writePlist(scalar)
            return
        }
        let isContainer = Self.defaultIsReference(scalar) == nil
        sink.beginObject(compact: !isContainer)
        sink.key(isReference ? GraphJSONKey.entry : GraphJSONKey.inline)
        stack.append(.endObject)
        writePlist(scalar)
    }

    /// Whether a scalar of this type is printed plainly when referenced (strings), when in place (everything
    /// else), or never (arrays and dictionaries, whose plain form would read as graph containers).
    private static func defaultIsReference(_ value: ArchiveValue) -> Bool? {
        switch value {
        case .string: true
        case .array, .dictionary: nil
        default: false
        }
    }

    private mutating func writePlist(_ value: ArchiveValue) {
        switch value {
        case .bool(let b): sink.bool(b)
        case .integer(let i): sink.integer(i)
        case .unsignedInteger(let u): sink.unsigned(u)
        case .real(let d):
            if d.isFinite {
                sink.real(d)
            } else {
                writeMarker(GraphJSONKey.real) { $0.string(JSONNumberText.nonFinite(d)) }
            }
        case .string(let s): sink.string(s)
        case .data(let bytes):
            writeMarker(GraphJSONKey.data) { $0.string(Data(bytes).base64EncodedString()) }
        case .date(let date):
            let time = date.timeIntervalSinceReferenceDate
            let iso = ISO8601Text.format(time)
            sink.beginObject(compact: true)
            if let iso {
                sink.key(GraphJSONKey.date)
                sink.string(iso.text)
            }
            if iso?.isExact != true {
                sink.key(GraphJSONKey.time)
                if time.isFinite { sink.real(time) } else { sink.string(JSONNumberText.nonFinite(time)) }
            }
            sink.endObject()
        case .uid(let uid):
            writeMarker(GraphJSONKey.cfuid) { $0.integer(Int64(uid.rawValue)) }
        case .array(let elements):
            sink.beginArray(compact: false)
            stack.append(.plistArray(elements, 0))
        case .dictionary(let entries):
            sink.beginObject(compact: false)
            stack.append(.plistDictionary(entries, 0))
        }
    }

    private mutating func writeMarker(_ key: String, _ value: (inout Sink) -> Void) {
        sink.beginObject(compact: true)
        sink.key(key)
        value(&sink)
        sink.endObject()
    }
}

/// Prints JSON text into a byte buffer.
struct JSONTextSink: JSONSink {
    private var bytes: [UInt8] = []
    private let prettyPrinted: Bool
    /// One entry per open container: whether it has elements yet, and whether it prints on one line.
    private var open: [(hasElements: Bool, compact: Bool)] = []
    private var afterKey = false
    /// Indentation stops growing here, so a deep chain prints in linear space.
    private static let maxIndentLevels = 32

    init(prettyPrinted: Bool) {
        self.prettyPrinted = prettyPrinted
        bytes.reserveCapacity(4096)
    }

    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// A line break and the indentation, copied from one buffer (appending spaces one by one is slow).
    private static let lineBreak: [UInt8] = [0x0A] + [UInt8](repeating: 0x20, count: 2 * maxIndentLevels)

    private mutating func newline() {
        bytes.append(contentsOf: Self.lineBreak[0...(2 * min(open.count, Self.maxIndentLevels))])
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

    private mutating func begin(_ bracket: Character, compact: Bool) {
        beforeValue()
        bytes.append(contentsOf: bracket.utf8)
        open.append((false, compact || (open.last?.compact ?? false)))
    }

    private mutating func end(_ bracket: Character) {
        guard let closing = open.popLast() else { return }
        if prettyPrinted && closing.hasElements && !closing.compact { newline() }
        bytes.append(contentsOf: bracket.utf8)
    }

    mutating func beginObject(compact: Bool) { begin("{", compact: compact) }
    mutating func endObject() { end("}") }
    mutating func beginArray(compact: Bool) { begin("[", compact: compact) }
    mutating func endArray() { end("]") }

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
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func unsigned(_ value: UInt64) {
        beforeValue()
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func real(_ value: Double) {
        beforeValue()
        bytes.append(contentsOf: JSONNumberText.real(value).utf8)
    }

    mutating func bool(_ value: Bool) {
        beforeValue()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    mutating func null() {
        beforeValue()
        bytes.append(contentsOf: "null".utf8)
    }

    private mutating func appendQuoted(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
            case 0x0A: bytes.append(contentsOf: #"\n"#.utf8)
            case 0x0D: bytes.append(contentsOf: #"\r"#.utf8)
            case 0x09: bytes.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: #"\u00"#.utf8)
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

/// Builds Foundation JSON objects, giving up (nil) beyond a depth that would be unsafe to free.
struct JSONObjectSink: JSONSink {
    private struct Partial {
        var isObject: Bool
        var array: [Any] = []
        var object: [String: Any] = [:]
        var key: String?
    }

    private var stack: [Partial] = []
    private var value: Any?
    private var overflowed = false
    private static let depthLimit = 512

    /// The finished value, or nil when it nested too deeply.
    var result: Any? { overflowed ? nil : value }

    private mutating func add(_ element: Any) {
        guard !overflowed else { return }
        guard let last = stack.indices.last else {
            value = element
            return
        }
        if stack[last].isObject {
            stack[last].object[stack[last].key ?? ""] = element
            stack[last].key = nil
        } else {
            stack[last].array.append(element)
        }
    }

    private mutating func begin(isObject: Bool) {
        guard !overflowed else { return }
        guard stack.count < Self.depthLimit else {
            // Stop building: the partial tree is dropped, and what was built is at most 512 levels deep.
            overflowed = true
            stack.removeAll()
            return
        }
        stack.append(Partial(isObject: isObject))
    }

    private mutating func end() {
        guard !overflowed, let finished = stack.popLast() else { return }
        add(finished.isObject ? finished.object as Any : finished.array as Any)
    }

    mutating func beginObject(compact: Bool) { begin(isObject: true) }
    mutating func endObject() { end() }
    mutating func beginArray(compact: Bool) { begin(isObject: false) }
    mutating func endArray() { end() }

    mutating func key(_ key: String) {
        guard !overflowed, let last = stack.indices.last else { return }
        stack[last].key = key
    }

    mutating func string(_ value: String) { add(value) }
    mutating func integer(_ value: Int64) { add(Int(exactly: value).map { $0 as Any } ?? NSNumber(value: value)) }
    mutating func unsigned(_ value: UInt64) { add(NSNumber(value: value)) }
    mutating func real(_ value: Double) { add(value) }
    mutating func bool(_ value: Bool) { add(value) }
    mutating func null() { add(NSNull()) }
}

/// Number spellings shared by the writer and the reader.
enum JSONNumberText {
    /// A finite `Double` as JSON: Swift's shortest round-trip spelling, which always has a `.` or an exponent,
    /// so the reader can tell a real `1.0` from an integer `1`.
    static func real(_ value: Double) -> String {
        let text = value.description
        return text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) ? text : text + ".0"
    }

    /// `nan`, `inf` or `-inf`, for the values JSON numbers cannot spell.
    static func nonFinite(_ value: Double) -> String {
        value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf")
    }

    /// The value of a non-finite spelling.
    static func nonFinite(_ text: String) -> Double? {
        switch text {
        case "nan": .nan
        case "inf", "+inf": .infinity
        case "-inf": -.infinity
        default: nil
        }
    }
}

// MARK: - ISO 8601

/// `YYYY-MM-DDTHH:MM:SS[.fraction]Z` dates, written and read by hand so that the fraction can carry as many
/// digits as a `Double` needs, for years 1 to 9999.
enum ISO8601Text {
    /// Seconds from 1970 to 2001, the reference date of plist dates.
    private static let referenceOffset: Int64 = 978_307_200

    /// The text for seconds since 2001, and whether reading it back gives exactly the same `Double`; nil
    /// when the date is not finite or outside years 1…9999.
    static func format(_ time: Double) -> (text: String, isExact: Bool)? {
        guard time.isFinite, abs(time) < 1e12 else { return nil }
        let whole = time.rounded(.down)
        let fraction = time - whole  // exact: both are close in magnitude or `whole` is 0
        guard let seconds = Int64(exactly: whole) else { return nil }
        let unix = seconds + referenceOffset
        let days = unix >= 0 ? unix / 86_400 : (unix - 86_399) / 86_400
        let secondOfDay = unix - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        guard (1...9999).contains(year) else { return nil }
        let base = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T" + pad(secondOfDay / 3600, 2) + ":"
            + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
        var best = base + "Z"
        for digits in [0, 3, 6, 9] {
            let scale = pow(10, Double(digits))
            let scaled = (fraction * scale).rounded()
            // Rounding up to a whole second would need a carry into the seconds; the next width will do.
            guard scaled < scale, let units = Int64(exactly: scaled) else { continue }
            let text = digits == 0 ? base + "Z" : base + "." + pad(units, digits) + "Z"
            // Bit for bit: `==` would call the text of 0 exact for a time of -0.0 and drop the sign.
            if parse(text)?.bitPattern == time.bitPattern { return (text, true) }
            best = text
        }
        return (best, false)
    }

    /// Seconds since 2001 for `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, or nil.
    static func parse(_ text: String) -> Double? {
        let chars = Array(text.utf8)
        var i = 0
        func number(_ width: Int) -> Int64? {
            guard i + width <= chars.count else { return nil }
            var value: Int64 = 0
            for c in chars[i..<(i + width)] {
                guard (0x30...0x39).contains(c) else { return nil }
                value = value * 10 + Int64(c - 0x30)
            }
            i += width
            return value
        }
        func expect(_ c: Character) -> Bool {
            guard i < chars.count, chars[i] == c.asciiValue else { return false }
            i += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
            expect("T"), let hour = number(2), expect(":"), let minute = number(2), expect(":"),
            let second = number(2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var fraction = 0.0
        if i < chars.count, chars[i] == UInt8(ascii: ".") {
            let start = i
            i += 1
            while i < chars.count, (0x30...0x39).contains(chars[i]) { i += 1 }
            guard i > start + 1, let value = Double("0" + String(decoding: chars[start..<i], as: UTF8.self)) else {
                return nil
            }
            fraction = value
        }
        var offset: Int64 = 0
        if expect("Z") {
        } else if i < chars.count, chars[i] == UInt8(ascii: "+") || chars[i] == UInt8(ascii: "-") {
            let sign: Int64 = chars[i] == UInt8(ascii: "-") ? -1 : 1
            i += 1
            guard let h = number(2), expect(":"), let m = number(2) else { return nil }
            offset = sign * (h * 3600 + m * 60)
        } else {
            return nil
        }
        guard i == chars.count else { return nil }
        let unix = days(fromCivil: year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Double(unix - referenceOffset) + fraction
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    /// Howard Hinnant's `civil_from_days`: days since 1970-01-01 to a proleptic Gregorian date.
    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Howard Hinnant's `days_from_civil`, the inverse of ``civil(fromDays:)``.
    private static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}

// MARK: - Reading

/// A JSON scalar token.
enum JSONScalar {
    case string(String)
    /// An integer (`integer`/`unsignedInteger`) or a real, as the text spelled it.
    case number(ArchiveValue)
    case bool(Bool)
    case null
}

/// An iterative JSON parser (RFC 8259) that reports structure to a ``GraphJSONBuilder``; nesting costs heap,
/// not stack.
enum JSONParser {
    static func parse(_ bytes: [UInt8], into builder: inout GraphJSONBuilder) throws {
        var scanner = Scanner(bytes: bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { scanner.i = 3 }
        // Open containers: `true` for an object, `false` for an array.
        var open: [Bool] = []
        do {
            parsing: while true {
                // A value is expected here.
                scanner.skipWhitespace()
                guard let byte = scanner.peek() else {
                    throw scanner.error("unexpected end of input, expected a value")
                }
                var finishedValue = true
                switch byte {
                case UInt8(ascii: "{"):
                    scanner.i += 1
                    try builder.beginObject()
                    scanner.skipWhitespace()
                    if scanner.peek() == UInt8(ascii: "}") {
                        scanner.i += 1
                        try builder.endObject()
                    } else {
                        open.append(true)
                        try builder.key(scanner.readKey())
                        finishedValue = false
                    }
                case UInt8(ascii: "["):
                    scanner.i += 1
                    try builder.beginArray()
                    scanner.skipWhitespace()
                    if scanner.peek() == UInt8(ascii: "]") {
                        scanner.i += 1
                        try builder.endArray()
                    } else {
                        open.append(false)
                        finishedValue = false
                    }
                case UInt8(ascii: "\""):
                    try builder.scalar(.string(scanner.readString()))
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    try builder.scalar(.number(scanner.readNumber()))
                case UInt8(ascii: "t"):
                    try scanner.readLiteral("true")
                    try builder.scalar(.bool(true))
                case UInt8(ascii: "f"):
                    try scanner.readLiteral("false")
                    try builder.scalar(.bool(false))
                case UInt8(ascii: "n"):
                    try scanner.readLiteral("null")
                    try builder.scalar(.null)
                default:
                    throw scanner.error("unexpected character \(Scanner.describe(byte)), expected a value")
                }
                guard finishedValue else { continue parsing }
                // After a value: a separator, a closing bracket, or the end of the document.
                while true {
                    scanner.skipWhitespace()
                    guard let isObject = open.last else {
                        guard scanner.peek() == nil else {
                            throw scanner.error("unexpected data after the end of the JSON value")
                        }
                        return
                    }
                    guard let next = scanner.peek() else {
                        throw scanner.error("unexpected end of input, expected ',' or '\(isObject ? "}" : "]")'")
                    }
                    scanner.i += 1
                    if next == UInt8(ascii: ",") {
                        if isObject { try builder.key(scanner.readKey()) }
                        continue parsing
                    } else if isObject && next == UInt8(ascii: "}") {
                        open.removeLast()
                        try builder.endObject()
                    } else if !isObject && next == UInt8(ascii: "]") {
                        open.removeLast()
                        try builder.endArray()
                    } else {
                        scanner.i -= 1
                        throw scanner.error(
                            "unexpected character \(Scanner.describe(next)), expected ',' or '\(isObject ? "}" : "]")'")
                    }
                }
            }
        } catch var error as ArchiveJSONError {
            // Builder errors know what is wrong but not where; the scanner knows where.
            if error.offset == nil { error.offset = scanner.i }
            throw error
        }
    }

    struct Scanner {
        let bytes: [UInt8]
        var i = 0

        func peek() -> UInt8? { i < bytes.count ? bytes[i] : nil }

        func error(_ reason: String) -> ArchiveJSONError { ArchiveJSONError(reason, offset: i) }

        static func describe(_ byte: UInt8) -> String {
            (0x21..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
        }

        mutating func skipWhitespace() {
            while i < bytes.count {
                switch bytes[i] {
                case 0x20, 0x09, 0x0A, 0x0D: i += 1
                default: return
                }
            }
        }

        /// A key and its colon.
        mutating func readKey() throws -> String {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let key = try readString()
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else { throw error("expected ':' after the key") }
            i += 1
            return key
        }

        mutating func readLiteral(_ word: String) throws {
            let utf8 = Array(word.utf8)
            guard bytes.count - i >= utf8.count, bytes[i..<(i + utf8.count)].elementsEqual(utf8) else {
                throw error("invalid literal, expected '\(word)'")
            }
            i += utf8.count
        }

        mutating func readString() throws -> String {
            i += 1  // the opening quote
            var buffer: [UInt8] = []
            var runStart = i
            while true {
                guard i < bytes.count else { throw error("unterminated string") }
                let byte = bytes[i]
                if byte == UInt8(ascii: "\"") {
                    buffer.append(contentsOf: bytes[runStart..<i])
                    i += 1
                    break
                }
                if byte < 0x20 { throw error("control character \(Scanner.describe(byte)) in a string") }
                guard byte == UInt8(ascii: "\\") else {
                    i += 1
                    continue
                }
                buffer.append(contentsOf: bytes[runStart..<i])
                i += 1
                guard i < bytes.count else { throw error("unterminated escape") }
                let escaped = bytes[i]
                i += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(escaped)
                case UInt8(ascii: "b"): buffer.append(0x08)
                case UInt8(ascii: "f"): buffer.append(0x0C)
                case UInt8(ascii: "n"): buffer.append(0x0A)
                case UInt8(ascii: "r"): buffer.append(0x0D)
                case UInt8(ascii: "t"): buffer.append(0x09)
                case UInt8(ascii: "u"):
                    var code = try readHex4()
                    if (0xD800..<0xDC00).contains(code) {
                        guard bytes.count - i >= 6, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u")
                        else { throw error("unpaired UTF-16 surrogate in \\u escape") }
                        i += 2
                        let low = try readHex4()
                        guard (0xDC00..<0xE000).contains(low) else {
                            throw error("unpaired UTF-16 surrogate in \\u escape")
                        }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else {
                        throw error("unpaired UTF-16 surrogate in \\u escape")
                    }
                    buffer.append(contentsOf: String(Character(scalar)).utf8)
                default:
                    i -= 1
                    throw error("invalid escape \\\(Character(Unicode.Scalar(escaped)))")
                }
                runStart = i
            }
            guard let string = String(validating: buffer, as: UTF8.self) else {
                throw error("invalid UTF-8 in a string")
            }
            return string
        }

        private mutating func readHex4() throws -> UInt32 {
            guard bytes.count - i >= 4 else { throw error("truncated \\u escape") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let c = bytes[i]
                let digit: UInt8
                switch c {
                case 0x30...0x39: digit = c - 0x30
                case 0x41...0x46: digit = c - 0x41 + 10
                case 0x61...0x66: digit = c - 0x61 + 10
                default: throw error("invalid hex digit in \\u escape")
                }
                value = value << 4 | UInt32(digit)
                i += 1
            }
            return value
        }

        /// A number per the JSON grammar: integers stay integers (signed, then unsigned), anything with a
        /// fraction or exponent is a real.
        mutating func readNumber() throws -> ArchiveValue {
            let start = i
            func digits() -> Int {
                let from = i
                while i < bytes.count, (0x30...0x39).contains(bytes[i]) { i += 1 }
                return i - from
            }
            if peek() == UInt8(ascii: "-") { i += 1 }
            let intStart = i
            guard digits() > 0 else { throw error("invalid number") }
            if bytes[intStart] == UInt8(ascii: "0") && i - intStart > 1 {
                throw ArchiveJSONError("invalid number: leading zero", offset: intStart)
            }
            var isReal = false
            if peek() == UInt8(ascii: ".") {
                i += 1
                isReal = true
                guard digits() > 0 else { throw error("invalid number: no digits after '.'") }
            }
            if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
                i += 1
                isReal = true
                if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { i += 1 }
                guard digits() > 0 else { throw error("invalid number: no digits in the exponent") }
            }
            let text = String(decoding: bytes[start..<i], as: UTF8.self)
            if !isReal {
                if let value = Int64(text) { return .integer(value) }
                if let value = UInt64(text) { return .unsignedInteger(value) }
            }
            guard let value = Double(text) else { throw ArchiveJSONError("invalid number \(text)", offset: start) }
            return .real(value)
        }
    }
}

/// Turns parser events into a graph or a property-list value, following the JSON form described at the top
/// of this file. Each JSON object is interpreted when it closes, bottom-up; objects are created as shells by
/// `$uid` number so that `$ref`s (back, forward or cyclic) resolve to one instance.
struct GraphJSONBuilder {
    /// What a JSON value means at its place.
    enum Context: Equatable {
        /// The document: `{"$archiver": …, "$top": …}`.
        case document
        /// The `$top` object: literal keys, graph values.
        case top
        /// A graph value.
        case graph
        /// A property-list value (also the payload of every marker).
        case plist
    }

    /// A finished value.
    enum Node {
        case graph(ArchivedValue)
        case plist(ArchiveValue)
        case roots(OrderedDictionary<String, ArchivedValue>)
        case document(ArchiveGraph)
    }

    private struct Frame {
        var context: Context
        var isObject: Bool
        var entries: [(key: String, node: Node)] = []
        var items: [Node] = []
        /// Keys seen, kept only once an object is large enough for a linear duplicate scan to matter.
        var keySet: Set<String>?
        var pendingKey: String?
    }

    private let rootContext: Context
    private var stack: [Frame] = []
    private var result: Node?
    private var shells: [Int: ArchivedObject] = [:]
    private var defined: Set<Int> = []
    /// `$ref` numbers in order of first use, to report the first dangling one.
    private var referenced: [Int] = []
    private var referencedSet: Set<Int> = []

    init(root: Context) { rootContext = root }

    // MARK: Events

    mutating func beginObject() throws {
        stack.append(Frame(context: try childContext(), isObject: true))
    }

    mutating func key(_ key: String) throws {
        guard let last = stack.indices.last else { return }
        if stack[last].context == .document && key != GraphJSONKey.archiver && key != GraphJSONKey.top {
            throw ArchiveJSONError("unexpected key \"\(key)\" in the document; expected $archiver and $top")
        }
        // Mutate the frame in place: a copy would make every insert copy the key set.
        let isDuplicate: Bool
        if stack[last].keySet != nil {
            isDuplicate = stack[last].keySet?.insert(key).inserted == false
        } else {
            isDuplicate = stack[last].entries.contains { $0.key == key }
            if stack[last].entries.count >= 16 { stack[last].keySet = Set(stack[last].entries.map(\.key) + [key]) }
        }
        if isDuplicate { throw ArchiveJSONError("duplicate key \"\(key)\"") }
        stack[last].pendingKey = key
    }

    mutating func endObject() throws {
        guard let frame = stack.popLast() else { return }
        try add(interpret(frame))
    }

    mutating func beginArray() throws {
        let context = try childContext()
        guard context == .graph || context == .plist else {
            throw ArchiveJSONError(
                context == .document
                    ? "the document must be an object with $archiver and $top" : "$top must be an object")
        }
        stack.append(Frame(context: context, isObject: false))
    }

    mutating func endArray() throws {
        guard let frame = stack.popLast() else { return }
        if frame.context == .graph {
            try add(.graph(.array(frame.items.map(Self.graphValue))))
        } else {
            try add(.plist(.array(frame.items.map(Self.plistValue))))
        }
    }

    mutating func scalar(_ token: JSONScalar) throws {
        let context = try childContext()
        switch (context, token) {
        case (.document, _):
            throw ArchiveJSONError("the document must be an object with $archiver and $top")
        case (.top, _):
            throw ArchiveJSONError("$top must be an object")
        case (.graph, .null): try add(.graph(.null))
        case (.graph, .string(let s)): try add(.graph(.reference(.string(s))))
        case (.graph, .number(let n)): try add(.graph(.inline(n)))
        case (.graph, .bool(let b)): try add(.graph(.inline(.bool(b))))
        case (.plist, .null): throw ArchiveJSONError("null is not a property-list value")
        case (.plist, .string(let s)): try add(.plist(.string(s)))
        case (.plist, .number(let n)): try add(.plist(n))
        case (.plist, .bool(let b)): try add(.plist(.bool(b)))
        }
    }

    /// The finished value, after checking that every `$ref` names a defined object.
    mutating func finish() throws -> Node {
        guard stack.isEmpty, let result else { throw ArchiveJSONError("unexpected end of input") }
        if let dangling = referenced.first(where: { !defined.contains($0) }) {
            throw ArchiveJSONError("{\"$ref\": \(dangling)} names no object with \"$uid\": \(dangling)")
        }
        return result
    }

    // MARK: Structure

    /// The context of the value about to start, from its parent container and key.
    private func childContext() throws -> Context {
        guard let parent = stack.last else { return rootContext }
        guard parent.isObject else { return parent.context }
        let key = parent.pendingKey ?? ""
        switch parent.context {
        case .document: return key == GraphJSONKey.top ? .top : .plist
        case .top: return .graph
        case .graph: return GraphJSONKey.isMarker(key) ? .plist : .graph
        case .plist: return .plist
        }
    }

    private mutating func add(_ node: Node) throws {
        guard let last = stack.indices.last else {
            result = node
            return
        }
        if stack[last].isObject {
            stack[last].entries.append((stack[last].pendingKey ?? "", node))
            stack[last].pendingKey = nil
        } else {
            stack[last].items.append(node)
        }
    }

    private static func graphValue(_ node: Node) -> ArchivedValue {
        if case .graph(let value) = node { return value }
        return .null  // unreachable: children of graph containers are parsed in graph context
    }

    private static func plistValue(_ node: Node) -> ArchiveValue {
        if case .plist(let value) = node { return value }
        return .string("")  // unreachable: children of plist containers are parsed in plist context
    }

    // MARK: Objects

    private mutating func interpret(_ frame: Frame) throws -> Node {
        switch frame.context {
        case .document:
            return try document(frame.entries)
        case .top:
            var roots = OrderedDictionary<String, ArchivedValue>(minimumCapacity: frame.entries.count)
            for (key, node) in frame.entries {
                let value = Self.graphValue(node)
                // The archive readers refuse a container in `$top` (Apple writes only UIDs and scalars there), so
                // a graph holding one would write an archive that does not read back.
                switch value {
                case .array, .dictionary:
                    throw ArchiveJSONError("$top[\"\(key)\"] is a container; $top holds objects, scalars and null only")
                default: roots[key] = value
                }
            }
            return .roots(roots)
        case .graph:
            return .graph(try graphObject(frame.entries))
        case .plist:
            let markers = frame.entries.filter { GraphJSONKey.isMarker($0.key) }
            guard markers.isEmpty else { return .plist(try markedScalar(frame.entries, in: "a property-list value")) }
            var entries = OrderedDictionary<String, ArchiveValue>(minimumCapacity: frame.entries.count)
            for (key, node) in frame.entries { entries[GraphJSONKey.unescape(key)] = Self.plistValue(node) }
            return .plist(.dictionary(entries))
        }
    }

    private func document(_ entries: [(key: String, node: Node)]) throws -> Node {
        var archiver: String?
        var roots: OrderedDictionary<String, ArchivedValue>?
        for (key, node) in entries {
            switch (key, node) {
            case (GraphJSONKey.archiver, .plist(.string(let name))): archiver = name
            case (GraphJSONKey.archiver, _): throw ArchiveJSONError("$archiver must be a string")
            case (GraphJSONKey.top, .roots(let values)): roots = values
            default: throw ArchiveJSONError("unexpected key \"\(key)\" in the document")
            }
        }
        guard let archiver else { throw ArchiveJSONError("the document has no $archiver") }
        guard let roots else { throw ArchiveJSONError("the document has no $top") }
        return .document(ArchiveGraph(archiver: archiver, roots: roots))
    }

    /// A JSON object in graph context: an object, a `$ref`, a wrapper, a marked scalar, or a dictionary.
    private mutating func graphObject(_ entries: [(key: String, node: Node)]) throws -> ArchivedValue {
        let markerKeys = entries.lazy.map(\.key).filter(GraphJSONKey.isMarker)
        guard let firstMarker = markerKeys.first else {
            var dictionary = OrderedDictionary<String, ArchivedValue>(minimumCapacity: entries.count)
            for (key, node) in entries { dictionary[GraphJSONKey.unescape(key)] = Self.graphValue(node) }
            return .dictionary(dictionary)
        }
        let has = { (key: String) in entries.contains { $0.key == key } }
        if has(GraphJSONKey.ref) {
            guard entries.count == 1, let number = try integer(entries[0].node, GraphJSONKey.ref) else {
                throw ArchiveJSONError("{\"$ref\": n} must have one integer and no other key")
            }
            if referencedSet.insert(number).inserted { referenced.append(number) }
            return .object(shell(number))
        }
        if has(GraphJSONKey.className) { return .object(try object(entries)) }
        for (marker, isReference) in [(GraphJSONKey.inline, false), (GraphJSONKey.entry, true)] where has(marker) {
            guard entries.count == 1, case .plist(let value) = entries[0].node else {
                throw ArchiveJSONError("{\"\(marker)\": value} must have no other key")
            }
            return isReference ? .reference(value) : .inline(value)
        }
        guard [GraphJSONKey.uid, GraphJSONKey.classes].contains(firstMarker) == false else {
            throw ArchiveJSONError("\"\(firstMarker)\" outside an object with \"$class\"")
        }
        // $data, $date, $time, $real, $cfuid: in place by default (only strings default to referenced).
        return .inline(try markedScalar(entries, in: "an object graph"))
    }

    /// `{"$class": …, "$classes": […], "$uid": n, fields…}`.
    private mutating func object(_ entries: [(key: String, node: Node)]) throws -> ArchivedObject {
        var name: String?
        var chain: [String] = []
        var number: Int?
        var fields = OrderedDictionary<String, ArchivedValue>(minimumCapacity: entries.count)
        for (key, node) in entries {
            switch key {
            case GraphJSONKey.className:
                guard case .plist(.string(let value)) = node else { throw ArchiveJSONError("$class must be a string") }
                name = value
            case GraphJSONKey.classes:
                guard case .plist(.array(let names)) = node else {
                    throw ArchiveJSONError("$classes must be an array of strings")
                }
                chain = try names.map {
                    guard case .string(let s) = $0 else {
                        throw ArchiveJSONError("$classes must be an array of strings")
                    }
                    return s
                }
            case GraphJSONKey.uid:
                guard let value = try integer(node, GraphJSONKey.uid) else {
                    throw ArchiveJSONError("$uid must be an integer")
                }
                number = value
            default:
                guard !GraphJSONKey.isMarker(key) else {
                    throw ArchiveJSONError(
                        "unexpected marker \"\(key)\" in an object; escape field names as \"$\(key)\"")
                }
                let field = GraphJSONKey.unescape(key)
                // An instance's `$class` entry is its class reference: the writer puts the class there, so such a
                // field would be lost on the way to an archive (and no archive reader makes one).
                guard field != ArchiveKey.class else {
                    throw ArchiveJSONError("an object cannot have a field named \"$class\" (\"\(key)\"): archives keep its class there")
                }
                fields[field] = Self.graphValue(node)
            }
        }
        let archiveClass = ArchiveClass(name: name ?? "", chain: chain)
        guard let number else { return ArchivedObject(archiveClass: archiveClass, fields: fields) }
        guard defined.insert(number).inserted else { throw ArchiveJSONError("\"$uid\": \(number) is defined twice") }
        let object = shell(number)
        object.archiveClass = archiveClass
        object.fields = fields
        return object
    }

    private mutating func shell(_ number: Int) -> ArchivedObject {
        if let object = shells[number] { return object }
        let object = ArchivedObject(archiveClass: ArchiveClass(name: ""))
        shells[number] = object
        return object
    }

    /// `{"$data": …}`, `{"$date": …, "$time": …}`, `{"$real": …}` or `{"$cfuid": n}`.
    private func markedScalar(_ entries: [(key: String, node: Node)], in place: String) throws -> ArchiveValue {
        let keys = Set(entries.map(\.key))
        func only(_ key: String) throws -> Node {
            guard keys == [key], let node = entries.first?.node else {
                throw ArchiveJSONError("{\"\(key)\": …} must have no other key")
            }
            return node
        }
        if keys.contains(GraphJSONKey.data) {
            guard case .plist(.string(let text)) = try only(GraphJSONKey.data),
                let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters)
            else { throw ArchiveJSONError("$data must be a base64 string") }
            return .data([UInt8](data))
        }
        if keys.contains(GraphJSONKey.date) || keys.contains(GraphJSONKey.time) {
            guard keys.isSubset(of: [GraphJSONKey.date, GraphJSONKey.time]) else {
                throw ArchiveJSONError("a date has only \"$date\" and \"$time\" keys")
            }
            var time: Double?
            for (key, node) in entries {
                if key == GraphJSONKey.time {
                    time = try real(node, key)
                } else if time == nil {
                    guard case .plist(.string(let text)) = node, let parsed = ISO8601Text.parse(text) else {
                        throw ArchiveJSONError("$date must be an ISO 8601 date such as \"2001-01-01T00:00:00Z\"")
                    }
                    time = parsed
                }
            }
            return .date(Date(timeIntervalSinceReferenceDate: time ?? 0))
        }
        if keys.contains(GraphJSONKey.real) {
            return .real(try real(only(GraphJSONKey.real), GraphJSONKey.real))
        }
        if keys.contains(GraphJSONKey.cfuid) {
            guard case .plist(.integer(let value)) = try only(GraphJSONKey.cfuid), let raw = UInt32(exactly: value)
            else { throw ArchiveJSONError("$cfuid must be an integer from 0 to \(UInt32.max)") }
            return .uid(ArchiveUID(raw))
        }
        let marker = entries.first { GraphJSONKey.isMarker($0.key) }?.key ?? ""
        throw ArchiveJSONError("\"\(marker)\" is not allowed in \(place)")
    }

    private func integer(_ node: Node, _ key: String) throws -> Int? {
        guard case .plist(.integer(let value)) = node else { return nil }
        return Int(exactly: value)
    }

    private func real(_ node: Node, _ key: String) throws -> Double {
        switch node {
        case .plist(.real(let d)): return d
        case .plist(.integer(let i)): return Double(i)
        case .plist(.unsignedInteger(let u)): return Double(u)
        case .plist(.string(let s)):
            if let d = JSONNumberText.nonFinite(s) { return d }
        default: break
        }
        throw ArchiveJSONError("\(key) must be a number, \"nan\", \"inf\" or \"-inf\"")
    }
}
