import AutoCodingFast

extension LazyKeyedArchive {
    /// The values `path` leads to, as graph values (an object comes with everything it reaches, shared
    /// references and cycles kept). One value unless the path has `[*]`.
    ///
    /// Only the objects on the path (and those the results reach) are read and validated. A step that does
    /// not apply (a missing key, an index out of range, a step into a string or `$null`) throws
    /// ``ArchivePathError`` naming the step; so does damage in the archive met on the way. With `[*]`, every
    /// branch must resolve.
    public func values(at path: ArchivePath) throws(ArchivePathError) -> [ArchivedValue] {
        let nodes = try nodes(at: path)
        var builder = LazyGraphBuilder(archive: self)
        var values: [ArchivedValue] = []
        values.reserveCapacity(nodes.count)
        for node in nodes {
            do {
                values.append(try builder.graphValue(ofObject: node))
            } catch {
                throw ArchivePathError(
                    .invalidArchive, path: path.description, step: path.steps.count, reason: error.description,
                    archiveError: error)
            }
        }
        return values
    }

    /// The size of the archive's bytes, which sets the fan-out budget of its paths.
    public var byteCount: Int { storage.raw.count }

    /// The values at the path written as `text`; see ``values(at:)``.
    public func values(at text: String) throws(ArchivePathError) -> [ArchivedValue] {
        try values(at: ArchivePath(parsing: text))
    }

    /// The bplist object numbers `path` leads to, UIDs not yet followed at the last step.
    private func nodes(at path: ArchivePath) throws(ArchivePathError) -> [Int] {
        let maxValues = ArchivePath.fanOutBudget(forInputBytes: byteCount)
        var current: [Int]? = nil  // nil: at `$top`
        for (number, step) in path.steps.enumerated() {
            var next: [Int] = []
            do {
                if let nodes = current {
                    for (branch, node) in nodes.enumerated() {
                        do {
                            try apply(step, to: node, into: &next)
                        } catch let failure as PathStepFailure where nodes.count > 1 {
                            throw PathStepFailure(reason: "\(failure.reason) (branch \(branch) of the fan-out)")
                        }
                        guard next.count <= maxValues else {
                            throw ArchivePath.fanOutExceeded(path, step: number + 1, limit: maxValues)
                        }
                    }
                } else if step == .all {
                    // One pass over `$top`: looking each key up again would be quadratic in the number of keys.
                    for (key, entry) in try entries(of: topDictionary) {
                        guard !(try kind(of: entry)).isContainer else {
                            throw ArchiveError(.unexpectedType, "$top[\"\(key)\"] is a container, not a UID or scalar")
                        }
                        next.append(entry)
                    }
                } else {
                    guard case .key(let key) = step.keyForm else {
                        throw PathStepFailure(reason: "$top holds keys; \(step) does not name one")
                    }
                    guard let entry = try topEntry(key) else {
                        throw PathStepFailure(reason: "$top has no key \"\(key)\" (keys: \(try topKeys().joined(separator: ", ")))")
                    }
                    next.append(entry)
                }
            } catch let failure as PathStepFailure {
                throw ArchivePathError(
                    .stepNotApplicable, path: path.description, step: number + 1, reason: "\(step): \(failure.reason)")
            } catch let error as ArchivePathError {
                throw error
            } catch let error as ArchiveError {
                throw ArchivePathError(
                    .invalidArchive, path: path.description, step: number + 1, reason: "\(step): \(error)",
                    archiveError: error)
            } catch {
                throw ArchivePathError(
                    .invalidArchive, path: path.description, step: number + 1, reason: "\(step): \(error)")
            }
            current = next
        }
        guard let current else {
            throw ArchivePathError(
                .stepNotApplicable, path: path.description, step: 0,
                reason: "$top is not a value; add a step such as .root")
        }
        return current
    }

    /// Applies one step to one node, appending what it leads to.
    private func apply(_ step: ArchivePath.Step, to node: Int, into next: inout [Int]) throws -> Void {
        let (object, uid) = try dereference(node)
        let kind = try kind(of: object)
        // Named only for messages: describing costs a class lookup the happy path does not need.
        func what() throws -> String { try describe(object, uid: uid) }
        switch step {
        case .key(let key), .subscriptKey(let key):
            guard kind == .dictionary else { throw PathStepFailure(reason: "\(try what()) has no keys") }
            if let value = try value(forKey: key, in: object) {
                next.append(value)
            } else if case .subscriptKey = step, let value = try dictionaryElement(key, in: object) {
                next.append(value)
            } else {
                throw PathStepFailure(reason: "\(try what()) has no key \"\(key)\"")
            }
        case .index(let i):
            let array = try elements(of: object, kind: kind, what: what)
            let count = try count(of: array)
            guard i >= 0, i < count else {
                throw PathStepFailure(
                    reason: i < 0
                        ? "index \(i) is negative (\(try what()))"
                        : "index \(i) is beyond the \(count) elements of \(try what())")
            }
            next.append(try element(i, of: array))
        case .all:
            if kind == .dictionary, try value(forKey: ArchiveKey.class, in: object) == nil {
                next.append(contentsOf: try entries(of: object).map(\.value))
                return
            }
            let array = try elements(of: object, kind: kind, what: what)
            for i in 0..<(try count(of: array)) { next.append(try element(i, of: array)) }
        }
    }

    /// Follows a UID to its `$objects` entry, and names what the step landed on for messages.
    private func dereference(_ node: Int) throws -> (object: Int, uid: ArchiveUID?) {
        guard try kind(of: node) == .uid else { return (node, nil) }
        let (uid, entry) = try follow(node)
        guard !uid.isNull else { throw PathStepFailure(reason: "the value is $null (UID 0)") }
        return (entry, uid)
    }

    /// `NSArray instance (UID 12)`, `an in-place array`, `a string`...
    private func describe(_ object: Int, uid: ArchiveUID?) throws -> String {
        let place = uid.map { " (UID \($0.rawValue))" } ?? " (in place)"
        let kind = try kind(of: object)
        if kind == .dictionary, let archiveClass = try archiveClass(ofObject: object) {
            return "\(archiveClass.name) instance\(place)"
        }
        let name = Self.kindName(kind)
        return (name.first.map { "aeiou".contains($0) } == true ? "an " : "a ") + name + place
    }

    private static func kindName(_ kind: BPlistIndex.Kind) -> String {
        switch kind {
        case .asciiString, .utf16String: "string"
        case .falseValue, .trueValue: "boolean"
        case .dictionary: "dictionary"
        default: "\(kind)"
        }
    }

    /// The array whose elements `[i]` and `[*]` index: the node itself, or an instance's `NS.objects`.
    private func elements(of object: Int, kind: BPlistIndex.Kind, what: () throws -> String) throws -> Int {
        if kind == .array { return object }
        if kind == .dictionary, let elements = try value(forKey: FoundationKey.objects, in: object),
            try self.kind(of: elements) == .array
        {
            return elements
        }
        throw PathStepFailure(reason: "\(try what()) is neither an array nor an NSArray/NSDictionary-like instance")
    }

    /// The `NS.objects` element whose `NS.keys` entry is the string `key`, for `NSDictionary`-like instances.
    private func dictionaryElement(_ key: String, in object: Int) throws -> Int? {
        guard let keys = try value(forKey: FoundationKey.keys, in: object), try kind(of: keys) == .array,
            let objects = try value(forKey: FoundationKey.objects, in: object), try kind(of: objects) == .array
        else { return nil }
        let count = min(try count(of: keys), try count(of: objects))
        for i in 0..<count {
            var candidate = try element(i, of: keys)
            if try kind(of: candidate) == .uid { candidate = try follow(candidate).entry }
            if case .string(key) = try value(at: candidate) { return try element(i, of: objects) }
        }
        return nil
    }
}

/// Why a step does not apply; becomes an ``ArchivePathError`` with the step number.
private struct PathStepFailure: Error {
    var reason: String
}

extension ArchivePath.Step {
    /// `.key` and `["key"]` both name a `$top` key.
    fileprivate var keyForm: ArchivePath.Step? {
        switch self {
        case .key(let key), .subscriptKey(let key): .key(key)
        default: nil
        }
    }
}
