#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The record table of a keyed archive: one 12-byte slot per bplist object, each validated the first time a
/// reader reaches it. The typed decoders and ``LazyKeyedArchive`` read through it.
///
/// Two ways to fill it. ``init(lazy:options:)`` parses only the trailer and the four top-level entries, then
/// validates each object on first touch with the checks (and error codes) of ``KeyedArchiveView``'s linear
/// pass: marker, payload extent, string encoding, references in range, string keys, UIDs below the object
/// count, and the `$class` rule of an `$objects` entry (`RecordSource+Classes.swift`). A container's references
/// are checked when it is first touched, except `$objects`' own, each checked when its entry is first reached,
/// so that opening reads none of the entry table. A decode that fails after a few hundred objects of a
/// 2,000,000-object file has then paid for a few hundred objects, not for the file, and damage in objects the
/// reader never reaches is never reported. ``init(view:)`` (the eager fill) copies the records of a view that
/// was validated whole, so decoding an opened view rechecks nothing. The rules themselves are written once for
/// this table and the whole-file index (``RecordSource``; docs/RECORD-TABLE.md).
///
/// What first touch does not prove, the readers must not assume: containers are not proven acyclic or
/// shallow (the whole-file pass proves that), so a reader that follows references into plain containers
/// bounds its own depth (the typed decoder's ``ArchiveReadingOptions/decodingDepthLimit``); a reader that
/// needs whole values uses ``validatedView()``, which runs the whole-file pass once.
///
/// Slots are zero-filled memory (an anonymous mapping when large), fresh pages from the kernel, so the slots
/// of objects never touched cost neither time nor memory. A slot whose offset is 0 is not validated yet (a
/// validated payload starts at byte 9 or later).
///
/// Not thread-safe: slots fill in as objects are read. One table per decode. (Its variables skip the runtime's
/// exclusivity checks, which cost more than the reads they guard on the decoder's hot path; they are set only
/// while the table is opened, and the counter only by first-touch validation.)
///
/// `@usableFromInline`, as ``BPlistIndex`` and its record: the `@inlinable` readers of a `package` type are inlined
/// into another module (the decoders in AutoCodingCore) only when the type itself is (Swift 6.3 compiles them as
/// calls otherwise, 4 % of a typed decode), and then every member they use must be `@usableFromInline` too.
@usableFromInline package final class ArchiveRecordTable {
    /// The flag bit of a slot whose object passed the `$objects` entry check (an instance names a class).
    @usableFromInline static let entryChecked: UInt8 = 1
    /// The flag bit of a slot whose object passed the class-descriptor check.
    static let descriptorChecked: UInt8 = 2
    /// Whether first touch refuses a dictionary holding a key twice (``LazyKeyedArchive`` does, as
    /// ``KeyedArchive`` does; the typed decoders read the first).
    let rejectsDuplicateKeys: Bool

    package let storage: ArchiveBytes
    /// The archive's bytes; valid as long as this table exists.
    @usableFromInline package let raw: UnsafeRawBufferPointer
    /// The readers of ``BPlistIndex`` that take a record (strings, integers, reals, UIDs).
    @usableFromInline package let reader: BPlistIndex
    let trailer: BPlistTrailer
    @usableFromInline let slots: UnsafeMutablePointer<BPlistIndex.Record>
    /// The number of bplist objects (slots).
    @usableFromInline package let count: Int
    @usableFromInline let refSize: Int
    /// UIDs must be below this: 2³² until the header is read, then the `$objects` count.
    @exclusivity(unchecked) var uidLimit = Int(UInt32.max) + 1
    let options: ArchiveReadingOptions
    /// The size of the slots' allocation: mapped from ``AnonymousMemory/threshold`` on, `calloc`ed below.
    private let slotBytes: Int
    /// The whole-file view: given, or built by ``validatedView()`` when a reader needs it.
    @exclusivity(unchecked) private var view: KeyedArchiveView?

    /// The number of bplist objects validated so far (all of them for a table made from a view).
    @exclusivity(unchecked) package internal(set) var validatedCount = 0
    /// The key nodes (``BPlistIndex/Record/keyNodes``) the duplicate-key check may still hash, over every
    /// dictionary it checks: the input's expanded-node budget, of which a whole-file reader's value tree
    /// spends at least as much on the same keys.
    @exclusivity(unchecked) var keyNodesLeft = 0
    /// The bplist object number of the `$objects` array (-1 until the header names it).
    @exclusivity(unchecked) @usableFromInline private(set) var objectsArray = -1
    /// The bplist object number of the `$top` dictionary.
    @exclusivity(unchecked) package private(set) var topDictionary = 0
    /// The number of entries in `$objects`.
    @exclusivity(unchecked) @usableFromInline package private(set) var objectCount = 0
    /// The `$archiver` name.
    @exclusivity(unchecked) package private(set) var archiver = ""
    /// The `$version`.
    @exclusivity(unchecked) package private(set) var version = 0

    /// Opens a binary or XML keyed archive from untrusted bytes, checking only the trailer and the top-level
    /// entries; everything else is checked as it is reached. (XML is converted through the whole-file
    /// reader: it has no offsets to reach objects by.) For the typed decoders, which read most objects: the
    /// slots are backed with huge pages (``HugePages``).
    package convenience init(lazy bytes: [UInt8], options: ArchiveReadingOptions) throws(ArchiveError) {
        try self.init(
            lazy: ArchiveBytes.binaryPlist(from: bytes, options: options), options: options, readsMostObjects: true)
    }

    /// The same over bytes already in binary form (a file mapping); `rejectsDuplicateKeys` as
    /// ``rejectsDuplicateKeys`` says; `readsMostObjects` for a reader that will touch most slots (their memory
    /// is then advised for huge pages, which a sparse reader would pay for 2 MiB at a time).
    package convenience init(
        lazy storage: ArchiveBytes, options: ArchiveReadingOptions, rejectsDuplicateKeys: Bool = false,
        readsMostObjects: Bool = false
    ) throws(ArchiveError) {
        let trailer = try BPlistTrailer(parsing: storage.raw, options: options)
        try self.init(
            storage: storage, trailer: trailer, options: options, rejectsDuplicateKeys: rejectsDuplicateKeys,
            readsMostObjects: readsMostObjects)
        // `$objects` is known before the header rule validates it, so that its first touch skips the check of
        // every reference (see validate(_:)): opening reads none of a large archive's entry table.
        if try record(trailer.topObject).kind == .dictionary, let objects = entry(of: trailer.topObject, key: ArchiveKey.objects) {
            objectsArray = objects
        }
        let presumed = objectsArray
        let header = try KeyedArchiveHeader(reading: self, options: options)
        if presumed >= 0, presumed != header.objects, slots[presumed].kind == .array {
            // A root with `$objects` twice (the header rule takes the last): the first was an ordinary array.
            try checkReferences(of: presumed, slots[presumed], Int(slots[presumed].count))
        }
        objectsArray = header.objects
        topDictionary = header.top
        archiver = header.archiver
        version = header.version
        objectCount = Int(slots[header.objects].count)
        uidLimit = objectCount
    }

    /// A table holding the records of a view validated whole: every slot is filled and checked. Throws only when
    /// the slots cannot be allocated (the view proved everything else).
    package convenience init(view: KeyedArchiveView) throws(ArchiveError) {
        try self.init(
            storage: view.storage, trailer: view.index.trailer, options: view.options, rejectsDuplicateKeys: false,
            readsMostObjects: true)
        for (object, record) in view.index.records.buffer.enumerated() {
            var record = record
            record.flags |= Self.entryChecked | Self.descriptorChecked  // beside the view's `$class` slot
            slots[object] = record
        }
        validatedCount = count
        self.view = view
        objectsArray = view.objectsArray
        topDictionary = view.topDictionary
        objectCount = view.objectCount
        archiver = view.archiver
        version = view.version
        uidLimit = objectCount
    }

    private init(
        storage: ArchiveBytes, trailer: BPlistTrailer, options: ArchiveReadingOptions, rejectsDuplicateKeys: Bool,
        readsMostObjects: Bool
    ) throws(ArchiveError) {
        // count * 12 cannot overflow: the trailer bounded count by maxObjectCount and by the file's size.
        let byteCount = max(trailer.objectCount, 1) * MemoryLayout<BPlistIndex.Record>.stride
        // Large tables are mapped directly: the kernel's zero pages cost nothing until written.
        let memory: UnsafeMutableRawPointer?
        if byteCount >= AnonymousMemory.threshold {
            memory = AnonymousMemory.map(byteCount)
            if let memory, readsMostObjects { HugePages.adviseMapping(memory, byteCount: byteCount) }
        } else {
            memory = calloc(byteCount, 1)
        }
        guard let memory else { throw ArchiveError.recordTableUnavailable(objects: trailer.objectCount) }
        slotBytes = byteCount
        self.storage = storage
        raw = storage.raw
        self.trailer = trailer
        reader = BPlistIndex(recordReaderFor: trailer)
        slots = memory.bindMemory(to: BPlistIndex.Record.self, capacity: byteCount / MemoryLayout<BPlistIndex.Record>.stride)
        count = trailer.objectCount
        refSize = trailer.objectRefSize
        self.options = options
        self.rejectsDuplicateKeys = rejectsDuplicateKeys
        keyNodesLeft = options.expandedNodeLimit(forInputBytes: raw.count)
    }

    deinit {
        if slotBytes >= AnonymousMemory.threshold { AnonymousMemory.unmap(slots, slotBytes) } else { free(slots) }
    }

    // MARK: Reading (the decoder's hot path)

    /// The validated record of bplist object `object`, validating it on first touch.
    @inlinable @inline(__always)
    package func record(_ object: Int) throws(ArchiveError) -> BPlistIndex.Record {
        if UInt(bitPattern: object) < UInt(bitPattern: count) {
            let record = slots[object]
            if record.offset != 0 { return record }
        }
        return try validate(object)
    }

    /// The `$objects` UID that bplist object `object` holds, or nil when it holds anything else (validated then,
    /// as ``record(_:)`` validates it), for a reader following a field or an element. A UID not validated yet is
    /// read in place with the checks of its first touch, and its slot is left empty: writers store one UID object
    /// per reference, so its slot would be written once and never read again.
    @inlinable @inline(__always)
    package func uid(in object: Int) throws(ArchiveError) -> UInt32? {
        if UInt(bitPattern: object) < UInt(bitPattern: count) {
            let record = slots[object]
            if record.offset != 0 { return record.kind == .uid ? reader.uid(record) : nil }
        }
        return try firstUID(in: object)
    }

    /// The record of an object a reader has already validated (a node it resolved, a key of a validated
    /// dictionary). An object not validated reads as an empty record, which every reader treats as holding
    /// nothing, so a wrong caller gets a wrong answer, never an out-of-bounds read.
    @inlinable @inline(__always)
    package func validated(_ object: Int) -> BPlistIndex.Record {
        UInt(bitPattern: object) < UInt(bitPattern: count) ? slots[object] : .none
    }

    /// The object number of element `i` of validated array `object`, or of key `i` (value `count + i`) of a
    /// validated dictionary: checked in range when the container was validated.
    @inlinable @inline(__always)
    package func ref(_ object: Int, _ i: Int) -> Int {
        BPlistBytes.reference(raw, at: validated(object).offset, slot: i, width: refSize)
    }

    /// The bplist object number of `$objects[uid]` for a UID read from a validated UID record, after the
    /// `$objects` entry check (an instance's `$class` names a class descriptor) on first touch.
    @inlinable @inline(__always)
    package func objectNumber(_ uid: UInt32) throws(ArchiveError) -> Int {
        if Int(uid) < objectCount {
            let object = ref(objectsArray, Int(uid))
            if validated(object).flags & Self.entryChecked != 0 { return object }
        }
        return try checkEntry(uid)
    }

    /// The bplist object number of the value stored under `key` in validated dictionary `object`, or nil.
    package func entry(of object: Int, key: String) -> Int? {
        lookUp(key, in: object)
    }

    /// The same lookup, starting at key slot `slot` and wrapping around; on a hit, `slot` becomes the slot found
    /// (``RecordSource/lookUp(_:in:startingAt:)``, the module's one keyed-entry lookup).
    @usableFromInline package func entry(of object: Int, key: String, startingAt slot: inout Int) -> Int? {
        lookUp(key, in: object, startingAt: &slot)
    }

    /// Where a key was last found: its slot and its key string's object number (see ``entry(of:key:hint:)``).
    @usableFromInline package struct KeyHint {
        /// The key's slot in the previous object.
        @usableFromInline package var slot = 0
        /// The key string's object number; -1 before the first hit.
        @usableFromInline package var keyObject = -1
        /// No key found yet.
        package init() {}
    }

    /// The same lookup for a key asked of many objects (`$class`): writers unique key strings, so the key is
    /// usually the same bplist string in every object, at the same slot or last (where this package writes
    /// `$class`, in objects of different key counts). When the key there is that string, it is the key, and no
    /// byte is compared; otherwise the lookup scans and updates the hint.
    @inlinable @inline(__always)
    package func entry(of object: Int, key: String, hint: inout KeyHint) -> Int? {
        let record = validated(object)
        let n = Int(record.count)
        if record.kind == .dictionary, n > 0 {
            if ref(object, n - 1) == hint.keyObject { return ref(object, 2 * n - 1) }
            if hint.slot < n, ref(object, hint.slot) == hint.keyObject { return ref(object, n + hint.slot) }
        }
        var slot = hint.slot
        guard let value = entry(of: object, key: key, startingAt: &slot) else { return nil }
        hint.slot = slot
        hint.keyObject = ref(object, slot)
        return value
    }

    /// The slot of the first `$class` key of validated dictionary `object`, when validating it found one and no
    /// `$classname` or UTF-16 key (``ClassKeySlot``), so that the `$class` rule and the readers need not look; nil
    /// when they must look.
    @inlinable @inline(__always)
    package func recordedClassSlot(_ object: Int) -> Int? { ClassKeySlot.slot(of: validated(object)) }

    /// The bplist object of the `$class` value of validated dictionary `object`, or nil: at the slot its first
    /// touch recorded, else looked up (``entry(of:key:hint:)``).
    @inlinable @inline(__always)
    package func classReference(of object: Int, hint: inout KeyHint) -> Int? {
        let record = validated(object)
        if let slot = ClassKeySlot.slot(of: record) { return ref(object, Int(record.count) + slot) }
        return entry(of: object, key: ArchiveKey.class, hint: &hint)
    }

    /// The `$top` keys in file order.
    package var topKeys: [String] {
        let n = Int(validated(topDictionary).count)
        return (0..<n).map { reader.makeString(validated(ref(topDictionary, $0)), in: raw) }
    }

    /// The bplist object number of the `$top` entry named `key`, checked to be a UID or a scalar.
    package func topEntry(_ key: String) throws(ArchiveError) -> Int? {
        guard let object = entry(of: topDictionary, key: key) else { return nil }
        guard try !record(object).kind.isContainer else { throw KeyedArchiveHeader<Int>.topEntryIsAContainer(key) }
        return object
    }

    /// The class chain (`$classes`) of the checked `$objects` instance `object`; empty when it has none.
    package func classChain(ofInstance object: Int) throws(ArchiveError) -> [String] {
        guard let classRef = entry(of: object, key: ArchiveKey.class), try record(classRef).kind == .uid else { return [] }
        let descriptor = try objectNumber(reader.uid(validated(classRef)))
        guard let chain = entry(of: descriptor, key: ArchiveKey.classes), try record(chain).kind == .array else { return [] }
        var names: [String] = []
        for i in 0..<Int(validated(chain).count) {
            let name = try record(ref(chain, i))
            guard name.kind == .asciiString || name.kind == .utf16String else { return [] }
            names.append(reader.makeString(name, in: raw))
        }
        return names
    }

    /// The value tree of bplist object `object`, UIDs left as UIDs, validating what it reaches. First touch
    /// proves neither depth nor acyclicity, so the walk checks both (``ArchiveReadingOptions/depthLimit``, a
    /// container met again on its own path) and builds at most the expanded-node budget of the input.
    package func value(at object: Int) throws(ArchiveError) -> ArchiveValue {
        var walk = ValueWalk.firstTouch(
            depthLimit: options.containerDepthLimit, nodeLimit: options.expandedNodeLimit(forInputBytes: raw.count))
        return try value(at: object, walk: &walk)
    }

    /// The UID that the `$class` of checked `$objects` entry `object` names, or nil when the entry is not an
    /// instance (not a dictionary, or a class descriptor).
    package func classUID(ofEntry object: Int) -> Int? {
        guard validated(object).kind == .dictionary, lookUp(ArchiveKey.className, in: object) == nil,
            let classRef = lookUp(ArchiveKey.class, in: object), validated(classRef).kind == .uid
        else { return nil }
        return Int(reader.uid(validated(classRef)))
    }

    /// The archive validated whole (``KeyedArchiveView``), for readers that need whole values: runs the
    /// whole-file pass the first time, over the same bytes.
    package func validatedView() throws(ArchiveError) -> KeyedArchiveView {
        if let view { return view }
        let view = try KeyedArchiveView(storage: storage, options: options)
        self.view = view
        return view
    }
}
