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
// | shared scalar, first time printed    | `{"$entry": value, "$uid": n}` or `{"$inline": value, "$uid": n}` |
// | the same scalar, every later time    | `{"$ref": n}`                                                     |
//
// A scalar is shared when one stored value (a string, data, or a plain array or dictionary: one binary-plist
// object) is reached from several places, as a `$objects` entry referenced by several UIDs is, or when strings or
// data of equal contents are (the graph cannot tell them apart, and `encode` writes them as one). Printing it once
// keeps the text linear in the archive: a 1 MiB string referenced 1,000 times would otherwise print 1 GB.
// Scalars of 15 bytes or less, numbers, booleans and dates are not tracked (each copy costs what its reference
// does). What still expands (plain containers sharing children inside one value, plain property lists) is bounded
// by the `maxOutputBytes` variants, which throw once the text passes the budget.
//
// Why the default form depends on the type: NSKeyedArchiver stores strings as their own `$objects` entries
// (`encodeObject:` of an NSString) and numbers, booleans and bytes in place (`encodeInteger:`, `encodeBool:`,
// `encodeBytes:`), so printing the usual form plainly keeps almost every value unwrapped (counted on the
// shared corpus: 8,364 referenced vs 282 in-place strings, 3,454 in-place vs 1,586 referenced integers,
// 909 in-place vs 20 referenced data). Property-list arrays and dictionaries used as scalars are always wrapped,
// since a bare JSON array or object is an in-place graph container.
//
// An object of a graph read from an archive prints its archive UID as `$uid` (the `#n` of `inspect`, the `UID n`
// of `get`); one read from JSON keeps its `$uid`. Objects made in code and shared scalars are numbered after
// those, from the largest plus one (from 1 in a graph made in code), in the order they are first printed.
// `$classes` is printed with the first object of each class name when its chain is not empty, and again only
// where an object's chain differs from that first one (an empty chain then prints as `[]`); an object without it
// has the chain of the first object of its name. A date whose ISO 8601 text does not give back the
// exact `Double` also carries `"$time"`, the seconds since 2001-01-01 (authoritative when present). A dictionary
// or field key that looks like a marker (`$data`, `$$data` …) gets one more leading `$`, so any key survives.

extension ArchiveGraph {
    /// The graph as a JSON string in the form described above: objects with `$class`/`$uid` the first
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

    /// ``json(prettyPrinted:)`` within an output budget: throws `ArchiveError.Code.limitExceeded`
    /// naming `maxOutputBytes` once the text passes it, instead of returning a partial document. Use it for
    /// untrusted input, with ``OutputBudget/bytes(forInputBytes:)`` as the budget.
    public func json(prettyPrinted: Bool = true, maxOutputBytes: Int) throws(ArchiveError) -> String {
        try JSONTextSink.text(prettyPrinted: prettyPrinted, maxOutputBytes: maxOutputBytes) { $0.write(self) }
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
            throw ArchiveJSONError(.invalidForm, "the JSON is not an archive graph")
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

    /// ``json(prettyPrinted:)`` within an output budget; see ``ArchiveGraph/json(prettyPrinted:maxOutputBytes:)``.
    public func json(prettyPrinted: Bool = true, maxOutputBytes: Int) throws(ArchiveError) -> String {
        try json(prettyPrinted: prettyPrinted, maxOutputBytes: maxOutputBytes, numbers: nil)
    }

    /// The same, naming objects by the numbers they had in their archive (see ``ArchiveGraph/objectNumbers``).
    package func json(prettyPrinted: Bool, maxOutputBytes: Int, numbers: ObjectNumbers?) throws(ArchiveError) -> String {
        try JSONTextSink.text(prettyPrinted: prettyPrinted, maxOutputBytes: maxOutputBytes) {
            $0.write(self, numbers: numbers)
        }
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

    /// ``json(prettyPrinted:)`` within an output budget; see ``ArchiveGraph/json(prettyPrinted:maxOutputBytes:)``.
    /// A plain property list has no `$ref`: a binary plist whose containers share children expands, and the
    /// budget is what bounds it.
    public func json(prettyPrinted: Bool = true, maxOutputBytes: Int) throws(ArchiveError) -> String {
        try JSONTextSink.text(prettyPrinted: prettyPrinted, maxOutputBytes: maxOutputBytes) { $0.write(self) }
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
            throw ArchiveJSONError(.invalidForm, "the JSON is not a property-list value")
        }
        self = value
    }
}
