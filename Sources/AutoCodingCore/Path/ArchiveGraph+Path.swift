import AutoCodingFast

extension ArchiveGraph {
    /// The values `path` leads to in a decoded graph: the eager counterpart of
    /// ``LazyKeyedArchive/values(at:)``, with the same steps and the same results. Errors name the step at
    /// fault; their reasons are shorter, since a decoded graph no longer knows UIDs.
    ///
    /// A path may reach at most `maxValues` values at any step (see ``ArchivePath/fanOutBudget(forInputBytes:)``);
    /// past it, the step throws.
    public func values(at path: ArchivePath, maxValues: Int = 1 << 20) throws(ArchivePathError) -> [ArchivedValue] {
        func failure(_ step: Int, _ reason: String) -> ArchivePathError {
            ArchivePathError(.stepNotApplicable, path: path.description, step: step, reason: reason)
        }
        guard let first = path.steps.first else { throw failure(0, "$top is not a value; add a step such as .root") }
        var current: [ArchivedValue]
        switch first {
        case .key(let key), .subscriptKey(let key):
            guard let root = roots[key] else { throw failure(1, "\(first): $top has no key \"\(key)\"") }
            current = [root]
        case .all:
            current = Array(roots.values)
        default:
            throw failure(1, "\(first): $top holds keys; \(first) does not name one")
        }
        for (number, step) in path.steps.enumerated().dropFirst() {
            var next: [ArchivedValue] = []
            for value in current {
                guard let found = Self.apply(step, to: value) else {
                    throw failure(number + 1, "\(step): the step does not apply to \(Self.describe(value))")
                }
                next += found
                guard next.count <= maxValues else {
                    throw ArchivePath.fanOutExceeded(path, step: number + 1, limit: maxValues)
                }
            }
            current = next
        }
        return current
    }

    private static func apply(_ step: ArchivePath.Step, to value: ArchivedValue) -> [ArchivedValue]? {
        let elements: [ArchivedValue]? =
            switch value {
            case .array(let elements): elements
            case .object(let object): object[FoundationKey.objects].flatMap { if case .array(let e) = $0 { e } else { nil } }
            default: nil
            }
        switch (step, value) {
        case (.key(let key), .object(let object)), (.subscriptKey(let key), .object(let object)):
            if let field = object[key] { return [field] }
            guard case .subscriptKey = step, case .array(let keys)? = object[FoundationKey.keys], let elements,
                let i = keys.firstIndex(where: { $0.string == key }), i < elements.count
            else { return nil }
            return [elements[i]]
        case (.key(let key), .dictionary(let entries)), (.subscriptKey(let key), .dictionary(let entries)):
            return entries[key].map { [$0] }
        case (.index(let i), _):
            return elements.flatMap { $0.indices.contains(i) ? [$0[i]] : nil }
        case (.all, .dictionary(let entries)):
            return Array(entries.values)
        case (.all, _):
            return elements
        default:
            return nil
        }
    }

    private static func describe(_ value: ArchivedValue) -> String {
        switch value {
        case .null: "$null"
        case .object(let object): "a \(object.className) instance"
        case .array: "an in-place array"
        case .dictionary: "an in-place dictionary"
        case .inline(let scalar), .reference(let scalar): "a \(scalar.typeName)"
        }
    }
}
