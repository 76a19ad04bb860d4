import OrderedCollections

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
        var record = try BPlistIndex.record(object: object, in: raw, trailer: trailer)
        switch record.kind {
        case .uid:
            let uid = reader.uid(record)
            guard uid < uidLimit else { throw ArchiveError.uidBeyondObjects(uid, object: object, objectCount: uidLimit) }
        case .array:
            // `$objects`' references are checked one at a time, as checkEntry(_:) reads them: a 10-million-entry
            // table is not read whole to open the archive. (Every other reader of its elements goes through
            // record(_:), which checks the range.)
            if object != objectsArray { try checkReferences(of: object, record, Int(record.count)) }
        case .dictionary:
            let n = Int(record.count)
            try checkReferences(of: object, record, 2 * n)
            var classKeys = ClassKeySlot()
            for i in 0..<n {
                let key = ref(object, record, i)
                // The usual key, a short ASCII string not validated yet (swift-corelibs-foundation writes each key
                // of each object anew), is read here: called for each key, the check cost as much in its call as
                // in its work.
                if slots[key].offset == 0,
                    let string = BPlistIndex.shortASCIIString(object: key, in: raw, trailer: trailer)
                {
                    store(string, at: key)
                    classKeys.note(string, at: i, in: raw)
                } else {
                    classKeys.note(try checkKey(key, of: object), at: i, in: raw)
                }
            }
            if rejectsDuplicateKeys && n > 1 { try checkKeysUnique(of: object, record) }
            classKeys.record(in: &record)
        default:
            break
        }
        store(record, at: object)
        return record
    }

    /// The slow path of ``uid(in:)``: a well-formed UID below the `$objects` count is read in place; anything else
    /// is validated (and a damaged UID refused) by ``validate(_:)``.
    @usableFromInline @inline(never)
    func firstUID(in object: Int) throws(ArchiveError) -> UInt32? {
        if let uid = BPlistIndex.uidValue(object: object, in: raw, trailer: trailer), Int(uid) < uidLimit { return uid }
        let record = try validate(object)
        return record.kind == .uid ? reader.uid(record) : nil
    }

    private func store(_ record: BPlistIndex.Record, at object: Int) {
        slots[object] = record
        validatedCount += 1
    }

    /// The object number of reference `i` of `record` (for a container not stored yet).
    private func ref(_ object: Int, _ record: BPlistIndex.Record, _ i: Int) -> Int {
        BPlistBytes.reference(raw, at: record.offset, slot: i, width: refSize)
    }

    /// Every reference of a container names an object of the table.
    func checkReferences(of object: Int, _ record: BPlistIndex.Record, _ refs: Int) throws(ArchiveError) {
        // All at once; the loop below only finds the first culprit, for the message.
        guard BPlistBytes.maxUInt(raw, from: record.offset, count: refs, width: refSize) >= UInt64(count) else { return }
        for i in 0..<refs {
            let child = BPlistBytes.readUInt(raw, at: record.offset + i * refSize, width: refSize)
            guard child < UInt64(count) else { throw referenceError(object, child) }
        }
    }

    private func referenceError(_ object: Int, _ child: UInt64) -> ArchiveError {
        ArchiveError.referenceBeyondTable(child, from: object, count: count)
    }

    /// A dictionary key is a string. Parsed here, not through ``validate(_:)``: a key that is itself a
    /// container is an error, so checking one never recurses. (``validate(_:)`` reads a short ASCII key not
    /// validated yet itself.)
    @inline(never)
    private func checkKey(_ key: Int, of object: Int) throws(ArchiveError) -> BPlistIndex.Record {
        var record = slots[key]
        if record.offset == 0 {
            record = try BPlistIndex.record(object: key, in: raw, trailer: trailer)
            if record.kind.isString { store(record, at: key) }
        }
        guard record.kind.isString else { throw ArchiveError.keyIsNotAString(key, kind: "\(record.kind)", in: object) }
        return record
    }

    /// No key appears twice in dictionary `object` (``BPlistIndex/insertUnique(_:forKey:into:object:)``, the
    /// rule ``KeyedArchiveView/keyedArchive()`` applies); its keys were validated as strings. Hashing them
    /// spends from ``keyNodesLeft``.
    private func checkKeysUnique(of object: Int, _ record: BPlistIndex.Record) throws(ArchiveError) {
        let n = Int(record.count)
        var nodes = 0
        for i in 0..<n { nodes += Int(slots[ref(object, record, i)].keyNodes) }
        guard nodes <= keyNodesLeft else {
            throw ArchiveError(
                .limitExceeded,
                "dictionary \(object)'s keys pass the archive's budget of \(options.expandedNodeLimit(forInputBytes: raw.count)) expanded nodes, keys counted by length at each dictionary (maxExpandedNodeCount, or maxExpandedNodesPerInputByte per input byte + 65,536)")
        }
        keyNodesLeft -= nodes
        var seen = OrderedDictionary<String, Void>(minimumCapacity: min(n, 256 * 1024))
        for i in 0..<n {
            let key = ref(object, record, i)
            try BPlistIndex.insertUnique((), forKey: string(slots[key]), into: &seen, object: object)
        }
    }

    // MARK: $objects entries

    /// The slow path of ``objectNumber(_:)``: `$objects[uid]` validated and checked by the `$class` rule
    /// (`RecordSource+Classes.swift`), the descriptor an instance names checked once per table.
    @usableFromInline @inline(never)
    func checkEntry(_ uid: UInt32) throws(ArchiveError) -> Int {
        guard Int(uid) < objectCount else { throw ArchiveError.invalidUID(UInt64(uid), objectCount: objectCount) }
        let object = ref(objectsArray, Int(uid))
        guard UInt(bitPattern: object) < UInt(bitPattern: count) else {
            throw referenceError(objectsArray, UInt64(UInt(bitPattern: object)))
        }
        if let classUID = try checkEntry(object, uid: Int(uid)) {
            let descriptor = ref(objectsArray, classUID)
            guard UInt(bitPattern: descriptor) < UInt(bitPattern: count) else {
                throw referenceError(objectsArray, UInt64(UInt(bitPattern: descriptor)))
            }
            if slots[descriptor].flags & Self.descriptorChecked == 0 {
                try checkDescriptor(descriptor, uid: classUID, namedBy: Int(uid))
                slots[descriptor].flags |= Self.descriptorChecked
            }
        }
        slots[object].flags |= Self.entryChecked
        return object
    }
}

extension ArchiveRecordTable: RecordSource {}
