import AutoCodingFast
import OrderedCollections

extension ArchiveGraph {
    /// The values `path` leads to in a decoded graph: the eager counterpart of
    /// ``AutoCodingFast/LazyKeyedArchive/values(at:)-(ArchivePath)``, with the same steps, results and errors,
    /// except that a decoded graph no longer knows UIDs, so its messages name none.
    ///
    /// A path may reach at most `maxValues` values at any step (see ``ArchivePath/fanOutBudget(forInputBytes:)``);
    /// past it, the step throws.
    public func values(at path: ArchivePath, maxValues: Int = 1 << 20) throws(ArchivePathError) -> [ArchivedValue] {
        try PathWalk.nodes(at: path, in: GraphPathWalker(roots: roots), maxValues: maxValues)
    }
}

/// Paths over a decoded graph. A plain `$objects` entry is a `.reference` to an array or dictionary scalar (the
/// graph keeps it whole); steps see it as the array or dictionary it is, as the lazy reader does, and its
/// elements as the in-place values the lazy reader gives for them.
private struct GraphPathWalker: PathWalker {
    let roots: OrderedDictionary<String, ArchivedValue>

    var topValue: ArchivedValue? { nil }

    func topEntry(_ key: String) -> ArchivedValue? { roots[key] }

    func topEntries() -> [ArchivedValue] { Array(roots.values) }

    func topKeys() -> [String] { Array(roots.keys) }

    func place(of node: ArchivedValue) throws -> ArchivedValue {
        guard !node.isNull else { throw PathStepFailure(reason: "the value is $null") }
        return node
    }

    func shape(of place: ArchivedValue) -> PathShape {
        switch place {
        case .object: .instance
        case .array, .reference(.array), .inline(.array): .array
        case .dictionary, .reference(.dictionary), .inline(.dictionary): .dictionary
        default: .scalar
        }
    }

    func value(forKey key: String, in place: ArchivedValue) -> ArchivedValue? {
        switch place {
        case .object(let object): object[key]
        case .dictionary(let entries): entries[key]
        case .reference(.dictionary(let entries)), .inline(.dictionary(let entries)): entries[key].map(Self.inPlace)
        default: nil
        }
    }

    func entryValues(of place: ArchivedValue) -> [ArchivedValue] {
        switch place {
        case .dictionary(let entries): Array(entries.values)
        case .reference(.dictionary(let entries)), .inline(.dictionary(let entries)): entries.values.map(Self.inPlace)
        default: []
        }
    }

    func instanceArray(_ key: String, of place: ArchivedValue) -> ArchivedValue? {
        // In place only, as in the lazy reader: an `NS.objects` behind a UID is not an instance's array.
        guard case .object(let object) = place, case .array? = object[key] else { return nil }
        return object[key]
    }

    func count(of array: ArchivedValue) -> Int {
        switch array {
        case .array(let elements): elements.count
        case .reference(.array(let elements)), .inline(.array(let elements)): elements.count
        default: 0
        }
    }

    func element(_ i: Int, of array: ArchivedValue) -> ArchivedValue {
        switch array {
        case .array(let elements): elements[i]
        case .reference(.array(let elements)), .inline(.array(let elements)): Self.inPlace(elements[i])
        default: .null
        }
    }

    func string(_ node: ArchivedValue) -> String? { node.string }

    func memoKey(of place: ArchivedValue) -> AnyHashable? { place.object.map(ObjectIdentifier.init) }

    func describe(_ place: ArchivedValue) -> String {
        switch place {
        case .null: "$null"
        case .object(let object): "\(object.className) instance"
        case .array: "an array (in place)"
        case .dictionary: "a dictionary (in place)"
        case .inline(let scalar): PathWalk.withArticle(scalar.pathTypeName) + " (in place)"
        case .reference(let scalar): PathWalk.withArticle(scalar.pathTypeName)
        }
    }

    /// A value inside a plain entry as the graph value of an in-place value: containers as graph containers,
    /// scalars inline. Recursive, but only as deep as the archive's nesting, which the reader bounded
    /// (``AutoCodingFast/ArchiveReadingOptions/depthLimit``) before the graph was built.
    static func inPlace(_ value: ArchiveValue) -> ArchivedValue {
        switch value {
        case .array(let elements): .array(elements.map(inPlace))
        case .dictionary(let entries): .dictionary(entries.mapValues(inPlace))
        default: .inline(value)
        }
    }
}

extension ArchiveValue {
    /// The values `path` leads to in a plain property list, whose root `$top` stands for: `$top.name`
    /// (key path `name`) is the root dictionary's entry `name`, `$top[0]` (key path `0`) the root array's
    /// first element. The steps mean what they mean in an archive (``ArchivePath``); a property list has no
    /// instances and no UIDs to follow.
    ///
    /// A path may reach at most `maxValues` values at any step; past it, the step throws.
    public func values(at path: ArchivePath, maxValues: Int = 1 << 20) throws(ArchivePathError) -> [ArchiveValue] {
        try PathWalk.nodes(at: path, in: PropertyListPathWalker(root: self), maxValues: maxValues)
    }

    /// The name messages use: `boolean`, `integer`, `string` … as the lazy reader names them.
    var pathTypeName: String {
        switch self {
        case .bool: "boolean"
        case .uid: "uid"
        default: typeName
        }
    }
}

/// Paths over a plain property list: `$top` is its root.
private struct PropertyListPathWalker: PathWalker {
    let root: ArchiveValue

    var topValue: ArchiveValue? { root }
    func topEntry(_ key: String) -> ArchiveValue? { nil }
    func topEntries() -> [ArchiveValue] { [] }
    func topKeys() -> [String] { [] }

    func place(of node: ArchiveValue) -> ArchiveValue { node }

    func shape(of place: ArchiveValue) -> PathShape {
        switch place {
        case .array: .array
        case .dictionary: .dictionary
        default: .scalar
        }
    }

    func value(forKey key: String, in place: ArchiveValue) -> ArchiveValue? {
        if case .dictionary(let entries) = place { return entries[key] }
        return nil
    }

    func entryValues(of place: ArchiveValue) -> [ArchiveValue] {
        if case .dictionary(let entries) = place { return Array(entries.values) }
        return []
    }

    func instanceArray(_ key: String, of place: ArchiveValue) -> ArchiveValue? { nil }

    func count(of array: ArchiveValue) -> Int { array.arrayValue?.count ?? 0 }

    func element(_ i: Int, of array: ArchiveValue) -> ArchiveValue { array.arrayValue?[i] ?? array }

    func string(_ node: ArchiveValue) -> String? { node.stringValue }

    func describe(_ place: ArchiveValue) -> String { PathWalk.withArticle(place.pathTypeName) }

    /// A dictionary's entry is a hash lookup and an array's element an index: no step scans.
    func memoKey(of place: ArchiveValue) -> AnyHashable? { nil }
}
