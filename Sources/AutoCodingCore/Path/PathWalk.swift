import AutoCodingFast

/// What a step sees in a value, whichever reader holds it.
enum PathShape {
    /// A class instance: fields by key; elements in `NS.objects` (keyed by `NS.keys`) when it is
    /// `NSArray`/`NSSet`/`NSDictionary`-like.
    case instance
    /// A plain dictionary (in place, a plain `$objects` entry, a property list's): entries by key.
    case dictionary
    /// A plain array (in place, a plain `$objects` entry, a property list's): elements by position.
    case array
    /// A string, number, date, data or UID: no step applies.
    case scalar
}

/// A reader a path can walk. The readers differ in how they hold values (the lazy archive has bplist object
/// numbers, a decoded graph has graph values, a property list has plist values); the walk and the meaning of
/// every step (``PathWalk``) are written once, so that all readers give the same answers and the same errors.
protocol PathWalker {
    /// A value as the reader holds it, possibly a UID not yet followed.
    associatedtype Node
    /// A value with its UID followed: what a step looks into.
    associatedtype Place

    /// The value `$top` stands for in a plain property list (its root); nil in a keyed archive, whose `$top`
    /// holds keys.
    var topValue: Node? { get }
    /// The `$top` entry named `key`.
    func topEntry(_ key: String) throws -> Node?
    /// Every `$top` entry, in order.
    func topEntries() throws -> [Node]
    /// The `$top` keys, for messages.
    func topKeys() throws -> [String]

    /// Follows a UID; `$null` throws ``PathStepFailure``.
    func place(of node: Node) throws -> Place
    func shape(of place: Place) throws -> PathShape
    /// An instance's field or a dictionary's entry.
    func value(forKey key: String, in place: Place) throws -> Node?
    /// Every entry of a dictionary, in order.
    func entryValues(of place: Place) throws -> [Node]
    /// The array an instance keeps under `key` (`NS.objects`, `NS.keys`), if it is an in-place array.
    func instanceArray(_ key: String, of place: Place) throws -> Place?
    func count(of array: Place) throws -> Int
    func element(_ i: Int, of array: Place) throws -> Node
    /// The string a node holds (a UID followed), for `NS.keys` elements.
    func string(_ node: Node) throws -> String?
    /// `NSArray instance (UID 12)`, `an in-place array`, `a string` …, for messages.
    func describe(_ place: Place) throws -> String
    /// What identifies a place that many nodes can lead to (an `$objects` entry, an object), so that a step
    /// applied to it again reuses its results; nil where a step costs O(1) anyway.
    func memoKey(of place: Place) -> AnyHashable?
}

/// Why a step does not apply; becomes an ``ArchivePathError`` with the step's number.
struct PathStepFailure: Error {
    var reason: String
}

/// The walk of a path over any ``PathWalker``: `$top`, then each step applied to every value so far, within a
/// fan-out budget.
enum PathWalk {
    /// The nodes `path` leads to, the UIDs of the last step not yet followed.
    static func nodes<Walker: PathWalker>(
        at path: ArchivePath, in walker: Walker, maxValues: Int
    ) throws(ArchivePathError) -> [Walker.Node] {
        var current: [Walker.Node]? = walker.topValue.map { [$0] }  // nil: at a keyed archive's `$top`
        for (number, step) in path.steps.enumerated() {
            var next: [Walker.Node] = []
            do {
                if let nodes = current {
                    // A step's results from each place, for the places `[*]` reaches again: finding a key scans
                    // the place's keys, and an array holding one dictionary of n keys n times would otherwise cost
                    // n² for a file of a few n bytes.
                    var done: [AnyHashable: Range<Int>] = [:]
                    for (branch, node) in nodes.enumerated() {
                        do {
                            let place = try walker.place(of: node)
                            let key = nodes.count > 1 ? walker.memoKey(of: place) : nil
                            if let key, let range = done[key] {
                                next.append(contentsOf: Array(next[range]))
                            } else {
                                let start = next.count
                                try apply(step, at: place, in: walker, into: &next)
                                if let key { done[key] = start..<next.count }
                            }
                        } catch let failure as PathStepFailure where nodes.count > 1 {
                            throw PathStepFailure(reason: "\(failure.reason) (branch \(branch) of the fan-out)")
                        }
                        guard next.count <= maxValues else {
                            throw fanOutExceeded(path, step: number + 1, limit: maxValues)
                        }
                    }
                } else {
                    switch step {
                    case .key(let key):
                        guard let entry = try walker.topEntry(key) else {
                            let keys = try walker.topKeys().joined(separator: ", ")
                            throw PathStepFailure(reason: "$top has no key \"\(key)\" (keys: \(keys))")
                        }
                        next.append(entry)
                    case .all:
                        next = try walker.topEntries()
                    case .index:
                        throw PathStepFailure(reason: "$top holds keys; \(step) does not name one")
                    }
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

    /// What one step means: the rule every reader follows. Appends what the step leads to from `place`.
    static func apply<Walker: PathWalker>(
        _ step: ArchivePath.Step, at place: Walker.Place, in walker: Walker, into next: inout [Walker.Node]
    ) throws {
        let shape = try walker.shape(of: place)
        // Named only for messages: describing costs a class lookup the happy path does not need.
        func what() throws -> String { try walker.describe(place) }
        switch step {
        case .key(let key):
            switch shape {
            case .instance, .dictionary:
                if let value = try walker.value(forKey: key, in: place) {
                    next.append(value)
                    return
                }
                guard shape == .instance else { break }
                if let keys = try walker.instanceArray(FoundationKey.keys, of: place) {
                    // NSDictionary-like: the element whose key is `key`, and never an index (plutil reads a
                    // number on a dictionary as a key).
                    if let objects = try walker.instanceArray(FoundationKey.objects, of: place) {
                        for i in 0..<min(try walker.count(of: keys), try walker.count(of: objects)) {
                            guard try walker.string(walker.element(i, of: keys)) == key else { continue }
                            next.append(try walker.element(i, of: objects))
                            return
                        }
                    }
                } else if let index = index(inKey: key),
                    let objects = try walker.instanceArray(FoundationKey.objects, of: place)
                {
                    let position = try resolved(index, count: walker.count(of: objects), what)
                    next.append(try walker.element(position, of: objects))
                    return
                }
            case .array:
                guard let index = index(inKey: key) else {
                    throw PathStepFailure(reason: "\(try what()) has no keys; a key on an array must be an index")
                }
                next.append(try walker.element(resolved(index, count: walker.count(of: place), what), of: place))
                return
            case .scalar:
                throw PathStepFailure(reason: "\(try what()) has no keys")
            }
            throw PathStepFailure(reason: "\(try what()) has no key \"\(key)\"")
        case .index(let i):
            let array = try elements(of: place, shape: shape, in: walker, what)
            next.append(try walker.element(resolved(i, count: walker.count(of: array), what), of: array))
        case .all:
            if shape == .dictionary {
                next.append(contentsOf: try walker.entryValues(of: place))
                return
            }
            let array = try elements(of: place, shape: shape, in: walker, what)
            for i in 0..<(try walker.count(of: array)) { next.append(try walker.element(i, of: array)) }
        }
    }

    /// The array whose elements `[i]` and `[*]` reach: the value itself, or an instance's `NS.objects`.
    private static func elements<Walker: PathWalker>(
        of place: Walker.Place, shape: PathShape, in walker: Walker, _ what: () throws -> String
    ) throws -> Walker.Place {
        if shape == .array { return place }
        if shape == .instance, let objects = try walker.instanceArray(FoundationKey.objects, of: place) {
            return objects
        }
        throw PathStepFailure(reason: "\(try what()) is neither an array nor an NSArray/NSDictionary-like instance")
    }

    /// The position of index `i` among `count` elements, a negative `i` counting from the end; out of range
    /// throws.
    static func resolved(_ i: Int, count: Int, _ what: () throws -> String) throws -> Int {
        // `count` is at least 0, so `count + i` for a negative `i` cannot overflow.
        let position = i < 0 ? count + i : i
        guard position >= 0, position < count else {
            throw PathStepFailure(
                reason: i < 0
                    ? "index \(i) counts back past the first of the \(count) elements of \(try what())"
                    : "index \(i) is beyond the \(count) elements of \(try what())")
        }
        return position
    }

    /// The index a key names on an array, as plutil reads `root.0`: decimal digits, optionally after `-`
    /// (from the end). Nil for any other key, and for one too large for `Int`.
    static func index(inKey key: String) -> Int? {
        let digits = key.utf8.first == UInt8(ascii: "-") ? key.utf8.dropFirst() : key.utf8[...]
        guard !digits.isEmpty, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            return nil
        }
        return Int(key)
    }

    /// The error for a fan-out past `limit` values at `step`.
    static func fanOutExceeded(_ path: ArchivePath, step: Int, limit: Int) -> ArchivePathError {
        ArchivePathError(
            .limitExceeded, path: path.description, step: step,
            reason: "\(path.steps[step - 1]): the path reaches more than \(limit) values, its fan-out budget "
                + "(one per input byte): [*] repeats shared references")
    }

    /// `a string`, `an integer`: the article English wants before `name`.
    static func withArticle(_ name: String) -> String {
        (name.first.map { "aeiou".contains($0) } == true ? "an " : "a ") + name
    }
}
