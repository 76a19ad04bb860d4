/// The header rule of a keyed archive, the one copy every reader applies: the root is a dictionary holding at
/// least one of `$archiver`, `$objects` and `$top` (else the plist is not a keyed archive at all), then
/// `$archiver` a string, `$version` an integer, `$objects` an array and `$top` a dictionary, checked in that
/// order, and last `$version` 100000 when ``ArchiveReadingOptions/requiresKnownVersion``.
///
/// Readers differ only in what an entry is: a bplist object number for the whole-file view and the record
/// table (``init(reading:options:)``), an ``ArchiveValue`` for a tree that libplist or a caller built
/// (``KeyedArchive/init(propertyList:options:)``). Each describes its entries as a ``Field``.
struct KeyedArchiveHeader<Entry> {
    /// The `$archiver` name.
    var archiver: String
    /// The `$version`.
    var version: Int
    /// The `$objects` array.
    var objects: Entry
    /// The `$top` dictionary.
    var top: Entry

    /// What the rule needs to know of one root entry.
    struct Field {
        enum Kind { case string, integer, array, dictionary, other }
        var kind: Kind
        /// The reader's name for what the entry is, for messages.
        var name: String
        /// The string, when it is one.
        var string = ""
        /// The integer, when it is one and fits `Int64` (nil above `Int64.max`).
        var integer: Int64? = nil
    }

    /// Applies the rule to the root dictionary's entries, found by `entry` and described by `describe`.
    init(
        entry: (String) -> Entry?, describe: (Entry) throws(ArchiveError) -> Field, options: ArchiveReadingOptions
    ) throws(ArchiveError) {
        guard entry(ArchiveKey.objects) != nil || entry(ArchiveKey.archiver) != nil || entry(ArchiveKey.top) != nil
        else { throw ArchiveError(.notKeyedArchive, "the root dictionary has none of $archiver, $objects and $top") }

        func require(_ key: String, _ kind: Field.Kind, _ expected: String) throws(ArchiveError) -> (Entry, Field) {
            guard let found = entry(key) else { throw ArchiveError.missingKey(key, in: "the archive") }
            let field = try describe(found)
            guard field.kind == kind else { throw ArchiveError.unexpectedType("\(key) is a \(field.name), not a \(expected)") }
            return (found, field)
        }
        archiver = try require(ArchiveKey.archiver, .string, "string").1.string
        let versionField = try require(ArchiveKey.version, .integer, "integer").1
        objects = try require(ArchiveKey.objects, .array, "array").0
        top = try require(ArchiveKey.top, .dictionary, "dictionary").0
        guard let version = versionField.integer else {
            throw ArchiveError(.unsupportedVersion, "$version is above Int64.max")
        }
        if options.requiresKnownVersion && version != Int64(ArchiveKey.formatVersion) {
            throw ArchiveError(.unsupportedVersion, "$version is \(version), not \(ArchiveKey.formatVersion)")
        }
        self.version = Int(version)
    }

    /// The error for a plist whose root is not a dictionary; `name` says what it is.
    static func rootIsNotADictionary(_ name: String) -> ArchiveError {
        ArchiveError(.notKeyedArchive, "the property list's root is a \(name), not a dictionary")
    }

    /// The error for a `$top` entry that is a container: `$top` holds UIDs and inline scalars only.
    static func topEntryIsAContainer(_ key: String) -> ArchiveError {
        ArchiveError.unexpectedType("$top[\"\(key)\"] is a container, not a UID or scalar")
    }
}

extension KeyedArchiveHeader where Entry == Int {
    /// The header of the bplist whose records `source` reads: entries are bplist object numbers, each
    /// validated (on first touch, for the record table) as the rule reaches it.
    init(reading source: some RecordSource, options: ArchiveReadingOptions) throws(ArchiveError) {
        let root = source.reader.topObject
        let rootRecord = try source.record(root)
        guard rootRecord.kind == .dictionary else { throw Self.rootIsNotADictionary("\(rootRecord.kind)") }
        let n = Int(rootRecord.count)
        // Only `$` keys matter; a plist with many others (not an archive) is still read once.
        var found: [String: Int] = [:]
        for i in 0..<n {
            let key = source.string(source.validated(source.ref(root, i)))
            if key.hasPrefix("$") { found[key] = source.ref(root, n + i) }
        }
        try self.init(
            entry: { found[$0] },
            describe: { (object) throws(ArchiveError) in
                let record = try source.record(object)
                switch record.kind {
                // Literal names: interpolating a case name goes through reflection (3 M instructions, most of
                // what opening a lazy archive costs); only the error path below pays for it.
                case .asciiString:
                    return Field(kind: .string, name: "asciiString", string: source.string(record))
                case .utf16String:
                    return Field(kind: .string, name: "utf16String", string: source.string(record))
                case .integer:
                    guard case .integer(let v) = source.reader.integer(record, in: source.raw) else {
                        return Field(kind: .integer, name: "integer")
                    }
                    return Field(kind: .integer, name: "integer", integer: v)
                case .array: return Field(kind: .array, name: "array")
                case .dictionary: return Field(kind: .dictionary, name: "dictionary")
                default: return Field(kind: .other, name: "\(record.kind)")
                }
            },
            options: options)
    }
}
