import AutoCodingFast
import Foundation

/// The state of one decode over an archive (confined to one thread; its hot properties skip the runtime's
/// exclusivity checks, which cost more than the work they guard): the record table, whose readers are the only
/// way to the archive's bytes (no offset or byte slice is taken here), decoded class instances by UID, and the
/// instances being decoded.
///
/// The table validates each bplist object the first time the decode reaches it (``ArchiveRecordTable``), so
/// reading one goes through ``record(_:)`` or ``resolve(_:)``, which throw what the whole-file check would
/// have thrown. A ``Node`` is only made for an object already validated, so reading a node's own record
/// (``kind(_:)``) and its keys (``field(_:of:)``) cannot fail.
final class DecodingContext {
    /// The archive's records, and the readers of their values (``ArchiveRecordTable/string(_:)`` and the like).
    let table: ArchiveRecordTable
    let userInfo: [CodingUserInfoKey: Any]
    /// This decoder's class-name mappings over a snapshot of the registry's, so that no lock is taken per object.
    var classes: [String: any Decodable.Type]
    var codingClasses: [String: any ArchiveCoding.Type] = [:]
    let registry: ArchiveClassRegistry
    private let depthLimit: Int
    @exclusivity(unchecked) private var depth = 0
    /// Containers, value-type instances and list elements decoded so far (``countExpanded(_:at:)``), and how
    /// many may be. An entry decoded as a value (a struct, an array) is decoded again for each reference to it, so
    /// arrays referring twice to the next would expand a 30-object file into 2³⁰ values: the budget keeps that
    /// linear in the file.
    @exclusivity(unchecked) private var expandedValues = 0
    private let maxExpandedValues: Int
    /// Where the next key lookup starts: the slot after the previous hit (see `KeyedArchiveView.entry`).
    @exclusivity(unchecked) private var keySlot = 0
    /// Decoded class instances by UID, so that every reference to one object yields the same instance.
    let instances: InstanceTable
    @exclusivity(unchecked) private var kinds = TypeKindCache()
    /// How `T` decodes (decided once per type).
    func decodeKind<T>(of type: T.Type) -> DecodeKind { kinds.kind(of: T.self) }
    @exclusivity(unchecked) var inProgress: [(uid: UInt32, type: Any.Type)] = []
    /// Class names read, by class descriptor (``className(of:)``).
    var classNames: [Int: String] = [:]
    /// The class names secure decoding allows for the value being decoded now; nil when not checking.
    var allowedClassNames: Set<String>?
    /// What ``decodeAny(_:path:)`` does with a class it cannot map to a Swift type.
    var unknownClassPolicy: KeyedUnarchiver.UnknownClassPolicy = .keepAsArchivedObject
    /// nil until ``resolver(at:)`` (DecodingContext+Graph.swift) is first asked for; then the resolver, or why it
    /// could not be built.
    var resolverStorage: Result<GraphResolver, ArchiveError>?
    /// The resolver's values this decode handed out (``graphValue(_:path:)``, objects of unknown classes kept):
    /// once the decode ends, the rest of the graph is emptied, so that its cycles do not outlive it.
    var graphValuesHandedOut: [ArchivedValue] = []

    deinit {
        if case .success(let built)? = resolverStorage { built.emptyObjects(unreachableFrom: graphValuesHandedOut) }
    }

    /// Whether a call of a public decode entry point is running (``entryPoint(_:)``), and the UIDs of the
    /// instances it registered.
    @exclusivity(unchecked) private(set) var inEntryPoint = false
    @exclusivity(unchecked) private var registeredInCall: [UInt32] = []
    /// What ``decodeAny(_:path:)`` decoded of shared containers (DecodingContext+Dynamic.swift).
    var sharedContainers = SharedContainers()

    /// Runs one call of a public decode entry point (`KeyedUnarchiver`'s `decodeObject` family). A call that
    /// throws gives its caller nothing, so the graph values it handed out are forgotten, to be emptied with the
    /// rest of the graph when the decode ends (else a hostile input would leave a cycle of graph objects behind
    /// on every failed call), and so are the instances it registered: a later call must not return one of them,
    /// which may hold those values. A call made from inside another (an `init(coder:)` reading its fields) is
    /// part of it.
    func entryPoint<T>(_ body: () throws -> T) throws -> T {
        guard !inEntryPoint else { return try body() }
        inEntryPoint = true
        registeredInCall.removeAll(keepingCapacity: true)
        sharedContainers.startCall()
        let handedOut = graphValuesHandedOut.count
        defer { inEntryPoint = false }
        do {
            return try body()
        } catch {
            graphValuesHandedOut.removeSubrange(handedOut...)
            for uid in registeredInCall { instances[uid] = nil }
            sharedContainers.forgetCall()
            throw error
        }
    }

    /// Registers the class instance decoded from `uid`. Once graph values exist, the graph object of the same
    /// entry learns it too, so that re-encoding writes the two as one object.
    @inline(__always)
    func remember(_ object: AnyObject, as uid: UInt32) {
        instances[uid] = object
        if inEntryPoint { registeredInCall.append(uid) }
        if case .success(let built)? = resolverStorage { built.link(object, as: uid) }
    }

    init(decoder: KeyedArchiveDecoder, table: ArchiveRecordTable) {
        self.table = table
        userInfo = decoder.userInfo
        classes = decoder.registry.typesByName().merging(decoder.classes) { _, own in own }
        registry = decoder.registry
        depthLimit = decoder.options.decodingDepthLimit
        // 16 decodes per bplist object (the default) covers real sharing (an entry referenced from many objects
        // costs as many objects); only sharing of sharing, a reference bomb, goes past it.
        maxExpandedValues = decoder.options.expandedValueLimit(forObjects: table.count)
        instances = InstanceTable(count: table.objectCount)
    }

    // MARK: Table access

    /// The record of bplist object `object`, validated on first touch. Damage found then is thrown as the
    /// decoder reports an archive that fails whole-file validation: `DecodingError.dataCorrupted` with the
    /// ``ArchiveError`` as its underlying error.
    @inline(__always)
    func record(_ object: Int) throws -> BPlistIndex.Record {
        do {
            return try table.record(object)
        } catch {
            throw Self.corrupted(error)
        }
    }

    /// The kind of the object at a node (validated when the node was made).
    @inline(__always)
    func kind(_ node: Node) -> BPlistIndex.Kind { table.validated(node.object).kind }

    /// The record of the object at a node (validated when the node was made).
    @inline(__always)
    func record(of node: Node) -> BPlistIndex.Record { table.validated(node.object) }

    /// The error for damage found while decoding, worded as for damage found before (see ``KeyedArchiveDecoder``).
    static func corrupted(_ error: ArchiveError) -> DecodingError {
        .dataCorrupted(
            .init(codingPath: [], debugDescription: "The data is not a valid keyed archive: \(error)", underlyingError: error))
    }

    /// Follows a UID; values stored in place stay where they are. Validates what it reaches.
    @inline(__always)
    func resolve(_ object: Int) throws -> Node {
        do {
            return try node(object, uid: table.uid(in: object))
        } catch {
            throw Self.corrupted(error)
        }
    }

    /// The node of bplist object `object`, which holds `uid` (nil for a value stored in place).
    @inline(__always)
    private func node(_ object: Int, uid: UInt32?) throws(ArchiveError) -> Node {
        guard let uid else { return Node(object: object, uid: nil) }
        if uid == 0 { return .null }
        return Node(object: try table.objectNumber(uid), uid: uid)
    }

    /// The bplist object stored under `key` in the object at `node` (not validated yet: pass it to ``resolve(_:)``).
    @inline(__always)
    func field(_ key: String, of node: Node) -> Int? {
        node.isNull ? nil : table.entry(of: node.object, key: key, startingAt: &keySlot)
    }

    /// Where the previous `$class` lookup found it. Writers unique the key string and put it at the same slot
    /// of every object, so the lookup, made for every object, compares one object number instead of scanning
    /// (and leaves ``keySlot`` on the track of the field lookups).
    @exclusivity(unchecked) private var classKeyHint = ArchiveRecordTable.KeyHint()

    /// The bplist object stored under `$class` in the object at `node` (see ``field(_:of:)``).
    @inline(__always)
    func classField(of node: Node) -> Int? {
        node.isNull ? nil : table.classReference(of: node.object, hint: &classKeyHint)
    }

    /// Where the keys of each class's instances are (see ``ArchiveKeySlots``).
    @exclusivity(unchecked) private var classKeySlots = ClassKeySlotTable()

    /// The key slots of the class of the instance at `node`, ready for a new object's reads; nil for an object
    /// whose `$class` is absent or not validated yet, or beyond ``ClassKeySlotTable/capacity`` classes (its
    /// fields are then found by scanning, as ``field(_:of:)`` does). Keyed by the class UID, which a validated record holds: nothing is validated here, so a reader
    /// touches the objects it touched before.
    func keySlots(of node: Node) -> ArchiveKeySlots? {
        guard !node.isNull, let classRef = classField(of: node) else { return nil }
        let record = table.validated(classRef)
        guard record.kind == .uid else { return nil }
        let slots = classKeySlots.slots(ofClass: table.uid(record))
        slots?.startObject()
        return slots
    }

    /// The bplist object stored under `key` in the object at `node`, found through its class's key slots (see
    /// ``keySlots(of:)``).
    @inline(__always)
    func field(_ key: String, of node: Node, slots: ArchiveKeySlots) -> Int? {
        node.isNull ? nil : table.entry(of: node.object, key: key, slots: slots)
    }

    /// Long strings already made, by bplist object, and which long strings were made once (one bit per object,
    /// allocated with the first long string). A string referenced many times is made at most twice and then
    /// shared: a 40 KB string in thousands of array elements was a copy per element (a 67 KB archive decoded
    /// into 535 MB in 3.9 s). A string used once costs one bit test, no lookup.
    @exclusivity(unchecked) private var sharedStrings: [Int: String] = [:]
    @exclusivity(unchecked) private var stringsMadeOnce: [UInt64] = []

    /// The string of string record `record`, bplist object `object` (validated).
    func string(_ record: BPlistIndex.Record, object: Int) -> String {
        // 15 units or fewer: a Swift string that small is stored in place, with nothing to share.
        guard record.count > 15, object >= 0, object < table.count else { return table.string(record) }
        if stringsMadeOnce.isEmpty { stringsMadeOnce = Array(repeating: 0, count: (table.count + 63) / 64) }
        let (word, bit) = (object >> 6, UInt64(1) << UInt64(object & 63))
        guard stringsMadeOnce[word] & bit != 0 else {
            stringsMadeOnce[word] |= bit
            return table.string(record)
        }
        if let made = sharedStrings[object] { return made }
        let made = table.string(record)
        sharedStrings[object] = made
        return made
    }

    // MARK: Decoding

    /// The bplist object of the `$top` entry `root`, else of the first `$top` entry; nil when `$top` is empty.
    func rootEntry() throws -> Int? {
        do {
            if let root = try table.topEntry(ArchiveKey.root) { return root }
            guard let first = table.topKeys.first else { return nil }
            return try table.topEntry(first)
        } catch {
            throw Self.corrupted(error)
        }
    }

    /// Decodes the root entry (see ``rootEntry()``) as `type`.
    func decodeRoot<T: Decodable>(_ type: T.Type) throws -> T {
        guard let object = try rootEntry() else {
            throw DecodingError.valueNotFound(
                type, .init(codingPath: [], debugDescription: "The archive's $top has no root entry"))
        }
        do {
            return try decode(type, at: object, path: .root)
        } catch {
            // The caller gets nothing (``entryPoint(_:)``'s rule, for the one call of this context): the whole
            // graph is emptied when the context goes.
            graphValuesHandedOut = []
            throw error
        }
    }

    /// Decodes the value stored at bplist object `object` (a UID or a value in place) as `type`.
    func decode<T: Decodable>(_ type: T.Type, at object: Int, path: CodingPathNode) throws -> T {
        try decode(type, node: resolve(object), path: path)
    }

    func decode<T: Decodable>(_ type: T.Type, node: Node, path: CodingPathNode) throws -> T {
        if allowedClassNames != nil { try checkAllowed(node, path: path) }
        switch kinds.kind(of: T.self) {
        case .foundation:
            return try FoundationValues.decode(type, node: node, context: self, path: path)
        case .list(let listType):
            return try nested(path) { try decodeList(listType, as: T.self, node: node, path: path) }
        case .dictionary(let dictionaryType):
            return try nested(path) { try decodeDictionary(dictionaryType, as: T.self, node: node, path: path) }
        case .object(let isClass):
            return try decodeInstance(type, node: node, path: path, isClass: isClass)
        case .autoCodingObject(let autoType):
            return try decodeAutoCodingObject(autoType, as: T.self, node: node, path: path)
        case .archiveCoding(let codingType):
            return try decodeCodingObject(codingType, as: T.self, node: node, path: path)
        }
    }

    /// Decodes an ``ArchiveCoding`` object through `init(coder:)` (once per UID, `awakeAfter(using:)` applied)
    /// as the declared type `T`.
    private func decodeCodingObject<C: ArchiveCoding, T>(_ type: C.Type, as: T.Type, node: Node, path: CodingPathNode)
        throws -> T
    {
        guard !node.isNull else {
            throw DecodingError.valueNotFound(T.self, .init(codingPath: path.path, debugDescription: "Found $null."))
        }
        let decoded = try decodeCoding(C.self, node: node, path: path)
        guard let result = decoded as? T else {
            throw DecodingError.archiveTypeMismatch(
                T.self, at: path, found: "an instance of \(Swift.type(of: decoded)), decoded from \(describe(node))")
        }
        return result
    }

    // MARK: Class checks (NSSecureCoding's "of class"; the checks are in DecodingContext+ClassChecks.swift)

    /// A class check made: the class descriptor's object, the expected type, and the class to instantiate.
    struct ClassCheck {
        var descriptor: Int
        var expected: ObjectIdentifier
        var result: AnyClass
    }
    /// The first class checks made, searched in order: an archive has few classes, and comparing a handful of
    /// integers costs less than hashing (the check runs for every object decoded).
    @exclusivity(unchecked) var recentClassChecks: [ClassCheck] = []
    /// The class checks made once ``recentClassChecks`` is full, by descriptor (the last one for each).
    @exclusivity(unchecked) var classChecks: [Int: ClassCheck] = [:]

    /// Decodes the value stored at bplist object `object` (a field's value or a list element, not resolved yet)
    /// under `key` of the value at `parent`, as ``decodeChild(_:node:key:below:)`` does.
    ///
    /// A reference to a class instance decoded already, where that function would only look it up (any class
    /// instance, and an `@AutoCoding` object met while others are being filled), is taken from ``instances`` by
    /// its UID before anything is resolved: its `$objects` entry was resolved and checked when it was first
    /// decoded. For shared references (W1's friends, people anywhere in the archive) resolving was two reads at
    /// random places per reference, a cache and TLB miss each, about a twelfth of an `@AutoCoding` decode.
    func decodeChild<T: Decodable>(_ type: T.Type, at object: Int, key: ArchiveCodingKey, below parent: CodingPathNode)
        throws -> T
    {
        guard allowedClassNames == nil, !parent.isRoot else {
            return try decode(type, node: resolve(object), path: parent.appending(key))
        }
        let kind = kinds.kind(of: T.self)
        let node: Node
        do {
            let uid = try table.uid(in: object)
            if let uid, uid != 0, kind.sharesDecodedInstances(whileDraining: isDraining), let existing = instances[uid],
                ClassReferences.isExactly(existing, T.self)
            {
                return unsafeBitCast(existing, to: T.self)
            }
            node = try self.node(object, uid: uid)
        } catch {
            throw Self.corrupted(error)
        }
        return try decodeChild(type, node: node, kind: kind, key: key, below: parent)
    }

    /// Decodes the value at `node`, stored under `key` (a field name or a list index) of the value at `parent`.
    ///
    /// A value that makes no decoder of its own (a Foundation scalar, an `@AutoCoding` object met while others
    /// are being filled, which is only queued, or a class instance decoded already) is read with the parent's
    /// path, and the key is added only to an error it throws at that level: no path node is allocated for it.
    /// One per field and list element was about a tenth of a model decode. Anything else, and every value
    /// under the root or under secure decoding, gets its own path node, which its decoder shows as
    /// `codingPath`.
    func decodeChild<T: Decodable>(_ type: T.Type, node: Node, key: ArchiveCodingKey, below parent: CodingPathNode)
        throws -> T
    {
        guard allowedClassNames == nil, !parent.isRoot else {
            return try decode(type, node: node, path: parent.appending(key))
        }
        return try decodeChild(type, node: node, kind: kinds.kind(of: T.self), key: key, below: parent)
    }

    /// ``decodeChild(_:node:key:below:)`` outside secure decoding and the root, with `T`'s kind.
    @inline(__always)
    private func decodeChild<T: Decodable>(
        _ type: T.Type, node: Node, kind: DecodeKind, key: ArchiveCodingKey, below parent: CodingPathNode
    ) throws -> T {
        do {
            switch kind {
            case .foundation:
                return try FoundationValues.decode(type, node: node, context: self, path: parent)
            case .autoCodingObject(let autoType) where isDraining:
                return try decodeAutoCodingObject(autoType, as: T.self, node: node, path: parent)
            case .object(isClass: true) where node.uid.map { instances[$0] != nil } ?? false:
                // A class instance decoded already (a shared reference) is only looked up.
                return try decodeInstance(type, node: node, path: parent, isClass: true)
            default:
                break
            }
        } catch let error as DecodingError {
            throw error.prefixingKey(key, below: parent)
        }
        return try decode(type, node: node, path: parent.appending(key))
    }

    // MARK: @AutoCoding objects: allocate, register, fill later

    /// Objects allocated but not yet filled, and whether a drain is running (then new ones just queue).
    private struct Fill {
        var object: any AutoCodingObject
        var node: Node
        var path: CodingPathNode
    }
    @exclusivity(unchecked) private var fills: [Fill] = []
    @exclusivity(unchecked) private(set) var isDraining = false

    /// Allocates an `@AutoCoding` object, registers it under its UID before any field is read, and queues
    /// its fields. References to it met while filling (cycles, `weak` back-pointers) get the same instance,
    /// and filling runs from a worklist, so chains of any length cost no stack.
    private func decodeAutoCodingObject<A: AutoCodingObject, T>(_ type: A.Type, as: T.Type, node: Node,
                                                                path: CodingPathNode) throws -> T
    {
        guard !node.isNull else {
            throw DecodingError.valueNotFound(T.self, .init(codingPath: path.path, debugDescription: "Found $null."))
        }
        guard kind(node) == .dictionary, let uid = node.uid else {
            throw DecodingError.archiveTypeMismatch(T.self, at: path, found: describe(node))
        }
        if let existing = instances[uid] {
            // A reference to an object already decoded (shared friends): an exact class match needs no cast.
            if ClassReferences.isExactly(existing, T.self) { return unsafeBitCast(existing, to: T.self) }
            return try Self.cast(existing, to: T.self, uid: uid, path: path)
        }
        return try decodeNewAutoCodingObject(A.self, as: T.self, node: node, path: path)
    }

    /// An instance decoded already, as `T`, or the type mismatch naming it. Kept out of the callers: a cast
    /// needs the metadata of `T?`, which a generic caller would otherwise look up (hundreds of instructions)
    /// on every call, even when it returns before the cast.
    @inline(never)
    private static func cast<T>(_ existing: AnyObject, to type: T.Type, uid: UInt32, path: CodingPathNode) throws -> T {
        guard let instance = existing as? T else {
            throw DecodingError.archiveTypeMismatch(T.self, at: path, found: "\(Swift.type(of: existing)) (UID \(uid))")
        }
        return instance
    }

    /// The first reference to an `@AutoCoding` object (see ``decodeAutoCodingObject(_:as:node:path:)``).
    @inline(never)
    private func decodeNewAutoCodingObject<A: AutoCodingObject, T>(_ type: A.Type, as: T.Type, node: Node,
                                                                   path: CodingPathNode) throws -> T
    {
        let object: any AutoCodingObject
        let result: T
        let concrete: AnyClass = try checkedClass(A.self, node: node, path: path)
        if ObjectIdentifier(concrete) != ObjectIdentifier(A.self) {
            (object, result) = try Self.registeredShell(concrete, as: T.self, path: path)
        } else {
            precondition(A.self == T.self)
            let shell = A(autoCodingShell: AutoCodingShell())
            object = shell
            result = unsafeBitCast(shell, to: T.self)  // A is T: no runtime cast needed.
        }
        if let uid = node.uid { remember(object, as: uid) }
        // A queued object's path names its UID: paths through a long chain would grow one link per object.
        fills.append(Fill(object: object, node: node, path: .object(node.uid ?? 0)))
        guard !isDraining else { return result }
        try drainFills()
        // The outermost call hands out the substitute, if the object chose one.
        if let uid = node.uid, let final = instances[uid], final !== object { return Self.substitute(final, for: result) }
        return result
    }

    /// A new shell of `concrete`, a class registered for the archived name, as `T`. The casts are kept out of
    /// the caller for the reason ``cast(_:to:uid:path:)`` gives.
    @inline(never)
    private static func registeredShell<T>(_ concrete: AnyClass, as: T.Type, path: CodingPathNode) throws
        -> (any AutoCodingObject, T)
    {
        guard let registered = concrete as? any AutoCodingObject.Type else {
            throw DecodingError.archiveTypeMismatch(T.self, at: path, found: "\(concrete), not an @AutoCoding class")
        }
        let object = registered.init(autoCodingShell: AutoCodingShell())
        guard let cast = object as? T else {
            throw DecodingError.archiveTypeMismatch(T.self, at: path, found: "\(registered)")
        }
        return (object, cast)
    }

    /// The object that replaced a decoded one (`autoCodingReplacement()`), when it is a `T`; else `result`.
    @inline(never)
    private static func substitute<T>(_ replacement: AnyObject, for result: T) -> T { (replacement as? T) ?? result }

    /// Fills queued objects until none is left: hooks, then the generated `decodeProperties(from:)`.
    func drainFills() throws {
        guard !isDraining else { return }
        isDraining = true
        defer { isDraining = false }
        while let fill = fills.popLast() {
            // Made once for the three calls below. It fits an existential's inline buffer (24 bytes): no box.
            let decoder: any Decoder = _ArchiveDecoder(context: self, node: fill.node, codingPathNode: fill.path)
            let replacement = try Self.fill(fill.object, from: decoder)
            if replacement !== fill.object, let uid = fill.node.uid { remember(replacement, as: uid) }
        }
    }

    /// Runs the hooks and the generated `decodeProperties(from:)` of `object`, and returns its replacement. The
    /// object opened once, as a borrowed parameter: called on the existential, each of the four calls retained
    /// and released it.
    private static func fill(_ object: some AutoCodingObject, from decoder: any Decoder) throws -> AnyObject {
        try object.autoCodingWillDecode(from: decoder)
        try object.decodeProperties(from: decoder)
        try object.autoCodingDidDecode(from: decoder)
        return object.autoCodingReplacement()
    }

    /// Decodes the object at `node` into an existing `@AutoCoding` instance (`setValues(fromArchive:)`).
    func fill(_ object: any AutoCodingObject, from node: Node) throws {
        if let uid = node.uid { remember(object, as: uid) }
        fills.append(Fill(object: object, node: node, path: .root))
        try drainFills()
    }

    /// Runs `body` one nesting level deeper, or throws when that passes
    /// ``ArchiveReadingOptions/decodingDepthLimit`` or the
    /// expansion budget.
    @inline(__always)
    func nested<R>(_ path: CodingPathNode, _ body: () throws -> R) throws -> R {
        guard depth < depthLimit else {
            throw DecodingError.archiveCorrupted(
                "values nest deeper than options.decodingDepthLimit \(depthLimit)", at: path)
        }
        try countExpanded(1, at: path)
        depth += 1
        defer { depth -= 1 }
        return try body()
    }

    /// Counts `count` more decoded values against the expansion budget (`expandedValues`): each container and
    /// value-type instance (``nested(_:_:)``), and each element of a list or dictionary (``listElements(_:path:)``).
    /// Elements count too: a list of a thousand references to one list of a thousand strings, 4 KB of archive,
    /// is two containers but a million values.
    @inline(__always)
    func countExpanded(_ count: Int, at path: CodingPathNode) throws {
        expandedValues += count
        guard expandedValues <= maxExpandedValues else {
            throw DecodingError.archiveCorrupted(
                "shared entries expand into more than \(maxExpandedValues) decoded values "
                    + "(options.maxExpandedNodesPerInputByte per object of the archive, at most "
                    + "options.maxExpandedNodeCount): a reference bomb", at: path)
        }
    }

    /// Decodes a list type `L`, which the caller found to be `T` itself.
    private func decodeList<L: _ArchiveListDecodable, T>(_ type: L.Type, as: T.Type, node: Node, path: CodingPathNode)
        throws -> T
    {
        precondition(L.self == T.self)
        let list = try L._archiveDecode(elements: listElements(node, path: path), context: self, path: path)
        return unsafeBitCast(list, to: T.self)  // L is T: no runtime cast needed.
    }

    /// Decodes a dictionary type `D`, which the caller found to be `T` itself.
    private func decodeDictionary<D: _ArchiveDictionaryDecodable, T>(_ type: D.Type, as: T.Type, node: Node,
                                                                      path: CodingPathNode) throws -> T
    {
        precondition(D.self == T.self)
        guard let keysRef = field(FoundationKey.keys, of: node), let objectsRef = field(FoundationKey.objects, of: node)
        else { throw DecodingError.archiveTypeMismatch(D.self, at: path, found: describe(node)) }
        let keys = try listElements(resolve(keysRef), path: path)
        let objects = try listElements(resolve(objectsRef), path: path)
        guard keys.count == objects.count else {
            throw DecodingError.archiveCorrupted(
                "NS.keys has \(keys.count) entries but NS.objects has \(objects.count)", at: path)
        }
        let dictionary = try D._archiveDecode(keys: keys, objects: objects, context: self, path: path)
        return unsafeBitCast(dictionary, to: T.self)  // D is T: no runtime cast needed.
    }

    /// Decodes an object through `init(from:)`. Class instances are decoded once per UID; a class registered
    /// for the archived class name is decoded in place of `type` when it is a subtype of it.
    private func decodeInstance<T: Decodable>(_ type: T.Type, node: Node, path: CodingPathNode, isClass: Bool) throws -> T {
        if isClass, let uid = node.uid, let existing = instances[uid] {
            if ClassReferences.isExactly(existing, T.self) { return unsafeBitCast(existing, to: T.self) }
            return try Self.cast(existing, to: T.self, uid: uid, path: path)
        }
        return try decodeNewInstance(type, node: node, path: path, isClass: isClass)
    }

    /// Decodes the class registered for an instance's class name and casts it to `T`. Apart from
    /// ``decodeNewInstance(_:node:path:isClass:)``: the cast's `T?` made that function ask the runtime for `T?`'s
    /// metadata on every call (500 instructions per object of a Codable decode), registered class or not.
    @inline(never)
    private func decodeRegistered<T>(
        _ target: any Decodable.Type, as: T.Type, decoder: _ArchiveDecoder, path: CodingPathNode
    ) throws -> T {
        let value: Any = try nested(path) { try target.init(from: decoder) }
        guard let cast = value as? T else {
            throw DecodingError.archiveTypeMismatch(T.self, at: path, found: "\(target), registered for its class name")
        }
        return cast
    }

    /// The first decode of an object (see ``decodeInstance(_:node:path:isClass:)``).
    @inline(never)
    private func decodeNewInstance<T: Decodable>(_ type: T.Type, node: Node, path: CodingPathNode, isClass: Bool)
        throws -> T
    {
        if isClass, let uid = node.uid {
            if let start = inProgress.firstIndex(where: { $0.uid == uid }) {
                let cycle = inProgress[start...].map { "\($0.type) (UID \($0.uid))" } + ["\(T.self) (UID \(uid))"]
                throw DecodingError.archiveCorrupted(
                    "reference cycle \(cycle.joined(separator: " → ")) cannot be decoded through init(from:), which "
                        + "needs every field first; give the types on the cycle @AutoCoding, or break the cycle",
                    at: path)
            }
        }
        var target: any Decodable.Type = T.self
        if !classes.isEmpty, let name = try className(of: node), let registered = classes[name], registered != T.self {
            target = registered
        }
        if isClass, let uid = node.uid { inProgress.append((uid, target)) }
        defer { if isClass, node.uid != nil { inProgress.removeLast() } }
        let decoder = _ArchiveDecoder(context: self, node: node, codingPathNode: path)
        let result: T
        if target == T.self {
            result = try nested(path) { try T(from: decoder) }
        } else {
            result = try decodeRegistered(target, as: T.self, decoder: decoder, path: path)
        }
        if isClass, let uid = node.uid { remember(ClassReferences.object(result), as: uid) }
        return result
    }
}
