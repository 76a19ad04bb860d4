import AutoCodingFast
import OrderedCollections

/// A whole keyed archive as an object graph: the archiver name and the `$top` roots, with every UID
/// resolved to the object or value it names.
///
/// Decoding and encoding walk the `$objects` table, not the graph, so neither recurses along object
/// references: a linked list a million objects long, or a cycle, costs no stack.
public struct ArchiveGraph {
    /// The `$archiver` name, kept for re-encoding (`NSKeyedArchiver`, `SCNKeyedArchiver` ...).
    public var archiver: String
    /// The `$top` entries: `root`, `$0…$n`, or any other names, in archive order.
    ///
    /// Each is an object, a scalar or `.null`, as in every keyed archive: the readers (binary, XML, lazy, JSON)
    /// refuse an `.array` or `.dictionary` in `$top`, so a graph with such a root writes an archive that does not
    /// read back.
    public var roots: OrderedDictionary<String, ArchivedValue>
    /// The number each object had where the graph was read from (its archive UID, or its `$uid` in JSON), so that
    /// `json`, `inspect` (`#n`) and `get` (`UID n`) name an object by one number. Nil for a graph made in code.
    package var objectNumbers: ObjectNumbers?

    /// Creates a graph from its roots.
    public init(archiver: String = "NSKeyedArchiver", roots: OrderedDictionary<String, ArchivedValue>) {
        self.archiver = archiver
        self.roots = roots
    }

    /// Creates a graph with one root stored under `root`.
    public init(root: ArchivedValue) {
        self.init(roots: [ArchiveKey.root: root])
    }

    /// The root: `$top["root"]`, else the only `$top` entry.
    public var root: ArchivedValue? {
        roots[ArchiveKey.root] ?? (roots.count == 1 ? roots.values.first : nil)
    }

    /// Decodes untrusted bytes (binary or XML keyed archive) into a graph.
    public init(bytes: [UInt8], options: ArchiveReadingOptions = .init()) throws(ArchiveError) {
        try self.init(view: KeyedArchiveView(bytes: bytes, options: options))
    }

    /// Builds the graph of a validated view in one pass over its table: each instance's fields become one
    /// dictionary, each class descriptor is read once, and each string once per bplist object.
    package init(view: KeyedArchiveView) throws(ArchiveError) {
        let resolver = try GraphResolver(view: view)
        self.init(archiver: view.archiver, roots: resolver.top.mapValues(resolver.resolve))
        objectNumbers = ObjectNumbers(uids: resolver.shells)
    }

    /// Resolves every UID of a validated archive. Instances become ``ArchivedObject``s, one per `$objects`
    /// entry, so shared references and cycles keep their identity.
    ///
    /// A plain array or dictionary `$objects` entry (not an instance) that holds UIDs is an error: the graph
    /// keeps such entries as opaque scalars, whose UIDs would dangle once re-encoded. Apple's archivers never
    /// write one (arrays are `NSArray` instances), so only crafted archives have them.
    public init(archive: KeyedArchive) throws(ArchiveError) {
        try archive.validate()
        let resolver = try GraphResolver(archive: archive)
        self.init(archiver: archive.archiver, roots: resolver.top.mapValues(resolver.resolve))
        objectNumbers = ObjectNumbers(uids: resolver.shells)
    }

    /// Encodes the graph as a keyed archive. Each object is written once, whatever the number of references
    /// to it, and each distinct class once.
    public func keyedArchive() -> KeyedArchive {
        let (builder, top) = encodeTable()
        return KeyedArchive(archiver: archiver, top: top, objects: builder.objects)
    }

    /// Encodes the graph as a binary-plist keyed archive, written straight from the encoder's flat table.
    public func binaryPlist() -> [UInt8] {
        let (builder, top) = encodeTable()
        return builder.binaryPlist(archiver: archiver, top: top)
    }

    private func encodeTable() -> (ArchiveTableBuilder, OrderedDictionary<String, ArchiveValue>) {
        let builder = ArchiveTableBuilder()
        var encoder = GraphEncoder(builder: builder)
        let top = roots.mapValues { encoder.encode($0) }
        encoder.drain()
        return (builder, top)
    }
}

/// Turns a validated table into graph values: one ``ArchivedObject`` per instance entry, created before any
/// field is filled, so references (shared or cyclic) resolve by index without recursion.
///
/// A plain array or dictionary `$objects` entry (not an instance) that holds UIDs is refused: the graph keeps
/// such entries as opaque scalars, whose UIDs would dangle once re-encoded. Apple's archivers never write one
/// (arrays are `NSArray` instances), so only crafted archives have them.
struct GraphResolver {
    /// The `$top` entries, as stored (UIDs or scalars).
    let top: OrderedDictionary<String, ArchiveValue>
    /// The graph value each UID names, built once and shared by every reference: `.null` for UID 0, the
    /// referenced scalar of an entry that is no instance (an instance's object is in `shells`, and may be here too).
    private let entries: [ArchivedValue]
    /// One object per instance entry, by UID.
    let shells: [ArchivedObject?]
    /// The entries read, for the long string entries no field referred to (``GraphBuilder/unmadeString``,
    /// ``GraphBuilder/aliasMarker(of:)``); nil for a resolver of a ``KeyedArchive``.
    private let table: KeyedArchiveEntries?
    /// In-place containers already resolved, by the storage of the table value: a binary plist may refer to one
    /// array from many places (2³⁰ times in 250 bytes), and resolving each reference anew would build the
    /// expanded tree. The copies share one resolved array instead.
    private let resolved = ResolvedContainers()

    private final class ResolvedContainers {
        var values: [StorageIdentity: ArchivedValue] = [:]
    }

    /// The resolver of a validated view, read in one pass over its records: no intermediate ``KeyedArchive`` and
    /// no intermediate value per field; each class descriptor parsed once, each scalar entry built once.
    init(view: KeyedArchiveView) throws(ArchiveError) {
        var builder = try GraphBuilder(view: view)
        do {
            try builder.makeObjects()
            top = try builder.table.top()
            try builder.fillObjects()
            // The string entries `$top` names are made here, once each (as a field's are), so that two names of one
            // entry, or of two entries of one string object, share its string.
            for case .uid(let uid) in top.values where uid.index < builder.table.count { _ = builder.entry(uid.index) }
            try Self.checkNoUIDs(in: builder.plainContainers)
        } catch {
            // The objects filled so far may be on cycles, which would outlive the error (see ReferenceCycles.swift).
            for case let object? in builder.shells { object.fields = [:] }
            throw error
        }
        entries = builder.entries
        shells = builder.shells
        table = builder.table
    }

    /// The resolver of a validated archive (see ``KeyedArchive/validate()``).
    init(archive: KeyedArchive) throws(ArchiveError) {
        top = archive.top
        table = nil
        var shells = [ArchivedObject?](repeating: nil, count: archive.objects.count)
        var entries = [ArchivedValue](repeating: .null, count: archive.objects.count)
        var plainContainers: [(Int, ArchiveValue)] = []
        for (index, entry) in archive.objects.enumerated() {
            guard case .dictionary(let fields) = entry, fields[ArchiveKey.class] != nil else {
                switch entry {
                case .uid, .array, .dictionary: plainContainers.append((index, entry))
                default: break
                }
                if index != 0 { entries[index] = .reference(entry) }
                continue
            }
            let archiveClass = archive.archiveClass(of: ArchiveUID(UInt32(index))) ?? ArchiveClass(name: "")
            let object = ArchivedObject(archiveClass: archiveClass)
            shells[index] = object
            if index != 0 { entries[index] = .object(object) }
        }
        self.entries = entries
        self.shells = shells
        try Self.checkNoUIDs(in: plainContainers)
        for (index, entry) in archive.objects.enumerated() {
            guard let object = shells[index], case .dictionary(let fields) = entry else { continue }
            var resolved = OrderedDictionary<String, ArchivedValue>(minimumCapacity: fields.count)
            for (key, value) in fields where key != ArchiveKey.class {
                resolved[key] = resolve(value)
            }
            object.fields = resolved
        }
    }

    /// Refuses a plain container entry that holds UIDs (see the type's documentation): `entries` are the
    /// entries that are a UID, an array or a dictionary, with their UIDs.
    private static func checkNoUIDs(in entries: [(Int, ArchiveValue)]) throws(ArchiveError) {
        for (index, entry) in entries {
            var pending = [entry]
            while let value = pending.popLast() {
                switch value {
                case .uid:
                    throw ArchiveError(
                        .unexpectedType,
                        "$objects[\(index)] is a plain \(entry.typeName) holding UIDs, not an instance; the graph cannot keep it")
                case .array(let elements): pending.append(contentsOf: elements)
                case .dictionary(let entries): pending.append(contentsOf: entries.values)
                default: break
                }
            }
        }
    }

    /// Tells the graph object of entry `uid` which typed instance was decoded from the same entry.
    func link(_ object: AnyObject, as uid: UInt32) {
        if Int(uid) < shells.count { shells[Int(uid)]?.counterpart = object }
    }

    /// ``link(_:as:)`` for every instance of `instances`.
    func link(_ instances: InstanceTable) {
        instances.forEach { uid, object in link(object, as: uid) }
    }

    /// The graph value for a table value: UIDs become objects, references or `nil`.
    func resolve(_ value: ArchiveValue) -> ArchivedValue {
        switch value {
        case .uid(let uid): return resolve(uid)
        case .array, .dictionary:
            let identity = StorageIdentity(value)
            if let identity, let done = resolved.values[identity] { return done }
            let result: ArchivedValue =
                switch value {
                case .array(let elements): .array(elements.map(resolve))
                case .dictionary(let entries): .dictionary(entries.mapValues(resolve))
                default: .inline(value)
                }
            if let identity { resolved.values[identity] = result }
            return result
        default: return .inline(value)
        }
    }

    /// The graph value an `$objects` UID refers to.
    func resolve(_ uid: ArchiveUID) -> ArchivedValue {
        guard uid.index < entries.count else { return .null }
        if uid.index != 0, let shell = shells[uid.index] { return .object(shell) }
        let value = entries[uid.index]
        if case .inline = value, let table { return GraphBuilder.string(ofEntry: uid.index, in: table) }
        return value
    }
}

/// Writes graph values into a table: each object once (by identity), fields from a worklist so that long
/// chains and cycles cost no stack.
struct GraphEncoder {
    let builder: ArchiveTableBuilder
    /// Archives an object's typed counterpart (see ``ArchivedObject/counterpart``) in its place, returning its UID.
    let counterpartUID: (AnyObject) -> ArchiveUID?
    private var pending: [(ArchivedObject, ArchiveUID)] = []
    /// Referenced scalars already written, by storage: one value reached from many places (data the JSON printed
    /// once and `$ref`'d) is one `$objects` entry again, not one per reference. Strings the builder finds itself.
    private var referenceUIDs: [StorageIdentity: ArchiveUID] = [:]

    init(builder: ArchiveTableBuilder, counterpartUID: @escaping (AnyObject) -> ArchiveUID? = { _ in nil }) {
        self.builder = builder
        self.counterpartUID = counterpartUID
    }

    /// The table value for a graph value; objects not seen before are queued for ``drain()``.
    mutating func encode(_ value: ArchivedValue) -> ArchiveValue {
        switch value {
        case .null: return .uid(.null)
        case .inline(let scalar): return scalar
        case .reference(let scalar):
            // The builder finds the same string's entry itself (`ArchiveObjectTable.appendUniqued`).
            if case .string = scalar { return .uid(builder.append(scalar)) }
            guard let identity = StorageIdentity(scalar) else { return .uid(builder.append(scalar)) }
            if let uid = referenceUIDs[identity] { return .uid(uid) }
            let uid = builder.append(scalar)
            referenceUIDs[identity] = uid
            return .uid(uid)
        case .array(let elements): return .array(elements.map { encode($0) })
        case .dictionary(let entries): return .dictionary(entries.mapValues { encode($0) })
        case .object(let object):
            if let uid = builder.uid(of: object) { return .uid(uid) }
            if let counterpart = object.counterpart, let uid = counterpartUID(counterpart) { return .uid(uid) }
            // Reserve the slot now, fill it later: a cycle back to this object finds its UID.
            let uid = builder.reserve()
            builder.remember(object, as: uid)
            pending.append((object, uid))
            return .uid(uid)
        }
    }

    /// Whether objects are waiting to be written.
    var isDone: Bool { pending.isEmpty }

    /// Writes queued objects until none is left.
    mutating func drain() {
        while let (object, uid) = pending.popLast() {
            var values: [ArchiveValue] = []
            values.reserveCapacity(object.fields.count)
            for value in object.fields.values { values.append(encode(value)) }
            builder.fillInstance(uid, object.archiveClass, keys: object.fields.keys.elements, values: values)
        }
    }
}

/// Objects with the numbers they had in their source. Holds the objects, so that the identifiers stay theirs.
/// Read from an archive, the number is the UID: the table by object is built the first time one is asked
/// (printing JSON), not by every decode.
package final class ObjectNumbers {
    private var byUID: [ArchivedObject?]
    private var numbered: [(ArchivedObject, Int)]
    private var table: [ObjectIdentifier: Int]?
    /// One more than the largest number: the first one free for objects and values that have none.
    let firstFree: Int

    /// Objects numbered by the text they were read from (JSON `$uid`s).
    init(_ numbered: [(ArchivedObject, Int)]) {
        byUID = []
        self.numbered = numbered
        firstFree = (numbered.map(\.1).max() ?? 0) + 1
    }

    /// Lets the objects go last to first. Writers number an object before the objects it refers to (a person
    /// before its address, an array before its elements), so released first to last, each object only counted
    /// down what it refers to, and each of those was freed later, when this table reached it: every object
    /// touched twice, far apart. Last to first, what an object refers to has been let go here already, and ARC
    /// frees it with the object. W1's graph (835,000 objects) is freed in 0.23–0.27 s, against 0.34–0.36 s.
    deinit {
        while !byUID.isEmpty { byUID.removeLast() }
        while !numbered.isEmpty { numbered.removeLast() }
    }

    /// Objects read from an archive, each numbered by its UID (`uids[uid]`, nil for entries that are no object).
    init(uids: [ArchivedObject?]) {
        byUID = uids
        numbered = []
        firstFree = (uids.lastIndex { $0 != nil } ?? 0) + 1
    }

    /// Calls `body` with each object numbered.
    package func forEachObject(_ body: (ArchivedObject) -> Void) {
        for case let object? in byUID { body(object) }
        for (object, _) in numbered { body(object) }
    }

    /// The number of `object`, if it came from the source.
    subscript(object: ArchivedObject) -> Int? {
        if let table { return table[ObjectIdentifier(object)] }
        var built: [ObjectIdentifier: Int] = [:]
        built.reserveCapacity(numbered.count + byUID.count)
        for (object, number) in numbered { built[ObjectIdentifier(object)] = number }
        for (uid, object) in byUID.enumerated() { if let object { built[ObjectIdentifier(object)] = uid } }
        table = built
        return built[ObjectIdentifier(object)]
    }
}
