import AutoCodingFast
import Foundation
import OrderedCollections

/// Walks a graph in document order with an explicit stack and reports it to a sink.
///
/// Every container on the way pushes a frame instead of recursing, so the depth of the walk is bounded by
/// memory, not by the thread's stack.
struct GraphJSONWriter<Sink: JSONSink> {
    var sink: Sink
    /// `$uid` numbers of the objects and shared scalars printed so far, counted together from 1.
    private var numbers: [ObjectIdentifier: Int] = [:]
    private var sharedNumbers: [Int: Int] = [:]
    /// Each tracked scalar storage's value class, numbered from 0: storages with equal contents (strings and
    /// data) share one.
    private var valueClass: [SharedScalar: Int] = [:]
    /// How often each value class is reached, counted up to 2 (see ``countShared(_:)``). A class reached twice is
    /// shared: it prints with a `$uid` the first time and as `{"$ref": n}` after that, so that a string referenced
    /// a thousand times prints once.
    private var reached: [UInt8] = []
    private var stack: [Frame] = []
    /// The numbers objects had in the graph's source (archive UIDs), and the next number for anything else.
    private var sourceNumbers: ObjectNumbers?
    private var nextFree = 1
    /// The chain printed with the first object of each class name.
    private var firstChains: [String: [String]] = [:]

    /// A scalar's storage and its placement: one storage can be both an `$objects` entry and an in-place value.
    private struct SharedScalar: Hashable {
        var storage: StorageIdentity
        var isReference: Bool

        init?(_ value: ArchivedValue) {
            switch value {
            case .reference(let scalar): isReference = true
                guard let storage = StorageIdentity(scalar) else { return nil }
                self.storage = storage
            case .inline(let scalar): isReference = false
                guard let storage = StorageIdentity(scalar) else { return nil }
                self.storage = storage
            default: return nil
            }
        }
    }

    private enum Frame {
        case graphArray([ArchivedValue], Int)
        case graphDictionary(OrderedDictionary<String, ArchivedValue>, Int, escapesKeys: Bool)
        case plistArray([ArchiveValue], Int)
        case plistDictionary(OrderedDictionary<String, ArchiveValue>, Int)
        /// Closes a wrapper object (`$inline`, `$entry`, the document) once its value is written.
        case endObject
        /// Writes the `$uid` of a shared scalar's wrapper, then closes it.
        case endSharedScalar(Int)
    }

    init(sink: Sink) { self.sink = sink }

    mutating func write(_ graph: ArchiveGraph) {
        sourceNumbers = graph.objectNumbers
        nextFree = graph.objectNumbers?.firstFree ?? 1
        countShared(Array(graph.roots.values))
        sink.beginObject(compact: false)
        sink.key(GraphJSONKey.archiver)
        sink.string(graph.archiver)
        sink.key(GraphJSONKey.top)
        sink.beginObject(compact: false)
        stack.append(.endObject)
        // `$top` keys are never markers (the document level has its own keys), so they print as they are.
        stack.append(.graphDictionary(graph.roots, 0, escapesKeys: false))
        drain()
    }

    mutating func write(_ value: ArchiveValue) {
        writePlist(value)
        drain()
    }

    mutating func write(_ value: ArchivedValue) {
        write(value, numbers: nil)
    }

    /// Writes `value`, naming each object by its number in `numbers` (its archive UID) when it has one, as
    /// writing a whole graph does: `get` then prints the numbers `json` and `inspect` print.
    mutating func write(_ value: ArchivedValue, numbers: ObjectNumbers?) {
        sourceNumbers = numbers
        nextFree = numbers?.firstFree ?? 1
        countShared([value])
        writeGraph(value)
        drain()
    }

    /// Finds the scalars reachable more than once from `values`, visiting each object and each in-place
    /// container storage once, so that the count costs what the graph holds, not what it expands to.
    ///
    /// Scalars are told apart by storage first, then strings and data by contents (hashed once per storage), so
    /// that equal texts stored twice also print once: the JSON then reads back to one `$objects` entry, and
    /// printing that archive gives the same JSON again whichever writer made the first one. Containers compare
    /// by storage only: hashing a plain array would walk whatever it shares.
    private mutating func countShared(_ values: [ArchivedValue]) {
        var seenObjects = Set<ObjectIdentifier>()
        defer { numbers.reserveCapacity(seenObjects.count) }
        // An in-place array prints in full wherever it is reached, so the scalars of one reached twice occur twice
        // in the text: it is walked twice (a scalar seen twice is shared), never more, so the count stays linear.
        var arrayVisits: [StorageIdentity: Int] = [:]
        var byContents: [ContentsKey: Int] = [:]
        var pending = values
        while let value = pending.popLast() {
            switch value {
            case .object(let object):
                if seenObjects.insert(ObjectIdentifier(object)).inserted { pending += object.fields.values }
            case .array(let elements):
                if let storage = StorageIdentity(elements), Self.increment(&arrayVisits[storage, default: 0]) > 2 {
                    continue
                }
                pending += elements
            case .dictionary(let entries):
                pending += entries.values
            case .reference(let scalar), .inline(let scalar):
                guard let key = SharedScalar(value) else { continue }
                // Each table is searched once per storage: the slot of a new key is filled with the next class.
                let next = reached.count
                var id = Self.fill(&valueClass[key, default: -1], with: next)
                if id == next {
                    if let contents = ContentsKey(scalar, isReference: key.isReference) {
                        id = Self.fill(&byContents[contents, default: -1], with: next)
                        if id != next { valueClass[key] = id }
                    }
                    if id == next { reached.append(0) }
                }
                if reached[id] < 2 { reached[id] += 1 }
            case .null:
                break
            }
        }
    }

    /// The value in `slot`, after setting it to `new` if it is -1: `fill(&table[key, default: -1], with: new)`
    /// finds or fills a table's slot with one search. (The default is a constant: a default that captures `new`
    /// would allocate its closure at every call.)
    private static func fill(_ slot: inout Int, with new: Int) -> Int {
        if slot < 0 { slot = new }
        return slot
    }

    /// `slot` plus one, stored and returned: `increment(&table[key, default: 0])` counts with one search.
    private static func increment(_ slot: inout Int) -> Int {
        slot += 1
        return slot
    }

    /// A string or data scalar by contents, with its placement.
    private struct ContentsKey: Hashable {
        var scalar: ArchiveValue
        var isReference: Bool

        init?(_ scalar: ArchiveValue, isReference: Bool) {
            switch scalar {
            case .string, .data: self.scalar = scalar
            default: return nil
            }
            self.isReference = isReference
        }
    }

    private mutating func drain() {
        // A sink past its budget ends the walk: the caller throws rather than print a partial document.
        while !sink.isFull, let frame = stack.popLast() {
            switch frame {
            case .endObject:
                sink.endObject()
            case .endSharedScalar(let number):
                sink.key(GraphJSONKey.uid)
                sink.integer(Int64(number))
                sink.endObject()
            case .graphArray(let elements, let i):
                guard i < elements.count else { sink.endArray(); continue }
                stack.append(.graphArray(elements, i + 1))
                writeGraph(elements[i])
            case .graphDictionary(let entries, let i, let escapesKeys):
                guard i < entries.count else { sink.endObject(); continue }
                stack.append(.graphDictionary(entries, i + 1, escapesKeys: escapesKeys))
                let (key, value) = entries.elements[i]
                sink.key(escapesKeys ? GraphJSONKey.escape(key) : key)
                writeGraph(value)
            case .plistArray(let elements, let i):
                guard i < elements.count else { sink.endArray(); continue }
                stack.append(.plistArray(elements, i + 1))
                writePlist(elements[i])
            case .plistDictionary(let entries, let i):
                guard i < entries.count else { sink.endObject(); continue }
                stack.append(.plistDictionary(entries, i + 1))
                let (key, value) = entries.elements[i]
                sink.key(GraphJSONKey.escape(key))
                writePlist(value)
            }
        }
    }

    /// Writes a scalar or opens a container (pushing its frame).
    private mutating func writeGraph(_ value: ArchivedValue) {
        switch value {
        case .null:
            sink.null()
        case .object(let object):
            let id = ObjectIdentifier(object)
            if let number = numbers[id] {
                writeReference(number)
                return
            }
            let number = sourceNumbers?[object] ?? nextNumber()
            numbers[id] = number
            sink.beginObject(compact: false)
            sink.key(GraphJSONKey.className)
            sink.string(object.archiveClass.name)
            // A chain prints with the first object of its class name, and again only where it differs from that
            // one (an empty chain as `[]`): 300 objects sharing a 35 KB chain print it once.
            let chain = object.archiveClass.chain
            let first = firstChains[object.archiveClass.name]
            if first == nil { firstChains[object.archiveClass.name] = chain }
            if first == nil ? !chain.isEmpty : first != chain {
                sink.key(GraphJSONKey.classes)
                sink.beginArray(compact: true)
                for name in chain { sink.string(name) }
                sink.endArray()
            }
            sink.key(GraphJSONKey.uid)
            sink.integer(Int64(number))
            stack.append(.graphDictionary(object.fields, 0, escapesKeys: true))
        case .array(let elements):
            sink.beginArray(compact: false)
            stack.append(.graphArray(elements, 0))
        case .dictionary(let entries):
            sink.beginObject(compact: false)
            stack.append(.graphDictionary(entries, 0, escapesKeys: true))
        case .inline(let scalar), .reference(let scalar):
            let isReference = if case .reference = value { true } else { false }
            guard let key = SharedScalar(value), let id = valueClass[key], reached[id] == 2 else {
                writeScalar(scalar, isReference: isReference)
                return
            }
            if let number = sharedNumbers[id] {
                writeReference(number)
                return
            }
            let number = nextNumber()
            sharedNumbers[id] = number
            // `{"$entry": value, "$uid": n}` (or `$inline`): the wrapper says where the value is stored, `$uid`
            // names it for the `$ref`s that follow.
            sink.beginObject(compact: Self.defaultIsReference(scalar) != nil)
            sink.key(isReference ? GraphJSONKey.entry : GraphJSONKey.inline)
            stack.append(.endSharedScalar(number))
            writePlist(scalar)
        }
    }

    private mutating func nextNumber() -> Int {
        defer { nextFree += 1 }
        return nextFree
    }

    private mutating func writeReference(_ number: Int) {
        sink.beginObject(compact: true)
        sink.key(GraphJSONKey.ref)
        sink.integer(Int64(number))
        sink.endObject()
    }

    /// A scalar in its plain form when that is its type's default placement, else wrapped.
    private mutating func writeScalar(_ scalar: ArchiveValue, isReference: Bool) {
        if Self.defaultIsReference(scalar) == isReference {
            writePlist(scalar)
            return
        }
        let isContainer = Self.defaultIsReference(scalar) == nil
        sink.beginObject(compact: !isContainer)
        sink.key(isReference ? GraphJSONKey.entry : GraphJSONKey.inline)
        stack.append(.endObject)
        writePlist(scalar)
    }

    /// Whether a scalar of this type is printed plainly when referenced (strings), when in place (everything
    /// else), or never (arrays and dictionaries, whose plain form would read as graph containers).
    private static func defaultIsReference(_ value: ArchiveValue) -> Bool? {
        switch value {
        case .string: true
        case .array, .dictionary: nil
        default: false
        }
    }

    private mutating func writePlist(_ value: ArchiveValue) {
        switch value {
        case .bool(let b): sink.bool(b)
        case .integer(let i): sink.integer(i)
        case .unsignedInteger(let u): sink.unsigned(u)
        case .real(let d):
            if d.isFinite {
                sink.real(d)
            } else {
                writeMarker(GraphJSONKey.real) { $0.string(JSONNumberText.nonFinite(d)) }
            }
        case .string(let s): sink.string(s)
        case .data(let bytes):
            writeMarker(GraphJSONKey.data) { $0.string(Data(bytes).base64EncodedString()) }
        case .date(let date):
            let time = date.timeIntervalSinceReferenceDate
            let iso = ISO8601Text.format(time)
            sink.beginObject(compact: true)
            if let iso {
                sink.key(GraphJSONKey.date)
                sink.string(iso.text)
            }
            if iso?.isExact != true {
                sink.key(GraphJSONKey.time)
                if time.isFinite { sink.real(time) } else { sink.string(JSONNumberText.nonFinite(time)) }
            }
            sink.endObject()
        case .uid(let uid):
            writeMarker(GraphJSONKey.cfuid) { $0.integer(Int64(uid.rawValue)) }
        case .array(let elements):
            sink.beginArray(compact: false)
            stack.append(.plistArray(elements, 0))
        case .dictionary(let entries):
            sink.beginObject(compact: false)
            stack.append(.plistDictionary(entries, 0))
        }
    }

    private mutating func writeMarker(_ key: String, _ value: (inout Sink) -> Void) {
        sink.beginObject(compact: true)
        sink.key(key)
        value(&sink)
        sink.endObject()
    }
}
