import AutoCodingFast

// MARK: - The plain JSON form
//
// The data as people want it for `jq`, with no markers to learn. It does not read back into an archive: use the
// lossless form (`json(prettyPrinted:)`) for that.
//
// | archive value                               | plain JSON                                                  |
// |---------------------------------------------|-------------------------------------------------------------|
// | the document                                | `{"root": …}`: the `$top` entries                            |
// | `NSArray`, `NSSet`, `NSOrderedSet`          | an array (a set in archive order)                           |
// | `NSDictionary`, string or number keys       | an object; number and boolean keys as their JSON text       |
// | `NSDictionary`, other or colliding keys     | an array of `{"key": k, "value": v}`                        |
// | string, number, boolean, `NSNull`/`$null`   | a JSON string, number, boolean, `null`                      |
// | non-finite real                             | `"nan"`, `"inf"`, `"-inf"`                                  |
// | data (`NSData`)                             | base64 text                                                 |
// | date (`NSDate`)                             | ISO 8601 text in UTC (`2001-01-01T00:00:00Z`)               |
// | `NSUUID`, `NSURL`                           | `uuidString`, `absoluteString` text                         |
// | `NSValue` range / point / size / rect       | `{"location", "length"}`, `{"x", "y"}`, `{"width", "height"}`, `{"x", "y", "width", "height"}` |
// | `NSAttributedString`                        | its text; `{"text", "runs"}` with ``PlainJSONOptions/includesAttributeRuns`` |
// | an object of any other class                | an object of its fields; `"$class"` first with ``PlainJSONOptions/includesClassNames`` |
// | an object inside itself (a cycle)           | `{"$cycle": "ClassName"}`                                   |
// | a UID in a plain property list              | its number                                                  |
// | data holding a plist, archive or typedstream | with ``PlainJSONOptions/nestedLevels``: its plain form in place |
//
// Shared objects and values print in full at every reference, so the text can be much larger than the
// archive: every entry point takes an output budget and throws once the text passes it.

extension ArchiveGraph {
    /// The graph's data as plain JSON (see the table above): Foundation values as JSON values, other objects as
    /// objects of their fields, shared references expanded and cycles cut with `{"$cycle": "ClassName"}`.
    ///
    /// The walk uses an explicit stack, so deep graphs cost no thread stack. Throws
    /// `ArchiveError.Code.limitExceeded` naming `maxOutputBytes` once the text passes it (a DAG
    /// of shared arrays expands exponentially); use ``OutputBudget/bytes(forInputBytes:)`` for untrusted input.
    public func plainJSON(
        prettyPrinted: Bool = true, options: PlainJSONOptions = PlainJSONOptions(), maxOutputBytes: Int
    ) throws(ArchiveError) -> String {
        try PlainJSONWriter.text(prettyPrinted: prettyPrinted, options: options, maxOutputBytes: maxOutputBytes) {
            $0.write(self)
        }
    }
}

extension ArchivedValue {
    /// One graph value as plain JSON; see ``ArchiveGraph/plainJSON(prettyPrinted:options:maxOutputBytes:)``.
    public func plainJSON(
        prettyPrinted: Bool = true, options: PlainJSONOptions = PlainJSONOptions(), maxOutputBytes: Int
    ) throws(ArchiveError) -> String {
        try PlainJSONWriter.text(prettyPrinted: prettyPrinted, options: options, maxOutputBytes: maxOutputBytes) {
            $0.write(self)
        }
    }
}

extension ArchiveValue {
    /// A property-list value as plain JSON: data as base64 text, dates as ISO 8601 text, UIDs as numbers.
    /// A binary plist whose containers share children expands; the budget bounds it.
    /// Of the options, ``PlainJSONOptions/nestedLevels`` applies (a plain plist has no objects or runs).
    public func plainJSON(
        prettyPrinted: Bool = true, options: PlainJSONOptions = PlainJSONOptions(), maxOutputBytes: Int
    ) throws(ArchiveError) -> String {
        try PlainJSONWriter.text(prettyPrinted: prettyPrinted, options: options, maxOutputBytes: maxOutputBytes) {
            $0.write(self)
        }
    }
}

extension TypedGraph {
    /// A typedstream's data as plain JSON, read through its keyed form (``keyedArchiveGraph()``), so that its
    /// Foundation values print as they do from a keyed archive: `{"root": …}`, further top-level values as
    /// `"$1"`, `"$2"` …; `NSValue` ranges and geometry as objects; an iMessage `attributedBody` as its text.
    public func plainJSON(
        prettyPrinted: Bool = true, options: PlainJSONOptions = PlainJSONOptions(), maxOutputBytes: Int
    ) throws(ArchiveError) -> String {
        try keyedArchiveGraph().plainJSON(prettyPrinted: prettyPrinted, options: options, maxOutputBytes: maxOutputBytes)
    }
}

extension PlainJSONWriter where Sink == JSONTextSink {
    /// Runs `write` with a budgeted writer and returns its text, or throws once the text passes the budget.
    static func text(
        prettyPrinted: Bool, options: PlainJSONOptions, maxOutputBytes: Int, _ write: (inout Self) -> Void
    ) throws(ArchiveError) -> String {
        var writer = Self(sink: JSONTextSink(prettyPrinted: prettyPrinted, maxBytes: maxOutputBytes), options: options)
        write(&writer)
        guard !writer.sink.isFull else { throw OutputBudget.exceeded(maxOutputBytes, what: "the plain JSON text") }
        return writer.sink.text
    }
}
