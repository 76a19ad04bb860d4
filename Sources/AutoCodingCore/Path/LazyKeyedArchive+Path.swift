import AutoCodingFast

extension LazyKeyedArchive {
    /// The values `path` leads to, as graph values (an object comes with everything it reaches, shared
    /// references and cycles kept). One value unless the path has `[*]`.
    ///
    /// Only the objects on the path (and those the results reach) are read and validated. A step that does
    /// not apply (a missing key, an index out of range, a step into a string or `$null`) throws
    /// ``ArchivePathError`` naming the step; so does damage in the archive met on the way. With `[*]`, every
    /// branch must resolve, and a path may reach at most ``ArchivePath/fanOutBudget(forInputBytes:)`` values.
    public func values(at path: ArchivePath) throws(ArchivePathError) -> [ArchivedValue] {
        try numberedValues(at: path).values
    }

    /// ``values(at:)`` with the archive UID of every object the values reach, for JSON that numbers objects as
    /// `json` and `inspect` do.
    package func numberedValues(at path: ArchivePath) throws(ArchivePathError)
        -> (values: [ArchivedValue], numbers: ObjectNumbers)
    {
        let nodes = try PathWalk.nodes(
            at: path, in: LazyPathWalker(archive: self), maxValues: ArchivePath.fanOutBudget(forInputBytes: byteCount))
        var builder = LazyGraphBuilder(archive: self)
        var values: [ArchivedValue] = []
        values.reserveCapacity(nodes.count)
        for node in nodes {
            do {
                values.append(try builder.graphValue(ofObject: node))
            } catch {
                // The objects read so far may be on cycles, which would outlive the error (ReferenceCycles.swift).
                builder.emptyObjects()
                throw ArchivePathError(
                    .invalidArchive, path: path.description, step: path.steps.count, reason: error.description,
                    archiveError: error)
            }
        }
        return (values, builder.objectNumbers)
    }

    /// The size of the archive's bytes, which sets the fan-out budget of its paths.
    public var byteCount: Int { storage.raw.count }

    /// The values at the path written as `text` (either syntax of ``ArchivePath/init(parsing:)``); see
    /// ``values(at:)``.
    public func values(at text: String) throws(ArchivePathError) -> [ArchivedValue] {
        try values(at: ArchivePath(parsing: text))
    }
}

/// Paths over the lazy archive: nodes are bplist object numbers, read and validated as the walk reaches them.
private struct LazyPathWalker: PathWalker {
    /// A bplist object with the UID that led to it (nil for an in-place value), for messages.
    struct Place {
        var object: Int
        var uid: ArchiveUID?
    }

    let archive: LazyKeyedArchive

    var topValue: Int? { nil }

    func topEntry(_ key: String) throws -> Int? { try archive.topEntry(key) }

    func topEntries() throws -> [Int] { try archive.topEntries() }

    func topKeys() throws -> [String] { try archive.topKeys() }

    func place(of node: Int) throws -> Place {
        guard try archive.kind(of: node) == .uid else { return Place(object: node, uid: nil) }
        let (uid, entry) = try archive.follow(node)
        guard !uid.isNull else { throw PathStepFailure(reason: "the value is $null (UID 0)") }
        return Place(object: entry, uid: uid)
    }

    func shape(of place: Place) throws -> PathShape {
        switch try archive.kind(of: place.object) {
        case .dictionary:
            try archive.value(forKey: ArchiveKey.class, in: place.object) == nil ? .dictionary : .instance
        case .array: .array
        default: .scalar
        }
    }

    func value(forKey key: String, in place: Place) throws -> Int? {
        // `$class` names an instance's class, not a field (the graph keeps no such field either); a dictionary
        // that has one is an instance.
        key == ArchiveKey.class ? nil : try archive.value(forKey: key, in: place.object)
    }

    func entryValues(of place: Place) throws -> [Int] { try archive.entries(of: place.object).map(\.value) }

    func instanceArray(_ key: String, of place: Place) throws -> Place? {
        guard let array = try archive.value(forKey: key, in: place.object), try archive.kind(of: array) == .array else {
            return nil
        }
        return Place(object: array, uid: nil)
    }

    func count(of array: Place) throws -> Int { try archive.count(of: array.object) }

    func element(_ i: Int, of array: Place) throws -> Int { try archive.element(i, of: array.object) }

    func string(_ node: Int) throws -> String? {
        var object = node
        if try archive.kind(of: object) == .uid { object = try archive.follow(object).entry }
        switch try archive.kind(of: object) {
        case .asciiString, .utf16String: return try archive.value(at: object).stringValue
        default: return nil
        }
    }

    func memoKey(of place: Place) -> AnyHashable? { place.object }

    func describe(_ place: Place) throws -> String {
        let where_ = place.uid.map { " (UID \($0.rawValue))" } ?? " (in place)"
        let kind = try archive.kind(of: place.object)
        if kind == .dictionary, let archiveClass = try archive.archiveClass(ofObject: place.object) {
            return "\(archiveClass.name) instance\(where_)"
        }
        return PathWalk.withArticle(Self.kindName(kind)) + where_
    }

    private static func kindName(_ kind: BPlistIndex.Kind) -> String {
        switch kind {
        case .asciiString, .utf16String: "string"
        case .falseValue, .trueValue: "boolean"
        case .dictionary: "dictionary"
        default: "\(kind)"
        }
    }
}
