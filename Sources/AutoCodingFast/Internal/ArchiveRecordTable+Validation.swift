/// First-touch validation: the slow path of ``ArchiveRecordTable``'s readers, taken once per object.
///
/// Each check is one ``BPlistIndex`` and ``KeyedArchiveView`` make in their whole-file pass, with the same
/// error code and message, applied when an object is first reached. A container is validated with its
/// references (all in range) and, for a dictionary, its keys (all strings), so that key lookups and
/// element reads on a validated container need no checks and cannot fail.
extension ArchiveRecordTable {
    /// Validates bplist object `object` and fills its slot.
    @usableFromInline @inline(never)
    func validate(_ object: Int) throws(ArchiveError) -> BPlistIndex.Record {
        guard object >= 0, object < count else {
            throw ArchiveError(
                .invalidReference, "a reference to object \(object), beyond the \(count) objects of the table")
        }
        if slots[object].offset != 0 { return slots[object] }
        let record = try BPlistIndex.record(object: object, in: raw, trailer: trailer)
        switch record.kind {
        case .uid:
            let uid = reader.uid(record, in: raw)
            guard uid < uidLimit else {
                throw ArchiveError(.invalidUID, "UID \(uid) (bplist object \(object)) ≥ object count \(uidLimit)")
            }
        case .array:
            try checkReferences(of: object, record, Int(record.count))
        case .dictionary:
            let n = Int(record.count)
            try checkReferences(of: object, record, 2 * n)
            for i in 0..<n { try checkKey(ref(object, record, i), of: object) }
        default:
            break
        }
        store(record, at: object)
        return record
    }

    private func store(_ record: BPlistIndex.Record, at object: Int) {
        slots[object] = record
        validatedCount += 1
    }

    /// The object number of reference `i` of `record` (for a container not stored yet).
    private func ref(_ object: Int, _ record: BPlistIndex.Record, _ i: Int) -> Int {
        Int(truncatingIfNeeded: BPlistBytes.readUInt(raw, at: record.offset + i * refSize, width: refSize))
    }

    /// Every reference of a container names an object of the table.
    private func checkReferences(of object: Int, _ record: BPlistIndex.Record, _ refs: Int) throws(ArchiveError) {
        for i in 0..<refs {
            let child = BPlistBytes.readUInt(raw, at: record.offset + i * refSize, width: refSize)
            guard child < UInt64(count) else {
                throw ArchiveError(
                    .invalidReference,
                    "object \(object) refers to object \(child), beyond the \(count) objects of the table")
            }
        }
    }

    /// A dictionary key is a string. Parsed here, not through ``validate(_:)``: a key that is itself a
    /// container is an error, so checking one never recurses.
    private func checkKey(_ key: Int, of object: Int) throws(ArchiveError) {
        var record = slots[key]
        if record.offset == 0 { record = try BPlistIndex.record(object: key, in: raw, trailer: trailer) }
        guard record.kind == .asciiString || record.kind == .utf16String else {
            throw ArchiveError.unexpectedType(
                "dictionary object \(object) has a key (object \(key)) that is a \(record.kind), not a string")
        }
        if slots[key].offset == 0 { store(record, at: key) }
    }

    // MARK: $objects entries

    /// The slow path of ``objectNumber(_:)``: `$objects[uid]` validated and, for an instance, its `$class`
    /// checked to name a class descriptor (a dictionary with a string `$classname` and, if present, an array
    /// of strings as `$classes`), as ``KeyedArchiveView`` checks every entry.
    @usableFromInline @inline(never)
    func checkEntry(_ uid: UInt32) throws(ArchiveError) -> Int {
        guard Int(uid) < objectCount else { throw ArchiveError.invalidUID(UInt64(uid), objectCount: objectCount) }
        let object = ref(objectsArray, Int(uid))
        let record = try self.record(object)
        if record.kind == .dictionary { try checkInstance(object, uid: uid) }
        slots[object].flags |= Self.entryChecked
        return object
    }

    private func checkInstance(_ object: Int, uid: UInt32) throws(ArchiveError) {
        let (instanceName, classRef) = classKeys(of: object)
        if let name = instanceName {
            let kind = try record(name).kind
            guard kind == .asciiString || kind == .utf16String else {
                throw ArchiveError.unexpectedType("object \(uid): $classname is a \(kind), not a string")
            }
            return
        }
        guard let classRef else {
            throw ArchiveError.missingKey(ArchiveKey.class, in: "object \(uid) (UID \(uid))")
        }
        let classRecord = try record(classRef)
        guard classRecord.kind == .uid else {
            throw ArchiveError.unexpectedType("object \(uid) (UID \(uid)): $class is not a UID")
        }
        let classUID = Int(reader.uid(classRecord, in: raw))
        let descriptor = ref(objectsArray, classUID)  // classUID < objectCount: checked with its UID record
        guard slots[descriptor].flags & Self.descriptorChecked == 0 else { return }
        let descriptorRecord = try record(descriptor)
        let nameRef = descriptorRecord.kind == .dictionary ? entry(of: descriptor, key: ArchiveKey.className) : nil
        guard let nameRef, try isString(nameRef) else {
            throw ArchiveError(
                .unexpectedType,
                "object \(uid) (UID \(uid)): $class UID \(classUID) is not a class descriptor with a $classname")
        }
        if let chain = entry(of: descriptor, key: ArchiveKey.classes) {
            let chainRecord = try record(chain)
            guard chainRecord.kind == .array else {
                throw ArchiveError.unexpectedType("object \(classUID): $classes is not an array of strings")
            }
            for i in 0..<Int(chainRecord.count) where try !isString(ref(chain, i)) {
                throw ArchiveError.unexpectedType("object \(classUID): $classes is not an array of strings")
            }
        }
        slots[descriptor].flags |= Self.descriptorChecked
    }

    /// The values under `$classname` and `$class` in validated dictionary `object`, found in one pass over its
    /// keys (every instance is checked for both, and proving `$classname` absent reads every key anyway).
    private func classKeys(of object: Int) -> (className: Int?, class: Int?) {
        let n = Int(validated(object).count)
        var className: Int?
        var classRef: Int?
        for i in 0..<n {
            // Keys were validated as strings with their dictionary; an ASCII key is compared by length first.
            let key = validated(ref(object, i))
            if key.kind == .utf16String {
                // A UTF-16 key may spell either: the general lookup compares it as text.
                return (entry(of: object, key: ArchiveKey.className), entry(of: object, key: ArchiveKey.class))
            }
            if Int(key.count) == Self.classKeyBytes.count,
                Self.classKeyBytes.withUnsafeBufferPointer({ BPlistBytes.equal(raw, at: key.offset, $0) })
            {
                classRef = ref(object, n + i)
            } else if Int(key.count) == Self.classNameKeyBytes.count,
                Self.classNameKeyBytes.withUnsafeBufferPointer({ BPlistBytes.equal(raw, at: key.offset, $0) })
            {
                className = ref(object, n + i)
            }
        }
        return (className, classRef)
    }

    private static let classKeyBytes = Array(ArchiveKey.class.utf8)
    private static let classNameKeyBytes = Array(ArchiveKey.className.utf8)

    private func isString(_ object: Int) throws(ArchiveError) -> Bool {
        let kind = try record(object).kind
        return kind == .asciiString || kind == .utf16String
    }

    // MARK: The top-level dictionary

    /// The top-level dictionary's four entries, checked as ``KeyedArchiveView`` checks them.
    struct Header {
        var objects: Int
        var top: Int
        var archiver: String
        var version: Int

        init(table: ArchiveRecordTable) throws(ArchiveError) {
            let root = table.trailer.topObject
            guard try table.record(root).kind == .dictionary else {
                throw ArchiveError(.notKeyedArchive, "the property list's root is not a dictionary")
            }
            let n = Int(table.validated(root).count)
            var found: [String: Int] = [:]
            for i in 0..<n {
                let key = table.reader.makeString(table.validated(table.ref(root, i)), in: table.raw)
                if key.hasPrefix("$") { found[key] = table.ref(root, n + i) }
            }
            guard found[ArchiveKey.objects] != nil || found[ArchiveKey.archiver] != nil || found[ArchiveKey.top] != nil
            else { throw ArchiveError(.notKeyedArchive, "the root dictionary has none of $archiver, $objects and $top") }

            func require(_ key: String, _ kinds: [BPlistIndex.Kind], _ expected: String) throws(ArchiveError) -> Int {
                guard let object = found[key] else { throw ArchiveError.missingKey(key, in: "the archive") }
                let kind = try table.record(object).kind
                guard kinds.contains(kind) else {
                    throw ArchiveError.unexpectedType("\(key) is a \(kind), not a \(expected)")
                }
                return object
            }
            let archiverObject = try require(ArchiveKey.archiver, [.asciiString, .utf16String], "string")
            let versionObject = try require(ArchiveKey.version, [.integer], "integer")
            objects = try require(ArchiveKey.objects, [.array], "array")
            top = try require(ArchiveKey.top, [.dictionary], "dictionary")
            archiver = table.reader.makeString(table.validated(archiverObject), in: table.raw)
            guard case .integer(let v) = table.reader.integer(table.validated(versionObject), in: table.raw) else {
                throw ArchiveError(.unsupportedVersion, "$version is above Int64.max")
            }
            if table.options.requiresKnownVersion && v != Int64(ArchiveKey.formatVersion) {
                throw ArchiveError(.unsupportedVersion, "$version is \(v), not \(ArchiveKey.formatVersion)")
            }
            version = Int(v)
        }
    }
}
