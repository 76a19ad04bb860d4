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
    /// `$classname` key (``ClassKeySlot``); nil when the rules must look.
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

    @inline(__always)
    func recordedClassSlot(_ object: Int) -> Int? { ClassKeySlot.slot(of: index.records[object]) }
}

/// Where a dictionary's `$class` key is, noted while its keys are validated (by ``BPlistIndex``'s container check
/// and ``ArchiveRecordTable``'s first touch), so that the `$class` rule and the readers find it without a scan:
/// the slot of its first `$class` key, unless a `$classname` key (a class descriptor) or a UTF-16 key (which a
/// lookup compares decoded) leaves them to look it up. Kept as a six-bit code in the record's flags: the slot + 1,
/// or 0 for "look it up" (also past slot 61).
@usableFromInline struct ClassKeySlot {
    /// Where the code starts in a record's flags (``ArchiveRecordTable``'s check flags use the low two bits).
    @usableFromInline static let shift: UInt8 = 2
    private var slot = -1
    private var mustLook = false

    /// Notes key record `key`, at slot `i` (keys in slot order).
    @inline(__always)
    mutating func note(_ key: BPlistIndex.Record, at i: Int, in raw: UnsafeRawBufferPointer) {
        if key.kind != .asciiString {
            mustLook = true
        } else if key.count == 6, slot < 0, Self.holds(Self.classBytes, key, raw) {
            slot = i
        } else if key.count == 10, Self.holds(Self.classNameBytes, key, raw) {
            mustLook = true
        }
    }

    /// Stores the code in the flags of the dictionary's record.
    @inline(__always)
    func record(in dictionary: inout BPlistIndex.Record) {
        if !mustLook, slot >= 0, slot < 62 { dictionary.flags |= UInt8(slot + 1) << Self.shift }
    }

    /// The recorded slot of `record`'s first `$class` key, or nil when a reader must look it up.
    @inlinable @inline(__always)
    static func slot(of record: BPlistIndex.Record) -> Int? {
        let code = Int(record.flags >> shift)
        return code == 0 ? nil : code - 1
    }

    /// `$class` and `$classname` (``ArchiveKey``), as the bytes of a key record.
    private static let classBytes = StaticString("$class")
    private static let classNameBytes = StaticString("$classname")

    /// Whether ASCII key record `key`, as long as `name`, holds `name`.
    @inline(__always)
    private static func holds(_ name: StaticString, _ key: BPlistIndex.Record, _ raw: UnsafeRawBufferPointer) -> Bool {
        let bytes = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        return BPlistBytes.equal(raw, at: key.offset, bytes)
    }
}

extension BPlistIndex.Kind {
    /// An ASCII or UTF-16 string.
    @inline(__always) var isString: Bool { self == .asciiString || self == .utf16String }
}

// MARK: The keyed-entry lookup

extension RecordSource {
    /// The string of a validated string record.
    @inline(__always)
    func string(_ record: BPlistIndex.Record) -> String { reader.makeString(record, in: raw) }

    /// Whether the validated UTF-16 string record `record` is `wanted` (UTF-8), compared as it is decoded
    /// (``BPlistIndex/utf16String(_:in:equalsUTF8:)``). Not inlined into ``lookUp(_:in:startingAt:)``, whose loop
    /// compares the usual ASCII keys in place: inlined, it made W1's Codable decode 0.45 % longer.
    @inline(never)
    func utf16Key(_ record: BPlistIndex.Record, equals wanted: UnsafeRawBufferPointer) -> Bool {
        BPlistIndex.utf16String(record, in: raw, equalsUTF8: wanted)
    }

    /// The bplist object number of the value stored under `key` in validated dictionary `object`, or nil (also
    /// when `object` is not a dictionary), starting at key slot `slot` and wrapping around; on a hit, `slot`
    /// becomes the slot found. The one keyed-entry lookup of the module: every reader's `entry(of:key:…)`.
    ///
    /// Decoders read an object's keys in the order they were written, often asking for one key twice
    /// (`contains`, then `decode`), so starting at the previous hit finds most keys at the first or second key
    /// compared. ASCII keys compare bytes in place; UTF-16 keys as they are decoded, without a string
    /// (``BPlistIndex/utf16String(_:in:equalsUTF8:)``).
    @inline(__always)
    func lookUp(_ key: String, in object: Int, startingAt slot: inout Int) -> Int? {
        let record = validated(object)
        guard record.kind == .dictionary else { return nil }
        let n = Int(record.count)
        guard n > 0 else { return nil }
        let start = slot < n ? slot : 0
        let found: Int? = StringBytes.withUTF8(key) { wanted in
            var i = start
            repeat {
                // Keys were validated as strings with their dictionary.
                let keyRecord = validated(ref(object, i))
                if keyRecord.kind == .asciiString {
                    if Int(keyRecord.count) == wanted.count,
                        BPlistBytes.equal(raw, at: keyRecord.offset, wanted, at: 0, count: wanted.count)
                    {
                        return i
                    }
                } else if utf16Key(keyRecord, equals: wanted) {
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
