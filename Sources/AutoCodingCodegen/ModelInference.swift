import AutoCodingCore
import AutoCodingFast
import OrderedCollections

/// A Swift type inferred from archived values.
indirect enum InferredType: Hashable {
    case string, int, double, bool, date, data, url, uuid
    /// A generated model, by archived class name.
    case model(String)
    case array(InferredType)
    case dictionary(InferredType)
    /// No value seen yet (only `$null`s or empty collections).
    case none
    /// Values of different kinds: no single Swift type fits.
    case mixed(Set<String>)

    /// The one type that holds both, or ``mixed(_:)``.
    func unified(with other: InferredType) -> InferredType {
        switch (self, other) {
        case (.none, let t), (let t, .none): return t
        case _ where self == other: return self
        case (.array(let a), .array(let b)): return .array(a.unified(with: b))
        case (.dictionary(let a), .dictionary(let b)): return .dictionary(a.unified(with: b))
        default: return .mixed(kinds.union(other.kinds))
        }
    }

    /// Short names of the kinds seen, for comments.
    var kinds: Set<String> {
        switch self {
        case .mixed(let kinds): kinds
        case .model(let name): [name]
        case .array(let t): t.isTyped ? ["array"] : ["array of \(t.kinds.sorted().joined(separator: " and "))"]
        case .dictionary(let t): t.isTyped ? ["dictionary"] : ["dictionary of \(t.kinds.sorted().joined(separator: " and "))"]
        case .none: ["only $null"]
        default: ["\(self)"]
        }
    }

    /// Whether a typed model can hold every value seen.
    var isTyped: Bool {
        switch self {
        case .mixed: false
        case .array(let t), .dictionary(let t): t.isTyped
        default: true
        }
    }
}

/// What every instance of one archived class looked like across the archives.
struct ClassObservation {
    var archiveClass: ArchiveClass
    var instances = 0
    var archives: Set<String> = []
    /// Field key → type so far, in first-seen order.
    var fields: OrderedDictionary<String, InferredType> = [:]
    /// Field key → instances that had it (a field missing from some instance is optional).
    var present: [String: Int] = [:]
    /// Field key → whether `$null` was seen.
    var sawNull: Set<String> = []
    /// Field key → how its values were stored (in place, referenced, or as an instance of which class), for
    /// the ``ArchiveForm``s that make a re-encode store them the same way.
    var shapes: [String: Set<FieldShape>] = [:]
    /// Field keys whose value held a Foundation object also reached from elsewhere (a nib's one empty NSArray).
    var sharedFoundationFields: Set<String> = []
    /// Key → keys that directly followed it in some instance, for ``orderedKeys``.
    var successors: [String: Set<String>] = [:]

    /// Why field `key` keeps the archived value (``ArchivedValue``) rather than a Swift type, or nil when
    /// a Swift type with ``ArchiveForm``s reproduces every instance: no single type fits, only `$null` was
    /// seen, the instances store it in several forms (in place and referenced, NSData and NSMutableData), or
    /// it holds a Foundation object shared with another place.
    func archivedValueReason(_ key: String) -> String? {
        let type = fields[key] ?? .none
        guard type.isTyped, type != .none else { return "holds \(type.kinds.sorted().joined(separator: " and "))" }
        if sharedFoundationFields.contains(key) {
            return "holds a Foundation object also referenced from elsewhere (a Swift value would write a copy)"
        }
        let forms = (shapes[key] ?? []).filter { $0 != .other }
        switch type {
        case .string, .data, .int, .double, .bool, .array, .dictionary:
            guard forms.count > 1 else { return nil }
            let names = forms.map { shape -> String in
                switch shape {
                case .inline: "in place"
                case .referenced: "referenced"
                case .instance(let archiveClass, _): archiveClass.name
                case .other: "other"
                }
            }
            return "is stored in several forms (\(names.sorted().joined(separator: ", ")))"
        default:
            return nil
        }
    }

    /// The field keys in an order consistent with every instance's key order (keys never seen together keep
    /// their first-seen order), since re-encoding writes keys in property order. First-seen order when the
    /// instances disagree.
    var orderedKeys: [String] {
        let keys = Array(fields.keys)
        var incoming = [String: Int]()
        for key in keys { incoming[key] = 0 }
        for (_, next) in successors { for key in next { incoming[key, default: 0] += 1 } }
        var result: [String] = []
        var placed = Set<String>()
        while result.count < keys.count {
            guard let key = keys.first(where: { !placed.contains($0) && incoming[$0] == 0 }) else { return keys }
            result.append(key)
            placed.insert(key)
            for next in successors[key] ?? [] { incoming[next, default: 0] -= 1 }
        }
        return result
    }
}

/// How one field value was stored.
enum FieldShape: Hashable {
    case inline, referenced
    /// An instance; for NSMutableString and NSMutableData also the key holding the value (`NS.data`, `NS.bytes`).
    case instance(ArchiveClass, valueKey: String?)
    case other

    init(_ value: ArchivedValue) {
        switch value {
        case .inline: self = .inline
        case .reference: self = .referenced
        case .object(let object):
            let holdsValue = object.className == "NSMutableString" || object.className == "NSMutableData"
            self = .instance(object.archiveClass, valueKey: holdsValue ? object.fields.keys.first : nil)
        default: self = .other
        }
    }

    /// Hashes an instance's class by its name's length and first bytes only. Every field of every instance is
    /// hashed here, and a class name or chain can be as long as the archive (a hostile chain of 300 KB made
    /// codegen hash 9,000 copies of it: 1.9 s); the instances of one descriptor share one name and one chain, so
    /// equality still compares them in constant time.
    func hash(into hasher: inout Hasher) {
        switch self {
        case .inline: hasher.combine(0)
        case .referenced: hasher.combine(1)
        case .instance(let archiveClass, let valueKey):
            hasher.combine(2)
            hasher.combine(archiveClass.name.utf8.count)
            for byte in archiveClass.name.utf8.prefix(16) { hasher.combine(byte) }
            hasher.combine(valueKey)
        case .other: hasher.combine(3)
        }
    }
}

/// Walks decoded graphs and infers one model per archived class. Foundation classes map to Swift types.
struct ModelInference {
    private(set) var classes: OrderedDictionary<String, ClassObservation> = [:]

    /// Archived classes that map to Swift types instead of generated models.
    static let foundationClasses: Set<String> = [
        "NSString", "NSMutableString", "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet",
        "NSMutableOrderedSet", "NSDictionary", "NSMutableDictionary", "NSDate", "NSData", "NSMutableData",
        "NSURL", "NSUUID", "NSNull", "NSNumber",
    ]

    /// Records every object of `graph` (each once, without recursion along references).
    mutating func observe(_ graph: ArchiveGraph, archive: String) {
        var seen = Set<ObjectIdentifier>()
        var work: [ArchivedObject] = []
        let memo = InferenceMemo()
        func type(of value: ArchivedValue) -> InferredType? {
            infer(value, memo: memo, enqueue: { object in
                if seen.insert(ObjectIdentifier(object)).inserted { work.append(object) }
            })
        }
        // Foundation objects (which become Swift values) by the number of references to them, and the ones each
        // field holds: a field holding one referenced twice cannot be a Swift value, which would write copies.
        var references: [ObjectIdentifier: Int] = [:]
        var held: [(className: String, key: String, objects: [ObjectIdentifier])] = []
        func foundationObjects(in value: ArchivedValue) -> [ObjectIdentifier] {
            var found: [ObjectIdentifier] = []
            var pending = [value]
            // In-place arrays may share storage (a binary plist's shared children): look inside each once.
            var seenArrays = Set<StorageIdentity>()
            while let next = pending.popLast() {
                switch next {
                case .array(let values):
                    if let storage = StorageIdentity(values), !seenArrays.insert(storage).inserted { continue }
                    pending += values
                case .dictionary(let entries): pending += entries.values
                case .object(let object) where Self.foundationClasses.contains(object.className):
                    let id = ObjectIdentifier(object)
                    references[id, default: 0] += 1
                    // A hostile archive may nest a collection in itself: look inside each object once.
                    if references[id] == 1 { pending += object.fields.values }
                    found.append(id)
                default: break
                }
            }
            return found
        }
        // Every `$top` entry, not only the root: a nib's objects hang from `IB.objectdata`.
        for value in graph.roots.values {
            _ = type(of: value)
            _ = foundationObjects(in: value)
        }
        while let object = work.popLast() {
            let name = object.className
            var observation = classes[name] ?? ClassObservation(archiveClass: object.archiveClass)
            observation.instances += 1
            observation.archives.insert(archive)
            var previous: String? = nil
            for (key, value) in object.fields {
                if let previous { observation.successors[previous, default: []].insert(key) }
                previous = key
                observation.present[key, default: 0] += 1
                if case .null = value {} else { observation.shapes[key, default: []].insert(FieldShape(value)) }
                if observation.fields[key] == nil { observation.fields[key] = InferredType.none }
                guard let t = type(of: value) else {
                    observation.sawNull.insert(key)
                    continue
                }
                observation.fields[key] = (observation.fields[key] ?? .none).unified(with: t)
                held.append((name, key, foundationObjects(in: value)))
            }
            classes[name] = observation
        }
        for (name, key, objects) in held where objects.contains(where: { references[$0, default: 0] > 1 }) {
            classes[name]?.sharedFoundationFields.insert(key)
        }
    }

    /// Foundation classes a field's own value may have (``ArchiveForm/archiveClass(_:_:valueKey:)`` restores
    /// them); inside a collection only NSArray and NSDictionary are what a Swift value re-encodes as.
    static let formClasses: Set<String> = [
        "NSMutableArray", "NSSet", "NSMutableSet", "NSMutableDictionary", "NSMutableString", "NSMutableData",
    ]

    /// Collection types nest at most this deep; deeper nesting is ``InferredType/mixed(_:)``. It bounds the
    /// recursion of ``infer(_:nested:depth:memo:enqueue:)``, which the input would otherwise choose.
    static let maxTypeDepth = 32

    /// The types already inferred for collections, so that a collection reached from many places (a DAG of
    /// NSArrays, each holding the next twice) is looked at once, and one that holds itself ends.
    final class InferenceMemo {
        var objects: [ObjectIdentifier: InferredType] = [:]
        var arrays: [StorageIdentity: InferredType] = [:]
        var inProgress: Set<ObjectIdentifier> = []
    }

    /// The type of one value (nil for `$null`); objects of generated classes are handed to `enqueue`.
    /// `nested` is true inside a collection, where a mutable or set class has no Swift form and makes the
    /// type ``InferredType/mixed(_:)``, so that the field keeps the archived value.
    ///
    /// Recursive along collections only, with a depth check before each call (``maxTypeDepth``), and memoized
    /// per collection object and per in-place array storage, so its cost is linear in the graph.
    private func infer(
        _ value: ArchivedValue, nested: Bool = false, depth: Int = 0, memo: InferenceMemo,
        enqueue: (ArchivedObject) -> Void
    ) -> InferredType? {
        func elements(_ values: [ArchivedValue]) -> InferredType {
            guard depth < Self.maxTypeDepth else { return .mixed(["collections nested deeper than \(Self.maxTypeDepth)"]) }
            let storage = StorageIdentity(values)
            if let storage, let known = memo.arrays[storage] { return known }
            let type = values.reduce(InferredType.none) {
                $0.unified(with: infer($1, nested: true, depth: depth + 1, memo: memo, enqueue: enqueue) ?? .mixed(["null"]))
            }
            if let storage { memo.arrays[storage] = type }
            return type
        }
        if nested, let name = value.object?.className, Self.formClasses.contains(name) {
            _ = infer(value, depth: depth, memo: memo, enqueue: enqueue)  // Its elements' classes are still generated.
            return .mixed(["\(name) in a collection"])
        }
        switch value {
        case .null: return nil
        case .inline(let scalar), .reference(let scalar): return Self.scalarType(scalar)
        case .array(let values): return .array(elements(values))
        case .dictionary(let entries): return .dictionary(elements(Array(entries.values)))
        case .object(let object):
            let id = ObjectIdentifier(object)
            if let known = memo.objects[id] { return known }
            switch object.className {
            case "NSString", "NSMutableString": return .string
            case "NSDate": return .date
            case "NSData", "NSMutableData": return .data
            case "NSURL": return .url
            case "NSUUID": return .uuid
            case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSDictionary", "NSMutableDictionary":
                // A collection that holds itself (directly or not) has no finite type.
                guard memo.inProgress.insert(id).inserted else { return .mixed(["\(object.className) holding itself"]) }
                defer { memo.inProgress.remove(id) }
                let type = collectionType(object, elements)
                memo.objects[id] = type
                return type
            case let name where Self.foundationClasses.contains(name):
                return .mixed([name])
            default:
                enqueue(object)
                return .model(object.className)
            }
        }
    }

    /// The type of an NSArray, NSSet or NSDictionary instance, from its `NS.objects` (and `NS.keys`).
    private func collectionType(_ object: ArchivedObject, _ elements: ([ArchivedValue]) -> InferredType) -> InferredType {
        switch object.className {
        case "NSDictionary", "NSMutableDictionary":
            guard case .array(let keys)? = object["NS.keys"], case .array(let values)? = object["NS.objects"],
                keys.allSatisfy({ $0.string != nil })
            else { return .mixed([object.className]) }
            return .dictionary(elements(values))
        default:
            guard case .array(let values)? = object["NS.objects"] else { return .mixed([object.className]) }
            return .array(elements(values))
        }
    }

    private static func scalarType(_ scalar: ArchiveValue) -> InferredType {
        switch scalar {
        case .string: .string
        case .integer: .int
        case .real: .double
        case .bool: .bool
        case .date: .date
        case .data: .data
        default: .mixed([scalar.typeName])
        }
    }
}
