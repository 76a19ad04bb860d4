import AutoCodingFast

extension ArchiveGraph {
    /// Whether two graphs have the same shape: the same roots, classes, keys and values, and the same
    /// sharing (two references to one object on one side are two references to one object on the other).
    ///
    /// Scalars compare by value; whether a scalar is stored in place or referenced must match. What an
    /// unarchiver cannot observe does not count: the order of an object's keys (it reads them by name), and
    /// the order of an `NSDictionary`'s entries when its keys are scalars (it is read as a hash table). The
    /// walk uses a worklist, so long chains and cycles are compared without recursion along references.
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
    /// In-place array storages already found equal: shared children (a binary plist's DAG) compare once, so
    /// the walk costs what the graphs hold, not what they expand to.
    private var matchedArrays: Set<[StorageIdentity]> = []

    /// Compares two values; objects are paired now and their fields compared by ``drain()``.
    mutating func match(_ a: ArchivedValue, _ b: ArchivedValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.inline(let x), .inline(let y)), (.reference(let x), .reference(let y)): return Self.same(x, y)
        case (.array(let x), .array(let y)):
            guard x.count == y.count else { return false }
            let pair = StorageIdentity(x).flatMap { a in StorageIdentity(y).map { [a, $0] } }
            if let pair, matchedArrays.contains(pair) { return true }
            for (l, r) in zip(x, y) where !match(l, r) { return false }
            if let pair { matchedArrays.insert(pair) }
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
            guard x.archiveClass == y.archiveClass, x.fields.count == y.fields.count else { return false }
            var skipped: Set<String> = []
            if FoundationClass.dictionaryNames.contains(x.className),
                let left = Self.scalarKeyedEntries(x), let right = Self.scalarKeyedEntries(y)
            {
                guard left.count == right.count else { return false }
                for (key, value) in left {
                    guard let other = right[key], match(value, other) else { return false }
                }
                skipped = [FoundationKey.keys, FoundationKey.objects]
            }
            for (key, value) in x.fields where !skipped.contains(key) {
                guard let other = y.fields[key], match(value, other) else { return false }
            }
        }
        return true
    }

    /// A dictionary object's entries keyed by scalar (and by whether the key is stored in place), or nil when
    /// some key is an object or repeats: then the entries compare in order.
    private static func scalarKeyedEntries(_ object: ArchivedObject) -> [ScalarKey: ArchivedValue]? {
        guard case .array(let keys)? = object[FoundationKey.keys], case .array(let values)? = object[FoundationKey.objects],
            keys.count == values.count
        else { return nil }
        var entries: [ScalarKey: ArchivedValue] = [:]
        for (key, value) in zip(keys, values) {
            let scalarKey: ScalarKey
            switch key {
            case .inline(let scalar): scalarKey = ScalarKey(scalar: scalar, isInline: true)
            case .reference(let scalar): scalarKey = ScalarKey(scalar: scalar, isInline: false)
            default: return nil
            }
            guard entries.updateValue(value, forKey: scalarKey) == nil else { return nil }
        }
        return entries
    }

    private struct ScalarKey: Hashable {
        var scalar: ArchiveValue
        var isInline: Bool
    }
}
