#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OrderedCollections

/// Reading values out of a validated index. Every extent was checked when the index was built.
extension BPlistIndex {
    /// The object number of element `i` of array `object`, or of key `i` (then value `count + i`) of a dictionary.
    @inline(__always)
    package func ref(_ object: Int, _ i: Int, in bytes: UnsafeRawBufferPointer) -> Int {
        BPlistBytes.reference(bytes, at: records[object].offset, slot: i, width: refSize)
    }

    /// The integer at an integer record, as ``ArchiveValue/integer(_:)`` or, above `Int64.max`,
    /// ``ArchiveValue/unsignedInteger(_:)``.
    @inline(__always)
    package func integer(_ record: Record, in bytes: UnsafeRawBufferPointer) -> ArchiveValue {
        switch record.count {
        case 16:
            // Validated: the high half is 0 (a value up to UInt64.max) or all ones (a negative Int64).
            let high = BPlistBytes.readUInt(bytes, at: record.offset, width: 8)
            let low = BPlistBytes.readUInt(bytes, at: record.offset + 8, width: 8)
            if high == 0 && low > UInt64(Int64.max) { return .unsignedInteger(low) }
            return .integer(Int64(bitPattern: low))
        case 8:
            return .integer(Int64(bitPattern: BPlistBytes.readUInt(bytes, at: record.offset, width: 8)))
        default:
            // 1, 2 and 4-byte integers are unsigned.
            return .integer(Int64(BPlistBytes.readUInt(bytes, at: record.offset, width: Int(record.count))))
        }
    }

    /// The floating-point value of a real or date record.
    @inline(__always)
    package func double(_ record: Record, in bytes: UnsafeRawBufferPointer) -> Double {
        let bits = BPlistBytes.readUInt(bytes, at: record.offset, width: Int(record.count))
        return record.count == 4 ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits))) : Double(bitPattern: bits)
    }

    /// The UID value of a UID record, which the record holds (validated to fit 32 bits).
    @inline(__always)
    @inlinable package func uid(_ record: Record) -> UInt32 { record.count }

    /// A new string from an ASCII or UTF-16 record.
    package func makeString(_ record: Record, in bytes: UnsafeRawBufferPointer) -> String {
        let count = Int(record.count)
        if record.kind == .asciiString {
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[record.offset..<record.offset + count]),
                          as: UTF8.self)
        }
        return String(unsafeUninitializedCapacity: count * 3) { utf8 in
            var written = 0
            _ = Self.forEachUTF8Byte(ofUTF16: record, in: bytes) { byte in
                utf8[written] = byte
                written += 1
                return true
            }
            return written
        }
    }

    /// Whether the string at a UTF-16 record is `utf8`, as ``makeString(_:in:)`` would make it (false for any
    /// other record; the lookups compare ASCII keys in place). Compared as it is decoded and given up at the first
    /// difference, without a string: a lookup of a key then costs at most the key's length per stored key, however
    /// long those are (made into strings, long UTF-16 keys shared by many dictionaries cost their whole length at
    /// every lookup, which a 150 KB archive turned into a second of a typed decode).
    package static func utf16String(
        _ record: Record, in bytes: UnsafeRawBufferPointer, equalsUTF8 utf8: UnsafeRawBufferPointer
    ) -> Bool {
        let count = Int(record.count)
        // Each UTF-16 unit makes one to three UTF-8 bytes (a surrogate pair four, two per unit).
        guard record.kind == .utf16String, utf8.count >= count, utf8.count <= 3 * count else { return false }
        var matched = 0
        let complete = forEachUTF8Byte(ofUTF16: record, in: bytes) { byte in
            guard matched < utf8.count, utf8[matched] == byte else { return false }
            matched += 1
            return true
        }
        return complete && matched == utf8.count
    }

    /// Calls `body` with each UTF-8 byte of the UTF-16 string at `record`, in order, an unpaired surrogate as
    /// U+FFFD, while `body` returns true; false when `body` stopped the walk. The one decoding of the module's
    /// UTF-16 strings, for making them and comparing them.
    @inline(__always)
    private static func forEachUTF8Byte(
        ofUTF16 record: Record, in bytes: UnsafeRawBufferPointer, _ body: (UInt8) -> Bool
    ) -> Bool {
        var iterator = BigEndianUTF16Units(bytes: bytes, offset: record.offset, count: Int(record.count))
        var decoder = UTF16()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                guard let encoded = UTF8.encode(scalar) else { continue }
                for byte in encoded { guard body(byte) else { return false } }
            case .emptyInput:
                return true
            case .error:
                // Validated away; U+FFFD keeps the walk total.
                for byte in [0xEF, 0xBF, 0xBD] as [UInt8] { guard body(byte) else { return false } }
            }
        }
    }
}

extension BPlistIndex {
    /// The duplicate-key rule every reader of this module applies (the whole-file reader as it builds a
    /// dictionary, the lazy reader when it first reaches one): a dictionary holds each key once, keys comparing
    /// as Swift strings do. Adds `value` under `key`, throwing ``ArchiveError/Code-swift.struct/invalidObject``
    /// when `entries` has the key already.
    @inline(__always)
    static func insertUnique<Value>(
        _ value: Value, forKey key: String, into entries: inout OrderedDictionary<String, Value>, object: Int
    ) throws(ArchiveError) {
        guard entries.updateValue(value, forKey: key) == nil else { throw duplicateKey(key, object: object) }
    }

    @inline(never)
    static func duplicateKey(_ key: String, object: Int) -> ArchiveError {
        ArchiveError(.invalidObject, "dictionary object \(object) has the key \"\(key)\" twice")
    }
}

/// Values already built, by object number: dense (a 4-byte slot per object) when building a whole plist, sparse
/// when building one object of a large table.
///
/// A dense slot holds 1 + the value's place in `values`, or 0: the values themselves (strings, data and
/// containers only; scalars are not cached) are stored once, packed. W1's 5.4 million bplist objects take
/// 22 MB of slots this way, where a slot holding an `ArchiveValue?` (24 bytes) took 130 MB.
package struct ValueCache {
    private var slots: [UInt32]
    private var values: [ArchiveValue] = []
    private var sparse: [Int: ArchiveValue] = [:]

    /// A cache with a slot for each of `count` objects (sparse past 2³² − 1 objects, which slots cannot number).
    package init(dense count: Int) { slots = count < Int(UInt32.max) ? Array(repeating: 0, count: count) : [] }

    /// A cache that grows with what is built.
    package init() { slots = [] }

    package subscript(object: Int) -> ArchiveValue? {
        get {
            if slots.isEmpty { return sparse[object] }
            let slot = slots[object]
            return slot == 0 ? nil : values[Int(slot) - 1]
        }
        set {
            if slots.isEmpty {
                sparse[object] = newValue
                return
            }
            let slot = slots[object]
            if let newValue {
                if slot != 0 {
                    values[Int(slot) - 1] = newValue
                } else {
                    values.append(newValue)
                    slots[object] = UInt32(truncatingIfNeeded: values.count)
                }
            } else if slot != 0 {
                // Forgotten, not removed: its place in `values` stays taken until the cache goes.
                values[Int(slot) - 1] = .bool(false)
                slots[object] = 0
            }
        }
    }
}

/// Big-endian UTF-16 code units read from validated bytes.
struct BigEndianUTF16Units: IteratorProtocol {
    let bytes: UnsafeRawBufferPointer
    var offset: Int
    let end: Int

    init(bytes: UnsafeRawBufferPointer, offset: Int, count: Int) {
        self.bytes = bytes
        self.offset = offset
        self.end = offset + 2 * count
    }

    mutating func next() -> UInt16? {
        guard offset < end else { return nil }
        defer { offset += 2 }
        return UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }
}
