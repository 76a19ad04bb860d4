/// What the keyed-archive rules read bplist objects through: the whole-file ``BPlistIndex`` (every record
/// validated before any rule runs, as ``IndexRecords``) or the ``ArchiveRecordTable`` (each record validated on
/// first touch). Each rule is written once, over this protocol: the header (``KeyedArchiveHeader``), the `$class`
/// rule (`RecordSource+Classes.swift`), the keyed-entry lookup (below) and value materialization
/// (`RecordSource+Values.swift`).
///
/// The contract both sources keep: ``record(_:)`` validates an object (once) or throws; a validated container's
/// references all name objects of the table, and a validated dictionary's keys are validated strings, so
/// ``ref(_:_:)`` and ``validated(_:)`` on what they lead to need no checks.
protocol RecordSource {
    /// The plist's bytes.
    var raw: UnsafeRawBufferPointer { get }
    /// The record readers (strings, integers, reals, UIDs) and the trailer.
    var reader: BPlistIndex { get }
    /// The validated record of bplist object `object`, validating it first if the source validates lazily.
    func record(_ object: Int) throws(ArchiveError) -> BPlistIndex.Record
    /// The record of an object already validated (see ``ArchiveRecordTable/validated(_:)``).
    func validated(_ object: Int) -> BPlistIndex.Record
    /// The object number of reference `i` of validated container `object` (element `i`, or key `i` and value
    /// `count + i` of a dictionary).
    func ref(_ object: Int, _ i: Int) -> Int
    /// The slot of the `$class` key of validated dictionary `object` when validating it proved there is no
    /// `$classname` key (see ``ArchiveRecordTable/recordedClassSlot(_:)``); nil when the rules must look.
    func recordedClassSlot(_ object: Int) -> Int?
}

/// The whole-file index as a record source: every record was validated when the index was built.
struct IndexRecords: RecordSource {
    let index: BPlistIndex
    let raw: UnsafeRawBufferPointer

    var reader: BPlistIndex { index }

    @inline(__always)
    func record(_ object: Int) -> BPlistIndex.Record { index.records[object] }

    @inline(__always)
    func validated(_ object: Int) -> BPlistIndex.Record { index.records[object] }

    @inline(__always)
    func ref(_ object: Int, _ i: Int) -> Int { index.ref(object, i, in: raw) }

    /// The index records nothing about `$class`.
    func recordedClassSlot(_ object: Int) -> Int? { nil }
}

extension BPlistIndex.Kind {
    /// An ASCII or UTF-16 string.
    var isString: Bool { self == .asciiString || self == .utf16String }
}

// MARK: The keyed-entry lookup

extension RecordSource {
    /// The string of a validated string record.
    @inline(__always)
    func string(_ record: BPlistIndex.Record) -> String { reader.makeString(record, in: raw) }

    /// The bplist object number of the value stored under `key` in validated dictionary `object`, or nil (also
    /// when `object` is not a dictionary), starting at key slot `slot` and wrapping around; on a hit, `slot`
    /// becomes the slot found. The one keyed-entry lookup of the module: every reader's `entry(of:key:…)`.
    ///
    /// Decoders read an object's keys in the order they were written, often asking for one key twice
    /// (`contains`, then `decode`), so starting at the previous hit finds most keys at the first or second key
    /// compared. ASCII keys compare bytes in place; UTF-16 keys are decoded.
    @inline(__always)
    func lookUp(_ key: String, in object: Int, startingAt slot: inout Int) -> Int? {
        let record = validated(object)
        guard record.kind == .dictionary else { return nil }
        let n = Int(record.count)
        guard n > 0 else { return nil }
        let start = slot < n ? slot : 0
        var key = key
        let found: Int? = key.withUTF8 { wanted in
            var i = start
            repeat {
                // Keys were validated as strings with their dictionary.
                let keyRecord = validated(ref(object, i))
                if keyRecord.kind == .asciiString {
                    if Int(keyRecord.count) == wanted.count, BPlistBytes.equal(raw, at: keyRecord.offset, wanted) {
                        return i
                    }
                } else if string(keyRecord).utf8.elementsEqual(wanted) {
                    return i
                }
                i = i + 1 == n ? 0 : i + 1
            } while i != start
            return nil
        }
        guard let found else { return nil }
        slot = found
        return ref(object, n + found)
    }

    /// ``lookUp(_:in:startingAt:)`` from the first key.
    @inline(__always)
    func lookUp(_ key: String, in object: Int) -> Int? {
        var slot = 0
        return lookUp(key, in: object, startingAt: &slot)
    }
}
