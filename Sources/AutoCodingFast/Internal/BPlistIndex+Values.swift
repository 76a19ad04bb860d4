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
            var iterator = BigEndianUTF16Units(bytes: bytes, offset: record.offset, count: count)
            var decoder = UTF16()
            loop: while true {
                switch decoder.decode(&iterator) {
                case .scalarValue(let scalar):
                    for byte in UTF8.encode(scalar)! {
                        utf8[written] = byte
                        written += 1
                    }
                case .emptyInput: break loop
                case .error:
                    // Validated away; emit U+FFFD to stay total.
                    for byte in [0xEF, 0xBF, 0xBD] as [UInt8] {
                        utf8[written] = byte
                        written += 1
                    }
                }
            }
            return written
        }
    }

    /// Whether the string at `record` equals `key` (ASCII keys compare bytes; others decode).
    package func string(_ record: Record, in bytes: UnsafeRawBufferPointer, equals key: StaticString) -> Bool {
        guard record.kind == .asciiString, Int(record.count) == key.utf8CodeUnitCount else {
            return record.kind == .utf16String && makeString(record, in: bytes) == key.description
        }
        let stored = UnsafeRawBufferPointer(rebasing: bytes[record.offset..<record.offset + Int(record.count)])
        return stored.elementsEqual(UnsafeRawBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
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
