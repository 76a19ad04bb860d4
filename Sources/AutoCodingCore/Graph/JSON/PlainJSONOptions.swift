/// What the plain JSON form (``ArchiveGraph/plainJSON(prettyPrinted:options:maxOutputBytes:)``) adds to the data.
///
/// The plain form is the data as people read it (dictionaries as JSON objects, arrays and sets as arrays, dates
/// as ISO 8601 text …); it does not read back into an archive. Both additions are off by default, so that a
/// path such as `.root[].name` reaches the values.
public struct PlainJSONOptions: Hashable, Sendable {
    /// Print `"$class": "Name"` as the first key of every object of a class without a Foundation mapping.
    public var includesClassNames: Bool
    /// Print an attributed string as `{"text": …, "runs": [{"location", "length", "attributes"}]}` (UTF-16
    /// ranges, as Foundation counts them) instead of its text alone.
    public var includesAttributeRuns: Bool
    /// How many levels of data that is itself a binary or XML property list, keyed archive or typedstream are
    /// decoded in place (0: none, data prints as base64). A nested archive prints as its own `{"root": …}`, a
    /// nested plist as its value; data that does not decode stays base64. Every byte decoded is spent from the
    /// output budget, so a blob referenced many times cannot cost more than the budget.
    public var nestedLevels: Int

    /// Options with the additions off unless asked for.
    public init(includesClassNames: Bool = false, includesAttributeRuns: Bool = false, nestedLevels: Int = 0) {
        self.includesClassNames = includesClassNames
        self.includesAttributeRuns = includesAttributeRuns
        self.nestedLevels = nestedLevels
    }
}
