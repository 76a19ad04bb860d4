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
        let header = try KeyedArchiveHeader(reading: IndexRecords(index: index, raw: raw), options: options)
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
        return try? materialize(object)
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
        return try? materialize(objectNumber(uid, in: raw))
    }

    /// The class of the instance at `uid`, or nil when the entry is not a class instance.
    public func archiveClass(of uid: ArchiveUID) -> ArchiveClass? {
        guard uid.index < objectCount else { return nil }
        let object = objectNumber(uid, in: raw)
        guard index.records[object].kind == .dictionary,
            let classRef = entry(of: object, key: ArchiveKey.class, in: raw),
            index.records[classRef].kind == .uid
        else { return nil }
        let descriptor = objectNumber(ArchiveUID(index.uid(index.records[classRef])), in: raw)
        return (try? materialize(descriptor)).flatMap(ArchiveClass.init(descriptor:))
    }

    /// The whole archive as values. Throws ``ArchiveError/Code-swift.struct/limitExceeded`` when shared
    /// references would expand past ``ArchiveReadingOptions/maxExpandedNodeCount`` nodes.
    public func keyedArchive() throws(ArchiveError) -> KeyedArchive {
        try index.checkExpandedSize(in: raw, limit: expandedNodeLimit, forLibplist: false)
        var walk = ValueWalk.proven(cache: ValueCache(dense: index.records.count))
        guard case .dictionary(let top) = try records.value(at: topDictionary, walk: &walk),
            case .array(let objects) = try records.value(at: objectsArray, walk: &walk)
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
        IndexRecords(index: index, raw: raw).lookUp(key, in: object)
    }

    /// The same lookup, starting at key slot `slot` and wrapping around; on a hit, `slot` becomes the slot found
    /// (``RecordSource/lookUp(_:in:startingAt:)``, the module's one keyed-entry lookup).
    package func entry(of object: Int, key: String, startingAt slot: inout Int, in raw: UnsafeRawBufferPointer) -> Int? {
        IndexRecords(index: index, raw: raw).lookUp(key, in: object, startingAt: &slot)
    }

    /// The value tree of one bplist object.
    package func materialize(_ object: Int) throws(ArchiveError) -> ArchiveValue {
        var walk = ValueWalk.proven(cache: ValueCache())
        return try IndexRecords(index: index, raw: raw).value(at: object, walk: &walk)
    }

    /// The validated records, as the module's rules read them.
    var records: IndexRecords { IndexRecords(index: index, raw: raw) }

    // MARK: Validation

    /// Every UID in range, `$top` entries UIDs or scalars, and every instance's `$class` a class descriptor.
    private func checkObjects(_ raw: UnsafeRawBufferPointer) throws(ArchiveError) {
        for (number, record) in index.records.buffer.enumerated() where record.kind == .uid {
            let uid = index.uid(record)
            guard uid < objectCount else { throw ArchiveError.uidBeyondObjects(uid, object: number, objectCount: objectCount) }
        }
        let topCount = Int(index.records[topDictionary].count)
        for i in 0..<topCount where index.records[index.ref(topDictionary, topCount + i, in: raw)].kind.isContainer {
            let key = index.makeString(index.records[index.ref(topDictionary, i, in: raw)], in: raw)
            throw KeyedArchiveHeader<Int>.topEntryIsAContainer(key)
        }
        // The `$class` rule on every entry, descriptors no instance names included (as KeyedArchive.validate()
        // checks them); each descriptor an instance names once.
        let records = self.records
        // One bit per entry: a set hashed a UID per instance (4 % of opening W1).
        var checkedClasses = [UInt64](repeating: 0, count: (objectCount + 63) / 64)
        for uid in 0..<objectCount {
            let object = index.ref(objectsArray, uid, in: raw)
            guard let classUID = try records.checkEntry(object, uid: uid) else { continue }
            let (word, bit) = (classUID / 64, UInt64(1) << (classUID % 64))
            guard checkedClasses[word] & bit == 0 else { continue }
            checkedClasses[word] |= bit
            try records.checkDescriptor(index.ref(objectsArray, classUID, in: raw), uid: classUID, namedBy: uid)
        }
    }
}
