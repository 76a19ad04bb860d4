import OrderedCollections

/// Freeing graphs whose objects reference each other in a cycle.
///
/// ARC frees an object when its last reference goes, so objects on a cycle (a view and its superview, a node and
/// its parent, or a cycle a hostile archive makes up) keep each other alive after the graph that held them is
/// gone. A process that reads archive after archive would grow by every such graph; these functions empty the
/// objects instead, after which ARC frees them.
extension ArchiveGraph {
    /// Empties every object of the graph (its ``ArchivedObject/fields``), so that objects on reference cycles are
    /// freed once nothing else holds them.
    ///
    /// Call it when done with a graph read from untrusted or unknown input in a long-running process (a service,
    /// a batch): a graph is otherwise freed only when none of its objects is on a cycle. Every object the graph
    /// reached is empty afterwards, also one still held elsewhere, so take what you need out of it first. A graph
    /// read from bytes also empties the objects its `$top` does not reach.
    public func breakReferenceCycles() {
        ArchivedValue.emptyObjects(reachableFrom: Array(roots.values))
        objectNumbers?.forEachObject { if !$0.fields.isEmpty { $0.fields = [:] } }
    }
}

extension TypedGraph {
    /// Empties every object of the graph (its ``TypedObject/groups``), so that objects on reference cycles are
    /// freed once nothing else holds them; see ``ArchiveGraph/breakReferenceCycles()``.
    public func breakReferenceCycles() {
        // No set of objects seen: an object emptied before has no groups left, so the walk stops at it. The stack
        // holds only values that may hold objects, and an object's groups are moved out of it, so that the walk
        // frees the graph as it goes.
        var pending: [TypedValue] = []
        for group in groups { group.appendNested(to: &pending) }
        while let value = pending.popLast() {
            switch value {
            case .object(let object):
                var taken: [TypedGroup] = []
                swap(&taken, &object.groups)
                while let group = taken.popLast() { group.appendNested(to: &pending) }
            case .array(let nested, _), .structure(let nested, _):
                for element in nested where element.mayHoldObjects { pending.append(element) }
            default:
                continue
            }
        }
    }
}

extension ArchivedValue {
    /// Empties every object this value reaches, so that objects on reference cycles are freed; for what a typed
    /// decode hands out (an ``ArchivedValue`` property, an object of an unknown class kept as
    /// ``ArchivedObject``: `.object(kept).breakReferenceCycles()`). See ``ArchiveGraph/breakReferenceCycles()``.
    public func breakReferenceCycles() {
        Self.emptyObjects(reachableFrom: [self])
    }

    /// Empties every object that `values` reach, with an explicit stack. Each object's fields are taken out of it as
    /// it is reached, so an object reached again has none left to follow and needs no set of objects seen. The stack
    /// holds arrays of values, each emptied from its end: an object's values, once taken out of it, are held by the
    /// walk alone and move out of their array rather than being copied and retained, so the walk frees the graph as
    /// it goes. (W1's graph, 835,000 objects, is emptied and freed in 0.29–0.30 s; with a set of objects seen and the
    /// values copied, in 0.45–0.48 s.) In-place containers shared by many references are walked once, as in
    /// ``forEachObject(reachableFrom:_:)``, so a graph built within the reading budget is emptied within it. (Their
    /// identities stay distinct: every container walked existed, with its storage, before the walk.)
    package static func emptyObjects(reachableFrom values: [ArchivedValue]) {
        var seenContainers: Set<StorageIdentity> = []
        var pending = [values]
        while var current = pending.popLast() {
            while let value = current.popLast() {
                switch value {
                case .object(let object):
                    // Taken whether empty or not: one access to the property (each checked at run time), not two.
                    var taken: OrderedDictionary<String, ArchivedValue> = [:]
                    swap(&taken, &object.fields)
                    if !taken.isEmpty { pending.append(taken.values.elements) }
                default:
                    if let elements = seenContainers.elementsOnFirstVisit(value) { pending.append(elements) }
                }
            }
        }
    }

    /// Calls `body` once for each object that `values` reach, with an explicit stack. In-place containers shared
    /// by many references are walked once, so a graph built within the reading budget walks within it.
    ///
    /// An object's fields are read before `body` sees it, so `body` may empty them.
    package static func forEachObject(reachableFrom values: [ArchivedValue], _ body: (ArchivedObject) -> Void) {
        var seenObjects: Set<ObjectIdentifier> = []
        var seenContainers: Set<StorageIdentity> = []
        // The objects are alive while `pending` or a field holds them, so an identifier seen is never reused.
        var pending = values
        while let value = pending.popLast() {
            switch value {
            case .object(let object):
                guard seenObjects.insert(ObjectIdentifier(object)).inserted else { continue }
                pending.append(contentsOf: object.fields.values)
                body(object)
            default:
                if let elements = seenContainers.elementsOnFirstVisit(value) { pending.append(contentsOf: elements) }
            }
        }
    }
}

extension Set<StorageIdentity> {
    /// The values held by `value`, an in-place array or dictionary, the first time its storage is met (a
    /// dictionary is known by its values' storage, and an empty container has no identity, so is always new); nil
    /// when it was met before or `value` is no container. The graph walks' one rule for walking a shared container
    /// once.
    ///
    /// A container of at most ``revisitLimit`` values that holds no container is not remembered, and is walked
    /// again each time it is met: the objects it holds are already walked then (the walks stop at them), so each
    /// meeting costs at most that many steps, and the walk stays within a fixed multiple of the graph's
    /// references. Remembering every such container (W1's graph has 200,000, the contents of its `NSArray`s) grew
    /// and rehashed the set for a third of `breakReferenceCycles()`'s time.
    fileprivate mutating func elementsOnFirstVisit(_ value: ArchivedValue) -> [ArchivedValue]? {
        let elements: [ArchivedValue]
        switch value {
        case .array(let values): elements = values
        case .dictionary(let entries): elements = entries.values.elements
        case .object, .null, .reference, .inline: return nil
        }
        if elements.count <= Self.revisitLimit, !elements.contains(where: \.isContainer) { return elements }
        if let identity = StorageIdentity(elements), !insert(identity).inserted { return nil }
        return elements
    }

    /// The most values of a container that the walks visit again rather than remember (see
    /// ``elementsOnFirstVisit(_:)``).
    private static var revisitLimit: Int { 16 }
}

extension ArchivedValue {
    /// Whether this is an in-place array or dictionary.
    fileprivate var isContainer: Bool {
        switch self {
        case .array, .dictionary: true
        case .object, .null, .reference, .inline: false
        }
    }
}

extension GraphResolver {
    /// Empties the objects that none of `kept` reaches: the rest of the archive's graph, built whole for the
    /// graph values a typed decode handed out, which nothing can reach once the decoder is gone.
    func emptyObjects(unreachableFrom kept: [ArchivedValue]) {
        var reached: Set<ObjectIdentifier> = []
        ArchivedValue.forEachObject(reachableFrom: kept) { reached.insert(ObjectIdentifier($0)) }
        for case let object? in shells where !reached.contains(ObjectIdentifier(object)) { object.fields = [:] }
    }
}

extension IMessageText {
    /// Empties the objects of the message's graph and of every keyed archive among its attributes, so that
    /// objects on reference cycles are freed; see ``ArchiveGraph/breakReferenceCycles()``.
    public func breakReferenceCycles() {
        graph.breakReferenceCycles()
        Self.breakReferenceCycles(in: runs.flatMap { $0.attributes.map(\.value) })
    }

    /// Empties the objects of every keyed archive that `values` hold, at any depth.
    package static func breakReferenceCycles(in values: [Value]) {
        var pending = values
        while let value = pending.popLast() {
            switch value {
            case .keyedArchive(let archive): archive.breakReferenceCycles()
            case .array(let values): pending.append(contentsOf: values)
            case .dictionary(let pairs): pending.append(contentsOf: pairs.map(\.value))
            default: continue
            }
        }
    }
}
