import AutoCodingFast

extension ArchiveGraph {
    /// Whether two graphs have the same shape: the same roots, classes, keys and values, and the same
    /// sharing (two references to one object on one side are two references to one object on the other).
    ///
    /// Scalars compare by value; whether a scalar is stored in place or referenced must match. The walk uses
    /// a worklist, so long chains and cycles are compared without recursion along references.
    public func isEquivalent(to other: ArchiveGraph) -> Bool {
        var matcher = GraphMatcher()
        guard roots.keys == other.roots.keys else { return false }
        for (key, value) in roots where !matcher.match(value, other.roots[key]!) { return false }
        return matcher.drain()
    }
}

/// Pairs objects of two graphs one to one while comparing them.
struct GraphMatcher {
    private var forward: [ObjectIdentifier: ObjectIdentifier] = [:]
    private var backward: [ObjectIdentifier: ObjectIdentifier] = [:]
    private var pending: [(ArchivedObject, ArchivedObject)] = []

    /// Compares two values; objects are paired now and their fields compared by ``drain()``.
    mutating func match(_ a: ArchivedValue, _ b: ArchivedValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.inline(let x), .inline(let y)), (.reference(let x), .reference(let y)): return Self.same(x, y)
        case (.array(let x), .array(let y)):
            guard x.count == y.count else { return false }
            for (l, r) in zip(x, y) where !match(l, r) { return false }
            return true
        case (.dictionary(let x), .dictionary(let y)):
            guard x.keys == y.keys else { return false }
            for (key, l) in x where !match(l, y[key]!) { return false }
            return true
        case (.object(let x), .object(let y)):
            let (ix, iy) = (ObjectIdentifier(x), ObjectIdentifier(y))
            switch (forward[ix], backward[iy]) {
            case (nil, nil):
                forward[ix] = iy
                backward[iy] = ix
                pending.append((x, y))
                return true
            case (let fx?, let by?): return fx == iy && by == ix
            default: return false
            }
        default: return false
        }
    }

    /// Scalars compare by value, except that a NaN matches a NaN: a graph holding one (an `NSMeasurement` of
    /// `nan`) must be equivalent to itself.
    private static func same(_ x: ArchiveValue, _ y: ArchiveValue) -> Bool {
        switch (x, y) {
        case (.real(let a), .real(let b)): return a == b || (a.isNaN && b.isNaN)
        case (.date(let a), .date(let b)):
            let (s, t) = (a.timeIntervalSinceReferenceDate, b.timeIntervalSinceReferenceDate)
            return s == t || (s.isNaN && t.isNaN)
        default: return x == y
        }
    }

    /// Compares the fields of every paired object until none is left.
    mutating func drain() -> Bool {
        while let (x, y) = pending.popLast() {
            guard x.archiveClass == y.archiveClass, x.fields.keys == y.fields.keys else { return false }
            for (key, value) in x.fields where !match(value, y.fields[key]!) { return false }
        }
        return true
    }
}
