import AutoCodingFast
import Foundation
import OrderedCollections

/// The state of one encode: the table being built, the class names, and the class instances whose fields
/// are still to be encoded.
///
/// Class instances are encoded from a worklist rather than recursively: a reference to an instance reserves
/// its UID and queues it, so long chains and cycles of objects cost no stack.
///
/// Confined to one encode on one thread: its hot variables skip the runtime's exclusivity checks, which cost
/// more than the work they guard.
final class EncodingContext {
    let builder = ArchiveTableBuilder()
    let userInfo: [CodingUserInfoKey: any Sendable]
    let archiverName: String
    @exclusivity(unchecked) private var classNames: [ObjectIdentifier: String]
    private let registry: ArchiveClassRegistry
    @exclusivity(unchecked) private var classes: [ObjectIdentifier: ArchiveClass] = [:]
    @exclusivity(unchecked) private var kinds = EncodeKindCache()
    @exclusivity(unchecked) private var classUIDs = IdentityTable()
    /// Instances waiting to be encoded; each one's path, `.object(uid)`, is made then (48 bytes an entry, not 64).
    @exclusivity(unchecked) private var pending: [(value: any Encodable, uid: ArchiveUID)] = []
    @exclusivity(unchecked) private var codingQueue: [(object: any ArchiveCoding, uid: ArchiveUID)] = []
    private lazy var graph = GraphEncoder(builder: builder) { [unowned self] in self.enqueue(counterpart: $0) }
    /// Archives values that are neither `ArchiveCoding` nor `Encodable` through `Mirror`.
    private lazy var reflector = ArchiveReflector(registry: registry, depthLimit: 512)

    /// A conditional reference waiting for the end of encoding.
    struct Conditional {
        /// The `$objects` entry holding the field, or nil for `$top` (then `storage` holds it).
        var owner: ArchiveUID?
        var storage: KeyedStorage?
        var key: String
        var object: AnyObject
    }
    @exclusivity(unchecked) var conditionals: [Conditional] = []
    /// Conditionals written into an object's fields through `encode(to:)`, by the storage they wait in until
    /// the object's entry is filled (then they name it as their owner).
    @exclusivity(unchecked) private var conditionalStorages: [ObjectIdentifier: [Int]] = [:]

    /// `encodeConditionalObject:` for a field written through `encode(to:)` (``ArchiveForm/conditional``):
    /// `$null` now, a reference at the end if `object` is archived unconditionally.
    func encodeConditional(_ object: AnyObject, key: String, into storage: KeyedStorage) {
        storage.fields[key] = .uid(.null)
        conditionalStorages[ObjectIdentifier(storage), default: []].append(conditionals.count)
        conditionals.append(.init(owner: nil, storage: storage, key: key, object: object))
    }

    init(encoder: KeyedArchiveEncoder) {
        userInfo = encoder.userInfo
        archiverName = encoder.archiver
        classNames = encoder.classNames
        registry = encoder.registry
    }

    func setClassName(_ name: String, for type: Any.Type) {
        classNames[ObjectIdentifier(type)] = name
        classes[ObjectIdentifier(type)] = nil
        classUIDs[ObjectIdentifier(type)] = nil
    }

    /// The archived class of a Swift type: this encoder's name, else the registry's, else the type's own.
    func archiveClass(for type: Any.Type) -> ArchiveClass {
        let id = ObjectIdentifier(type)
        if let known = classes[id] { return known }
        let (defaultName, chain) = ArchiveNaming.archiveClass(for: type)
        let name = classNames[id] ?? registry.className(for: type) ?? defaultName
        let archiveClass = ArchiveClass(name: name, chain: name == defaultName ? chain : [name] + chain.dropFirst())
        classes[id] = archiveClass
        return archiveClass
    }

    /// The UID of a Swift type's class descriptor, looked up by type identity after the first time.
    private func classUID(for type: Any.Type) -> ArchiveUID {
        let id = ObjectIdentifier(type)
        if let uid = classUIDs[id] { return uid }
        let uid = builder.classUID(archiveClass(for: type))
        classUIDs[id] = uid
        return uid
    }

    /// The UIDs of the list types' class descriptors (NSArray, NSSet ...), by list type (an encode meets a few
    /// list types, searched in order; nothing is allocated before the first), and of NSDate's: found in
    /// ``ArchiveTableBuilder/classUID(_:)`` by comparing class names and chains, they cost 100 to 250 instructions
    /// a list or date.
    @exclusivity(unchecked) private var listClassUIDs: [(type: ObjectIdentifier, uid: ArchiveUID)] = []
    @exclusivity(unchecked) private var dateClassUID: ArchiveUID?

    /// How `type` encodes (cached per type).
    func encodeKind<T>(of type: T.Type) -> EncodeKind { kinds.kind(of: type) }

    /// A field's value as `encode(_:forKey:)` stores it: numbers and booleans in place, as Apple's coder does even
    /// through generic code; strings, data and everything else as referenced entries. `childPath` is the field's
    /// path, made only for a value that needs one.
    func fieldValue<T: Encodable>(_ value: T, childPath: () -> CodingPathNode) throws -> ArchiveValue {
        if T.self == String.self { return .uid(builder.append(.string(unsafeBitCast(value, to: String.self)))) }
        if T.self != Data.self, let scalar = Self.foundationScalar(value) { return scalar }
        // The common field kinds that need no coding path are encoded without making one (a path node is an
        // allocation); the others go through encodeReference.
        let kind = kinds.kind(of: T.self)
        switch kind {
        case .object(isClass: true): return .uid(reference(to: value, ClassReferences.object(value)))
        case .foundationObject where T.self == Date.self: return .uid(encodeDate(unsafeBitCast(value, to: Date.self)))
        case .list(let listType): return .uid(try encodeList(listType, value, childPath))
        default: return try encodeReference(value, kind: kind, codingPathNode: childPath())
        }
    }

    /// Encodes `value` as an `$objects` entry and returns the UID value that refers to it.
    func encodeReference<T: Encodable>(_ value: T, codingPathNode: CodingPathNode) throws -> ArchiveValue {
        try encodeReference(value, kind: kinds.kind(of: T.self), codingPathNode: codingPathNode)
    }

    /// ``encodeReference(_:codingPathNode:)`` for a caller that has looked `T`'s kind up already.
    private func encodeReference<T: Encodable>(_ value: T, kind: EncodeKind, codingPathNode: CodingPathNode) throws
        -> ArchiveValue
    {
        switch kind {
        case .scalar:
            return .uid(builder.append(Self.foundationScalar(value) ?? .uid(.null)))
        case .foundationObject:
            return .uid(try encodeFoundationObject(value, codingPathNode: codingPathNode))
        case .list(let listType):
            return .uid(try encodeList(listType, value) { codingPathNode })
        case .dictionary(let dictionaryType):
            return .uid(try encodeDictionary(dictionaryType, value, codingPathNode))
        case .graphValue:
            return graph.encode(unsafeBitCast(value, to: ArchivedValue.self))  // T is ArchivedValue.
        case .archiveCoding:
            // An NSCoding-style class: `encode(with:)` and its hooks, wherever it sits.
            // The kind was decided from T's conformance, so the cast holds; a throw rather than a trap all the same.
            guard let coding = value as? any ArchiveCoding else {
                throw EncodingError.invalidValue(value, .init(
                    codingPath: codingPathNode.path, debugDescription: "\(T.self) is not an ArchiveCoding class"))
            }
            return try encodeCoding(coding, codingPathNode: codingPathNode)
        case .object(let isClass):
            guard isClass else {
                var spare: _ArchiveEncoder?  // A struct is encoded where it is met, with an encoder of its own.
                return try encodeInstance(value, into: nil, codingPathNode: codingPathNode, spare: &spare)
            }
            return .uid(reference(to: value, ClassReferences.object(value)))
        }
    }

    /// The UID of a class instance (`object` is `value`), reserved and queued the first time.
    private func reference(to value: any Encodable, _ object: AnyObject) -> ArchiveUID {
        if let uid = builder.uid(of: object) { return uid }
        let uid = builder.reserve()
        builder.remember(object, as: uid)
        pending.append((value, uid))
        return uid
    }

    /// The references to a list's elements, as ``encodeReference(_:codingPathNode:)`` gives them one by one. The
    /// element type's kind is looked up once: strings and class instances, the common elements, skip the
    /// per-element dispatch and go straight into the table's list references (encoding one writes no other list
    /// meanwhile), given back as values unless `flat`. The array is read by index: this code runs unspecialized,
    /// where an iterator (or any `E?`) costs a protocol call or a metadata lookup per element.
    func encodeElements<E: Encodable>(_ list: [E], flat: Bool, codingPathNode: () -> CodingPathNode) throws
        -> EncodedElements
    {
        let start = builder.listElementCount
        let kind = kinds.kind(of: E.self)
        switch kind {
        case .scalar where E.self == String.self:
            // Read as the `[String]` it is, whose elements are read without a value-witness copy each.
            for string in unsafeBitCast(list, to: [String].self) {
                builder.appendListElement(builder.append(.string(string)))
            }
        case .object(isClass: true) where MemoryLayout<E>.size == MemoryLayout<AnyObject>.size:
            // Elements of a class type are single references, as `AnyObject`'s are (anything wider takes the
            // general path): an element already archived is found by identity without copying it out as an `E`
            // and boxing it as `any Encodable`.
            let objects = unsafeBitCast(list, to: [AnyObject].self)
            builder.reserveInstances(objects.count)
            for i in 0..<objects.count {
                if let uid = builder.uid(of: objects[i]) {
                    builder.appendListElement(uid)
                } else {
                    builder.appendListElement(reference(to: list[i], objects[i]))
                }
            }
        default:
            var elements: [ArchiveValue] = []
            elements.reserveCapacity(list.count)
            let path = codingPathNode()
            for i in 0..<list.count { elements.append(try encodeReference(list[i], kind: kind, codingPathNode: path)) }
            return .values(elements)
        }
        return flat ? .flat(start: start) : .values(builder.takeListElements(from: start))
    }

    private func encodeList<L: _ArchiveListEncodable, T>(_ type: L.Type, _ value: T, _ path: () -> CodingPathNode) throws
        -> ArchiveUID
    {
        precondition(L.self == T.self)
        let list = unsafeBitCast(value, to: L.self)  // T is L: no runtime cast needed.
        let elements: [ArchiveValue]
        switch try list._archiveElements(self, path) {
        case .flat(let start):
            let uid = builder.reserve()
            let id = ObjectIdentifier(L.self)
            let classUID: ArchiveUID
            if let known = listClassUIDs.first(where: { $0.type == id }) {
                classUID = known.uid
            } else {
                classUID = builder.classUID(list._archiveListClass)
                if listClassUIDs.count < 16 { listClassUIDs.append((id, classUID)) }
            }
            builder.fillList(uid, classUID: classUID, key: FoundationKey.objects, from: start)
            return uid
        case .values(let values):
            elements = values
        }
        if list._archiveListClass == FoundationClass.orderedSet {
            // NSOrderedSet keys each element: NS.object.0, NS.object.1 …
            var fields = OrderedDictionary<String, ArchiveValue>(minimumCapacity: elements.count)
            for (i, element) in elements.enumerated() { fields["NS.object.\(i)"] = element }
            return builder.appendInstance(FoundationClass.orderedSet, fields)
        }
        return builder.appendInstance(list._archiveListClass, key: FoundationKey.objects, value: .array(elements))
    }

    private func encodeDictionary<D: _ArchiveDictionaryEncodable, T>(_ type: D.Type, _ value: T, _ path: CodingPathNode)
        throws -> ArchiveUID
    {
        precondition(D.self == T.self)
        let (keys, objects) = try unsafeBitCast(value, to: D.self)._archiveEntries(self, path)
        return builder.appendInstance(
            FoundationClass.dictionary, [FoundationKey.keys: .array(keys), FoundationKey.objects: .array(objects)])
    }

    /// Encodes any value the archiver accepts: `nil`, ``ArchiveCoding`` objects, graph values, `Encodable` values.
    func encodeAny(_ value: Any?, codingPathNode: CodingPathNode) throws -> ArchiveValue {
        guard let value = value.flatMap(Self.unwrapped) else { return .uid(.null) }
        switch value {
        case let coding as any ArchiveCoding: return try encodeCoding(coding, codingPathNode: codingPathNode)
        case let object as ArchivedObject: return graph.encode(.object(object))
        case let graphValue as ArchivedValue: return graph.encode(graphValue)
        case is NSNull: return .uid(builder.appendInstance(FoundationClass.null, [:]))
        case let text as ArchiveAttributedString: return try encodeAttributedString(text, codingPathNode: codingPathNode)
        case let encodable as any Encodable: return try encodeReference(encodable, codingPathNode: codingPathNode)
        // Collections of values that are not all `Encodable` (`[Any]`, `[String: Any]`): each element goes through
        // this method again, so an ``ArchiveCoding`` element is coded by its own methods, never reflected.
        case let array as [Any]:
            try enterCollection(value, codingPathNode)
            defer { collectionDepth -= 1 }
            let elements = try array.enumerated().map { try encodeAny($1, codingPathNode: codingPathNode.appending(index: $0)) }
            return .uid(builder.appendInstance(FoundationClass.array, [FoundationKey.objects: .array(elements)]))
        case let set as Set<AnyHashable>:
            try enterCollection(value, codingPathNode)
            defer { collectionDepth -= 1 }
            let elements = try set.enumerated().map {
                try encodeAny($1.base, codingPathNode: codingPathNode.appending(index: $0))
            }
            return .uid(builder.appendInstance(FoundationClass.set, [FoundationKey.objects: .array(elements)]))
        case let dictionary as [AnyHashable: Any]:
            try enterCollection(value, codingPathNode)
            defer { collectionDepth -= 1 }
            var keys: [ArchiveValue] = []
            var objects: [ArchiveValue] = []
            for (i, (key, object)) in dictionary.enumerated() {
                keys.append(try encodeAny(key.base, codingPathNode: codingPathNode.appending(index: i)))
                objects.append(try encodeAny(object, codingPathNode: codingPathNode.appending(index: i)))
            }
            return .uid(builder.appendInstance(
                FoundationClass.dictionary, [FoundationKey.keys: .array(keys), FoundationKey.objects: .array(objects)]))
        default:
            // Neither ArchiveCoding nor Encodable: archived by reflection (encode only), identity kept across
            // the whole archive by one reflector.
            do {
                return graph.encode(try reflector.graphValue(of: value))
            } catch {
                throw EncodingError.invalidValue(
                    value, .init(codingPath: codingPathNode.path, debugDescription: error.description, underlyingError: error))
            }
        }
    }

    /// How deeply ``encodeAny(_:codingPathNode:)`` is inside `[Any]`-like collections, limited as reflection is.
    @exclusivity(unchecked) private var collectionDepth = 0

    private func enterCollection(_ value: Any, _ path: CodingPathNode) throws {
        guard collectionDepth < 512 else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: path.path, debugDescription: "collections nest deeper than 512 levels"))
        }
        collectionDepth += 1
    }

    /// `Optional.some(x)` inside `Any` as `x`, and `Optional.none` as nil.
    private static func unwrapped(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.flatMap { unwrapped($0.value) }
    }

    /// Queues an ``ArchiveCoding`` object (after its replacement hook) and returns its UID.
    func encodeCoding(_ object: any ArchiveCoding, codingPathNode: CodingPathNode) throws -> ArchiveValue {
        if let uid = builder.uid(of: object) { return .uid(uid) }
        let replacement = object.replacementObject(for: KeyedArchiver(context: self, owner: .null))
        guard let substitute = replacement as? any ArchiveCoding else {
            return try encodeAny(replacement, codingPathNode: codingPathNode)
        }
        if substitute !== object, let uid = builder.uid(of: substitute) { return .uid(uid) }
        let uid = builder.reserve()
        builder.remember(object, as: uid)
        if substitute !== object { builder.remember(substitute, as: uid) }
        codingQueue.append((substitute, uid))
        return .uid(uid)
    }

    /// The UID of a class instance that a graph object stands for, queued for encoding if not yet archived.
    private func enqueue(counterpart object: AnyObject) -> ArchiveUID? {
        if let uid = builder.uid(of: object) { return uid }
        guard let value = object as? any Encodable else { return nil }
        let uid = builder.reserve()
        builder.remember(object, as: uid)
        pending.append((value, uid))
        return uid
    }

    /// Encodes queued objects (Codable class instances, ``ArchiveCoding`` objects, graph objects) until none is left.
    func drain() throws {
        // The encoder of the last instance, for the next one when nothing kept it: one allocation per drain, not
        // per object. Held here, not by the context, which it references.
        var spare: _ArchiveEncoder?
        while true {
            if !pending.isEmpty {
                // Taken apart (`popLast()` copied its optional); the path is the UID: a chain's would grow per link.
                let (value, uid) = pending.removeLast()
                _ = try encodeInstance(value, into: uid, codingPathNode: .object(uid.rawValue), spare: &spare)
            } else if let next = codingQueue.popLast() {
                let coder = KeyedArchiver(context: self, owner: next.uid)
                try next.object.encode(with: coder)
                let archiveClass = next.object.classForKeyedArchiver ?? archiveClass(for: Swift.type(of: next.object))
                do {
                    try coder.storage.finish()
                    let classUID = builder.classUID(archiveClass)
                    try builder.fillInstance(next.uid, classUID: classUID, taking: &coder.storage.fields)
                } catch {
                    throw EncodingError.equivalentKeys(error, in: next.object, at: [])
                }
            } else if !graph.isDone {
                graph.drain()
            } else {
                return
            }
        }
    }

    /// Points each conditional reference at its object if that object was archived; it stays `$null` otherwise.
    func resolveConditionals() {
        for conditional in conditionals {
            guard let uid = builder.uid(of: conditional.object) else { continue }
            if let owner = conditional.owner {
                // The field was written as `$null` when the object was encoded, so it is there to replace.
                _ = builder.setField(owner, conditional.key, to: .uid(uid))
            } else {
                conditional.storage?.fields[conditional.key] = .uid(uid)
            }
        }
        conditionals = []
    }

    /// Runs `value.encode(to:)` and stores what it wrote: an instance with fields, an instance with an
    /// `NS.objects` list, or, for single-value types, the value itself.
    /// `spare`, when given, is an encoder to reuse, and takes this one back if nothing else holds it.
    private func encodeInstance(
        _ value: any Encodable, into reserved: ArchiveUID?, codingPathNode: CodingPathNode,
        spare: inout _ArchiveEncoder?
    ) throws -> ArchiveValue {
        var encoder: _ArchiveEncoder
        if let reused = spare.take() {
            encoder = reused
            encoder.codingPathNode = codingPathNode
            encoder.storage = .none
        } else {
            encoder = _ArchiveEncoder(context: self, codingPathNode: codingPathNode)
        }
        defer { if isKnownUniquelyReferenced(&encoder) { spare = encoder } }
        if let model = try autoCodingModel(of: value, codingPathNode: codingPathNode) {
            try model.encodeWithHooks(value, to: encoder)
        } else {
            try value.encode(to: encoder)
        }
        let classUID = { self.classUID(for: Swift.type(of: value as Any)) }
        switch encoder.storage {
        case .none:
            let uid = reserved ?? builder.reserve()
            builder.fillInstance(uid, classUID: classUID(), [:])
            return .uid(uid)
        case .keyed(var storage):
            let uid = reserved ?? builder.reserve()
            do {
                try storage.finish()
                try builder.fillInstance(uid, classUID: classUID(), taking: &storage.fields)
            } catch {
                throw EncodingError.equivalentKeys(error, in: value, at: codingPathNode.path)
            }
            if !conditionalStorages.isEmpty,
                let waiting = conditionalStorages.removeValue(forKey: ObjectIdentifier(storage))
            {
                // Conditional fields written through `encode(to:)`: they now belong to this entry.
                for index in waiting { conditionals[index].owner = uid; conditionals[index].storage = nil }
            }
            encoder.storage = .none
            recycle(&storage)
            return .uid(uid)
        case .unkeyed(let storage):
            let uid = reserved ?? builder.reserve()
            do {
                builder.fillInstance(uid, classUID: classUID(), [FoundationKey.objects: try storage.finish()])
            } catch {
                throw EncodingError.equivalentKeys(error, in: value, at: codingPathNode.path)
            }
            return .uid(uid)
        case .single(let single):
            guard let uid = reserved else {
                if case .uid = single { return single }
                return .uid(builder.append(single))
            }
            if case .uid(let target) = single {
                builder.fill(uid, copying: target)
            } else {
                builder.fill(uid, with: single)
            }
            return .uid(uid)
        }
    }

    /// The fields of the last instance written, emptied, for the next one: an instance's fields are copied into
    /// the table when it is done, so one list (and its two arrays) serves every object instead of being
    /// allocated and freed per object. (The encoder is not kept the same way: it holds this context, and the
    /// cycle would keep both, and the whole table, alive after an encode that throws.)
    @exclusivity(unchecked) private var spareKeyedStorage: KeyedStorage?

    /// A keyed container's storage for an instance being encoded: the spare one when there is one.
    func takeKeyedStorage() -> KeyedStorage {
        guard let spare = spareKeyedStorage else { return KeyedStorage() }
        spareKeyedStorage = nil
        return spare
    }

    /// Keeps `storage` as the spare when nothing else holds it (an `encode(to:)` that kept its encoder or
    /// container keeps the storage too, and a later write there must not land in another object's fields).
    private func recycle(_ storage: inout KeyedStorage) {
        guard isKnownUniquelyReferenced(&storage) else { return }
        storage.fields.removeAll()
        spareKeyedStorage = storage
    }

    /// The types of the instances encoded so far, each with its ``AutoCodingObject`` metatype or nil (a plain
    /// `Codable` type): a cast to the protocol costs a conformance lookup (about 800 instructions, through the
    /// runtime's cache), twice per object before the answer was kept.
    @exclusivity(unchecked)
    private var instanceTypes: [(type: ObjectIdentifier, model: (any AutoCodingObject.Type)?)] = []

    /// `value`'s type as an ``AutoCodingObject`` type, or nil; remembered for the first 16 types met (an
    /// archive has few classes; the rest are looked up each time). A model type is checked
    /// (``checkStoredPropertiesCovered(_:codingPathNode:)``) when it is looked up, so once per type remembered.
    private func autoCodingModel(of value: any Encodable, codingPathNode: CodingPathNode) throws
        -> (any AutoCodingObject.Type)?
    {
        let type = Swift.type(of: value)
        let id = ObjectIdentifier(type)
        for known in instanceTypes where known.type == id { return known.model }
        let model = type as? any AutoCodingObject.Type
        if model != nil, let object = value as? any AutoCodingObject {
            try checkStoredPropertiesCovered(object, codingPathNode: codingPathNode)
        }
        if instanceTypes.count < 16 { instanceTypes.append((id, model)) }
        return model
    }

    /// Refuses an object of a subclass that has stored properties of its own but no `@AutoCoding` (it inherits
    /// its superclass's table, so they would be silently left out), naming the property.
    private func checkStoredPropertiesCovered(_ object: any AutoCodingObject, codingPathNode: CodingPathNode) throws {
        var mirror: Mirror? = Mirror(reflecting: object)
        var current: AnyClass? = Swift.type(of: object)
        while let level = mirror, let cls = current, let model = cls as? any AutoCodingObject.Type,
            let superModel = _getSuperclass(cls) as? any AutoCodingObject.Type
        {
            if model.codableProperties.map(\.name) == superModel.codableProperties.map(\.name),
                let property = level.children.first(where: { $0.label != nil })?.label
            {
                throw EncodingError.invalidValue(object, .init(
                    codingPath: codingPathNode.path,
                    debugDescription: "\(cls).\(property) would not be archived: \(cls) has stored properties of its own "
                        + "but no @AutoCoding; add @AutoCoding to \(cls)"))
            }
            mirror = level.superclassMirror
            current = _getSuperclass(cls)
        }
    }

    private func nsValue(_ special: Int, _ key: String, _ text: String) -> ArchiveUID {
        builder.appendInstance(FoundationClass.value, [
            NSValueCoding.special: .integer(Int64(special)), key: .uid(builder.append(.string(text))),
        ])
    }

    /// An `NSAttributedString`: the text, one attribute dictionary per run, and the run table.
    private func encodeAttributedString(_ text: ArchiveAttributedString, codingPathNode: CodingPathNode) throws -> ArchiveValue {
        var dictionaries: [ArchiveValue] = []
        for run in text.runs {
            var keys: [ArchiveValue] = []
            var objects: [ArchiveValue] = []
            for (key, value) in run.attributes.sorted(by: { $0.key < $1.key }) {
                keys.append(.uid(builder.append(.string(key))))
                objects.append(try encodeAny(value, codingPathNode: codingPathNode))
            }
            dictionaries.append(.uid(builder.appendInstance(
                FoundationClass.dictionary, [FoundationKey.keys: .array(keys), FoundationKey.objects: .array(objects)])))
        }
        let info = AttributeInfo.encode(text.runs.enumerated().map { ($1.range.count, $0) })
        let archiveClass = text.isMutable
            ? ArchiveClass(name: "NSMutableAttributedString", chain: ["NSMutableAttributedString", "NSAttributedString", "NSObject"])
            : ArchiveClass(name: "NSAttributedString", chain: ["NSAttributedString", "NSObject"])
        return .uid(builder.appendInstance(archiveClass, [
            "NSString": .uid(builder.append(.string(text.string))),
            "NSAttributes": .uid(builder.appendInstance(FoundationClass.array, [FoundationKey.objects: .array(dictionaries)])),
            "NSAttributeInfo": .uid(builder.append(.data(info))),
        ]))
    }

    /// The plist scalar of a value Foundation archives as a plain `$objects` entry (NSString, NSNumber, NSData).
    /// Types are compared by identity, which costs a pointer comparison where a cast costs a runtime call.
    static func foundationScalar<T>(_ value: T) -> ArchiveValue? {
        func as_<U>(_: U.Type) -> U { unsafeBitCast(value, to: U.self) }  // Only after `T.self == U.self`.
        if T.self == String.self { return .string(as_(String.self)) }
        if T.self == Int.self { return .integer(Int64(as_(Int.self))) }
        if T.self == Double.self { return .real(as_(Double.self)) }
        if T.self == Bool.self { return .bool(as_(Bool.self)) }
        if T.self == Int64.self { return .integer(as_(Int64.self)) }
        if T.self == Int32.self { return .integer(Int64(as_(Int32.self))) }
        if T.self == Int16.self { return .integer(Int64(as_(Int16.self))) }
        if T.self == Int8.self { return .integer(Int64(as_(Int8.self))) }
        if T.self == UInt.self { return ArchiveValue.integer(exactly: as_(UInt.self)) }
        if T.self == UInt64.self { return ArchiveValue.integer(exactly: as_(UInt64.self)) }
        if T.self == UInt32.self { return .integer(Int64(as_(UInt32.self))) }
        if T.self == UInt16.self { return .integer(Int64(as_(UInt16.self))) }
        if T.self == UInt8.self { return .integer(Int64(as_(UInt8.self))) }
        if T.self == Float.self { return .real(FloatBits.double(as_(Float.self))) }
        if T.self == Data.self { return .data([UInt8](as_(Data.self))) }
        return nil
    }

    /// An `NSDate`: its `NS.time`.
    func encodeDate(_ date: Date) -> ArchiveUID {
        let uid = builder.reserve()
        let classUID = dateClassUID ?? builder.classUID(FoundationClass.date)
        dateClassUID = classUID
        let time = ArchiveValue.real(date.timeIntervalSinceReferenceDate)
        builder.fillInstance(uid, classUID: classUID, key: FoundationKey.time, value: time)
        return uid
    }

    /// Instances of Foundation classes for Swift types that map to them.
    private func encodeFoundationObject<T: Encodable>(_ value: T, codingPathNode: CodingPathNode) throws -> ArchiveUID {
        // The common one, without a dynamic cast.
        if T.self == Date.self { return encodeDate(unsafeBitCast(value, to: Date.self)) }
        switch value {
        case let date as Date:
            return encodeDate(date)
        case let url as URL:
            let base: ArchiveValue = try url.baseURL.map { try encodeReference($0, codingPathNode: codingPathNode) } ?? .uid(.null)
            let relative = builder.append(.string(url.baseURL == nil ? url.absoluteString : url.relativeString))
            return builder.appendInstance(FoundationClass.url, [FoundationKey.base: base, FoundationKey.relative: .uid(relative)])
        case let decimal as Decimal:
            return builder.appendInstance(DecimalCoding.archiveClass, DecimalCoding.fields(of: decimal))
        case let uuid as UUID:
            let bytes = withUnsafeBytes(of: uuid.uuid) { [UInt8]($0) }
            return builder.appendInstance(FoundationClass.uuid, [FoundationKey.uuidBytes: .data(bytes)])
        case let range as ArchiveRange:
            return builder.appendInstance(FoundationClass.value, [
                NSValueCoding.special: .integer(Int64(NSValueCoding.range)),
                "NS.rangeval.location": .uid(builder.append(.integer(Int64(range.location)))),
                "NS.rangeval.length": .uid(builder.append(.integer(Int64(range.length)))),
            ])
        case let point as ArchivePoint:
            return nsValue(NSValueCoding.point, "NS.pointval", NSValueCoding.format(point.x, point.y))
        case let size as ArchiveSize:
            return nsValue(NSValueCoding.size, "NS.sizeval", NSValueCoding.format(size.width, size.height))
        case let rect as ArchiveRect:
            let text = "{\(NSValueCoding.format(rect.origin.x, rect.origin.y)), \(NSValueCoding.format(rect.size.width, rect.size.height))}"
            return nsValue(NSValueCoding.rect, "NS.rectval", text)
        case let insets as ArchiveEdgeInsets:
            return builder.appendInstance(FoundationClass.value, [
                NSValueCoding.special: .integer(Int64(NSValueCoding.edgeInsets)),
                "NS.edgeval.top": .real(insets.top), "NS.edgeval.left": .real(insets.left),
                "NS.edgeval.bottom": .real(insets.bottom), "NS.edgeval.right": .real(insets.right),
            ])
        default:
            preconditionFailure("\(T.self) was classified as a Foundation object")
        }
    }
}
