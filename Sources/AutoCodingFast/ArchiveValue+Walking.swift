/// Walks over value trees with explicit stacks: a value built from untrusted input (JSON, a plist read with a
/// raised depth limit, a caller's own tree) may nest as deep as it likes, and a recursive walk would spend
/// one call frame per level until the thread's stack runs out. Equality, hashing and the nesting check
/// therefore cost heap in proportion to the tree, never call stack.
extension ArchiveValue {
    /// Compares two trees node by node, with the same result as the synthesized comparison: the same cases,
    /// equal scalars (reals by `==`, so `NaN` differs from itself), arrays element by element and
    /// dictionaries key by key in order.
    public static func == (lhs: ArchiveValue, rhs: ArchiveValue) -> Bool {
        // A scalar, the usual operand, is compared without allocating the queue.
        if !lhs.isContainer || !rhs.isContainer { return scalarEqual(lhs, rhs) }
        var pending: [(ArchiveValue, ArchiveValue)] = [(lhs, rhs)]
        while let (a, b) = pending.popLast() {
            switch (a, b) {
            case (.array(let x), .array(let y)):
                guard x.count == y.count else { return false }
                for i in x.indices where !shallowEqual(x[i], y[i], pending: &pending) { return false }
            case (.dictionary(let x), .dictionary(let y)):
                guard x.count == y.count, x.keys.elementsEqual(y.keys) else { return false }
                for i in x.values.indices where !shallowEqual(x.values[i], y.values[i], pending: &pending) {
                    return false
                }
            default:
                guard scalarEqual(a, b) else { return false }
            }
        }
        return true
    }

    /// Compares scalars at once and queues pairs of containers (the common case stays off the queue).
    private static func shallowEqual(
        _ a: ArchiveValue, _ b: ArchiveValue, pending: inout [(ArchiveValue, ArchiveValue)]
    ) -> Bool {
        switch (a, b) {
        case (.array, .array), (.dictionary, .dictionary):
            pending.append((a, b))
            return true
        default:
            return scalarEqual(a, b)
        }
    }

    private static func scalarEqual(_ a: ArchiveValue, _ b: ArchiveValue) -> Bool {
        switch (a, b) {
        case (.bool(let x), .bool(let y)): x == y
        case (.integer(let x), .integer(let y)): x == y
        case (.unsignedInteger(let x), .unsignedInteger(let y)): x == y
        case (.real(let x), .real(let y)): x == y
        case (.date(let x), .date(let y)): x == y
        case (.data(let x), .data(let y)): x == y
        case (.string(let x), .string(let y)): x == y
        case (.uid(let x), .uid(let y)): x == y
        default: false
        }
    }

    /// Hashes the tree in a fixed depth-first order: equal trees (as ``==(_:_:)`` compares them) feed the
    /// hasher the same sequence.
    public func hash(into hasher: inout Hasher) {
        // A scalar, the usual key, is hashed without allocating the stack.
        guard isContainer else { return Self.hashScalar(self, into: &hasher) }
        var pending: [ArchiveValue] = [self]
        while let value = pending.popLast() {
            switch value {
            case .array(let elements):
                hasher.combine(8 as UInt8)
                hasher.combine(elements.count)
                pending.append(contentsOf: elements.reversed())
            case .dictionary(let entries):
                hasher.combine(9 as UInt8)
                hasher.combine(entries.count)
                for key in entries.keys { hasher.combine(key) }
                pending.append(contentsOf: entries.values.reversed())
            default:
                Self.hashScalar(value, into: &hasher)
            }
        }
    }

    /// Feeds a scalar's case and value to `hasher` (nothing for a container).
    private static func hashScalar(_ value: ArchiveValue, into hasher: inout Hasher) {
        switch value {
        case .bool(let v): hasher.combine(0 as UInt8); hasher.combine(v)
        case .integer(let v): hasher.combine(1 as UInt8); hasher.combine(v)
        case .unsignedInteger(let v): hasher.combine(2 as UInt8); hasher.combine(v)
        case .real(let v): hasher.combine(3 as UInt8); hasher.combine(v)
        case .date(let v): hasher.combine(4 as UInt8); hasher.combine(v)
        case .data(let v): hasher.combine(5 as UInt8); hasher.combine(v)
        case .string(let v): hasher.combine(6 as UInt8); hasher.combine(v)
        case .uid(let v): hasher.combine(7 as UInt8); hasher.combine(v)
        case .array, .dictionary: break
        }
    }

    /// Throws ``ArchiveError/Code-swift.struct/depthLimitExceeded`` when containers nest deeper than `limit`
    /// (the root container is at depth 1), the rule the readers apply to what they read.
    func checkNesting(within limit: Int) throws(ArchiveError) {
        var pending: [(value: ArchiveValue, depth: Int)] = [(self, 1)]
        while let (value, depth) = pending.popLast() {
            switch value {
            case .array(let elements):
                guard depth <= limit else { throw ArchiveError.depthLimitExceeded(limit, writing: true) }
                for element in elements where element.isContainer { pending.append((element, depth + 1)) }
            case .dictionary(let entries):
                guard depth <= limit else { throw ArchiveError.depthLimitExceeded(limit, writing: true) }
                for element in entries.values where element.isContainer { pending.append((element, depth + 1)) }
            default:
                break
            }
        }
    }

    /// Calls `body` with every value of the tree, the root first, without recursion.
    func forEachNode(_ body: (ArchiveValue) throws(ArchiveError) -> Void) throws(ArchiveError) {
        var pending: [ArchiveValue] = [self]
        while let value = pending.popLast() {
            try body(value)
            switch value {
            case .array(let elements): pending.append(contentsOf: elements)
            case .dictionary(let entries): pending.append(contentsOf: entries.values)
            default: break
            }
        }
    }

    /// Whether the value is an array or a dictionary.
    var isContainer: Bool {
        switch self {
        case .array, .dictionary: true
        default: false
        }
    }
}
