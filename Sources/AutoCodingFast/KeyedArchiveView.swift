import OrderedCollections

/// A validated keyed archive that keeps its bytes and decodes objects only when asked.
///
/// Opening it runs the native validator once (trailer, offsets, references, nesting, strings) plus the
/// keyed-archive checks (`$archiver`, `$version`, `$top`, every UID below the object count, every instance's
/// `$class` naming a class descriptor). Nothing is decoded up front: the table holds offsets and type markers,
/// and strings or data are created when a caller reads them. This is the fast path the object layer decodes
/// from; ``keyedArchive()`` materializes the whole table when a value form is wanted.
public struct KeyedArchiveView: Sendable {
    package let storage: ArchiveBytes
    package let index: BPlistIndex
    /// The archive's bytes; valid as long as this view (or a copy of it) exists.
    package var raw: UnsafeRawBufferPointer { storage.raw }
    /// The bplist object number of the `$objects` array.
    let objectsArray: Int
    /// The bplist object number of the `$top` dictionary.
    let topDictionary: Int

    /// The `$archiver` name.
    public let archiver: String
    /// The `$version`.
    public let version: Int
    /// The number of entries in `$objects`.
    public let objectCount: Int
    private let expandedNodeLimit: Int
    /// The options it was opened with.
    let options: ArchiveReadingOptions

    /// Opens a binary or XML keyed archive from untrusted bytes. XML is parsed by libplist and rewritten by
    /// the native writer, so both formats are read through the same validated table.
    public init(bytes: [UInt8], options: ArchiveReadingOptions = .init()) throws(ArchiveError) {
        try self.init(storage: ArchiveBytes.binaryPlist(from: bytes, options: options), options: options)
    }

    /// Opens the keyed archive at `path` without copying it: a binary archive is memory-mapped and validated
    /// whole, once, as ``init(bytes:options:)`` validates bytes; XML is read and converted. For reading a few
    /// objects of a large file without the whole-file pass, use ``LazyKeyedArchive``. The mapping lives as long
    /// as the view and its copies; see ``LazyKeyedArchive`` for what happens if the file changes underneath.
    public init(contentsOf path: String, options: ArchiveReadingOptions = .init()) throws(ArchiveError) {
        let storage = try ArchiveBytes.binaryPlist(contentsOf: path, map: { _ in true }, options: options)
        try self.init(storage: storage, options: options)
    }

    /// Validates `storage` whole (shared with ``ArchiveRecordTable/validatedView()``).
    init(storage: ArchiveBytes, options: ArchiveReadingOptions) throws(ArchiveError) {
        self.storage = storage
        self.options = options
        let raw = storage.raw
        expandedNodeLimit = options.expandedNodeLimit(forInputBytes: raw.count)
        let index = try BPlistIndex(validating: raw, options: options)
        let header = try Header(index: index, bytes: raw, options: options)
        self.index = index
        objectsArray = header.objects
        topDictionary = header.top
        archiver = header.archiver
        version = header.version
        objectCount = Int(index.records[objectsArray].count)
        try checkObjects(raw)
    }

    /// The `$top` keys in file order.
    public var topKeys: [String] {
        let n = Int(index.records[topDictionary].count)
        return (0..<n).map { index.makeString(index.records[index.ref(topDictionary, $0, in: raw)], in: raw) }
    }

    /// The `$top` entry for `key`: usually a UID, sometimes an inline scalar.
    public func top(_ key: String) -> ArchiveValue? {
        guard let object = entry(of: topDictionary, key: key, in: raw) else { return nil }
        return try? materialize(object, in: raw)
    }

    /// The root object's UID: `$top["root"]`, else the only `$top` entry, when it is a UID.
    public var rootUID: ArchiveUID? {
        if let root = top(ArchiveKey.root) { return root.uidValue }
        let keys = topKeys
        return keys.count == 1 ? top(keys[0])?.uidValue : nil
    }

    /// The `$objects` entry at `uid` as a value, or nil when the UID is out of range.
    public func object(_ uid: ArchiveUID) -> ArchiveValue? {
        guard uid.index < objectCount else { return nil }
        return try? materialize(objectNumber(uid, in: raw), in: raw)
    }

    /// The class of the instance at `uid`, or nil when the entry is not a class instance.
    public func archiveClass(of uid: ArchiveUID) -> ArchiveClass? {
        guard uid.index < objectCount else { return nil }
        let object = objectNumber(uid, in: raw)
        guard index.records[object].kind == .dictionary,
            let classRef = entry(of: object, key: ArchiveKey.class, in: raw),
            index.records[classRef].kind == .uid
        else { return nil }
        let descriptor = objectNumber(ArchiveUID(index.uid(index.records[classRef], in: raw)), in: raw)
        return (try? materialize(descriptor, in: raw)).flatMap(ArchiveClass.init(descriptor:))
    }

    /// The whole archive as values. Throws ``ArchiveError/Code-swift.struct/limitExceeded`` when shared
    /// references would expand past ``ArchiveReadingOptions/maxExpandedNodeCount`` nodes.
    public func keyedArchive() throws(ArchiveError) -> KeyedArchive {
        try index.checkExpandedSize(in: raw, limit: expandedNodeLimit, forLibplist: false)
        var cache = ValueCache(dense: index.records.count)
        guard case .dictionary(let top) = try index.value(at: topDictionary, in: raw, cache: &cache),
            case .array(let objects) = try index.value(at: objectsArray, in: raw, cache: &cache)
        else { throw ArchiveError.unexpectedType("$top or $objects changed type") }
        return KeyedArchive(archiver: archiver, version: version, top: top, objects: objects)
    }

    // MARK: Table access for the object layer

    /// The bplist object number of `$objects[uid]`. The UID must be in range.
    @inline(__always)
    package func objectNumber(_ uid: ArchiveUID, in raw: UnsafeRawBufferPointer) -> Int {
        index.ref(objectsArray, uid.index, in: raw)
    }

    /// The bplist object number of the `$top` dictionary.
    package var topDictionaryObject: Int { topDictionary }

    /// The bplist object number of the `$top` entry named `key`.
    package func topEntry(_ key: String, in raw: UnsafeRawBufferPointer) -> Int? {
        entry(of: topDictionary, key: key, in: raw)
    }

    /// The bplist object number of the value stored under `key` in dictionary object `object`, or nil.
    package func entry(of object: Int, key: String, in raw: UnsafeRawBufferPointer) -> Int? {
        var slot = 0
        return entry(of: object, key: key, startingAt: &slot, in: raw)
    }

    /// The same lookup, starting at key slot `slot` and wrapping around; on a hit, `slot` becomes the slot found.
    /// Decoders read an object's keys in the order they were written, often asking for one key twice (`contains`,
    /// then `decode`), so starting at the previous hit finds most keys at the first or second key compared.
    package func entry(of object: Int, key: String, startingAt slot: inout Int, in raw: UnsafeRawBufferPointer) -> Int? {
        let record = index.records[object]
        guard record.kind == .dictionary else { return nil }
        let n = Int(record.count)
        guard n > 0 else { return nil }
        let start = slot < n ? slot : 0
        var key = key
        let found: Int? = key.withUTF8 { wanted in
            var i = start
            repeat {
                let keyRecord = index.records[index.ref(object, i, in: raw)]
                if keyRecord.kind == .asciiString {
                    if Int(keyRecord.count) == wanted.count, BPlistBytes.equal(raw, at: keyRecord.offset, wanted) { return i }
                } else if index.makeString(keyRecord, in: raw).utf8.elementsEqual(wanted) {
                    return i
                }
                i = i + 1 == n ? 0 : i + 1
            } while i != start
            return nil
        }
        guard let found else { return nil }
        slot = found
        return index.ref(object, n + found, in: raw)
    }

    /// The value tree of one bplist object.
    package func materialize(_ object: Int, in raw: UnsafeRawBufferPointer) throws(ArchiveError) -> ArchiveValue {
        var cache = ValueCache()
        return try index.value(at: object, in: raw, cache: &cache)
    }

    // MARK: Validation

    /// The top-level dictionary's four entries, checked.
    private struct Header {
        var objects: Int
        var top: Int
        var archiver: String
        var version: Int

        init(index: BPlistIndex, bytes raw: UnsafeRawBufferPointer, options: ArchiveReadingOptions)
            throws(ArchiveError)
        {
            let root = index.topObject
            guard index.records[root].kind == .dictionary else {
                throw ArchiveError(.notKeyedArchive, "the property list's root is not a dictionary")
            }
            let n = Int(index.records[root].count)
            var found: [String: Int] = [:]
            for i in 0..<n {
                let key = index.makeString(index.records[index.ref(root, i, in: raw)], in: raw)
                if key.hasPrefix("$") { found[key] = index.ref(root, n + i, in: raw) }
            }
            guard found[ArchiveKey.objects] != nil || found[ArchiveKey.archiver] != nil || found[ArchiveKey.top] != nil
            else { throw ArchiveError(.notKeyedArchive, "the root dictionary has none of $archiver, $objects and $top") }

            func require(_ key: String, _ kinds: [BPlistIndex.Kind], _ expected: String) throws(ArchiveError) -> Int {
                guard let object = found[key] else { throw ArchiveError.missingKey(key, in: "the archive") }
                guard kinds.contains(index.records[object].kind) else {
                    throw ArchiveError.unexpectedType("\(key) is a \(index.records[object].kind), not a \(expected)")
                }
                return object
            }
            let archiverObject = try require(ArchiveKey.archiver, [.asciiString, .utf16String], "string")
            let versionObject = try require(ArchiveKey.version, [.integer], "integer")
            objects = try require(ArchiveKey.objects, [.array], "array")
            top = try require(ArchiveKey.top, [.dictionary], "dictionary")
            archiver = index.makeString(index.records[archiverObject], in: raw)
            guard case .integer(let v) = index.integer(index.records[versionObject], in: raw) else {
                throw ArchiveError(.unsupportedVersion, "$version is above Int64.max")
            }
            if options.requiresKnownVersion && v != Int64(ArchiveKey.formatVersion) {
                throw ArchiveError(.unsupportedVersion, "$version is \(v), not \(ArchiveKey.formatVersion)")
            }
            version = Int(v)
        }
    }

    /// Every UID in range, `$top` entries UIDs or scalars, and every instance's `$class` a class descriptor.
    private func checkObjects(_ raw: UnsafeRawBufferPointer) throws(ArchiveError) {
        for (number, record) in index.records.enumerated() where record.kind == .uid {
            let uid = index.uid(record, in: raw)
            guard uid < objectCount else {
                throw ArchiveError(.invalidUID, "UID \(uid) (bplist object \(number)) ≥ object count \(objectCount)")
            }
        }
        let topCount = Int(index.records[topDictionary].count)
        for i in 0..<topCount where index.records[index.ref(topDictionary, topCount + i, in: raw)].kind.isContainer {
            let key = index.makeString(index.records[index.ref(topDictionary, i, in: raw)], in: raw)
            throw ArchiveError.unexpectedType("$top[\"\(key)\"] is a container, not a UID or scalar")
        }
        var checkedClasses = Set<Int>()
        for uid in 0..<objectCount {
            let object = index.ref(objectsArray, uid, in: raw)
            guard index.records[object].kind == .dictionary else { continue }
            if let name = entry(of: object, key: ArchiveKey.className, in: raw) {
                // Every class descriptor, referenced or not (as KeyedArchive.validate() checks them).
                let kind = index.records[name].kind
                guard kind == .asciiString || kind == .utf16String else {
                    throw ArchiveError.unexpectedType("object \(uid): $classname is a \(kind), not a string")
                }
                try checkClassChain(of: object, uid: uid, raw)
                continue
            }
            guard let classRef = entry(of: object, key: ArchiveKey.class, in: raw) else {
                throw ArchiveError.missingKey(ArchiveKey.class, in: "object \(uid) (UID \(uid))")
            }
            guard index.records[classRef].kind == .uid else {
                throw ArchiveError.unexpectedType("object \(uid) (UID \(uid)): $class is not a UID")
            }
            let classUID = Int(index.uid(index.records[classRef], in: raw))
            guard !checkedClasses.contains(classUID) else { continue }
            let descriptor = index.ref(objectsArray, classUID, in: raw)
            guard let name = entry(of: descriptor, key: ArchiveKey.className, in: raw),
                [.asciiString, .utf16String].contains(index.records[name].kind)
            else {
                throw ArchiveError(
                    .unexpectedType,
                    "object \(uid) (UID \(uid)): $class UID \(classUID) is not a class descriptor with a $classname")
            }
            // Its $classes was checked with the descriptor's own entry.
            checkedClasses.insert(classUID)
        }
    }

    /// A class descriptor's `$classes`, when present, is an array of strings.
    private func checkClassChain(of descriptor: Int, uid: Int, _ raw: UnsafeRawBufferPointer) throws(ArchiveError) {
        guard let chain = entry(of: descriptor, key: ArchiveKey.classes, in: raw) else { return }
        let record = index.records[chain]
        guard record.kind == .array,
            (0..<Int(record.count)).allSatisfy({
                [.asciiString, .utf16String].contains(index.records[index.ref(chain, $0, in: raw)].kind)
            })
        else { throw ArchiveError.unexpectedType("object \(uid): $classes is not an array of strings") }
    }
}
