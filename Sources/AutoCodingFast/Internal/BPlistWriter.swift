#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes a value tree as a binary property list in linear time.
///
/// Pass one flattens the tree into numbered objects in CoreFoundation's order (a container, then its keys,
/// then its values), uniquing scalars so each distinct string, number, date, data and UID is stored once,
/// and sums their sizes. The reference and offset widths follow from the count and the size. Pass two fills
/// one buffer allocated at its final size.
struct BPlistWriter {
    /// A flattened object: a scalar, or a container whose child object numbers are in `refs`.
    private enum Flat {
        case scalar(ArchiveValue)
        case array(start: Int, count: Int)
        /// Keys at `refs[start..<start+count]`, values after them.
        case dictionary(start: Int, count: Int)
    }

    /// Uniquing key: exact bits and bytes, so `0.0` and `-0.0`, or canonically equivalent but differently
    /// encoded strings, stay distinct (Swift's `==` would merge them).
    private enum ScalarKey: Hashable {
        case bool(Bool)
        case integer(Int64)
        case unsignedInteger(UInt64)
        case real(UInt64)
        case date(UInt64)
        case data([UInt8])
        case asciiString(String)
        case unicodeString([UInt8])
        case uid(UInt32)
    }

    private var objects: [Flat] = []
    private var refs: [Int] = []
    private var unique: [ScalarKey: Int] = [:]
    /// Payload bytes of all objects except the container references, which depend on the final count.
    private var scalarBytes = 0
    private var containerRefs = 0
    private var containerHeaders = 0

    static func write(_ value: ArchiveValue) -> [UInt8] {
        var writer = BPlistWriter()
        _ = writer.flatten(value)
        return writer.serialize()
    }

    // MARK: Pass one

    private mutating func flatten(_ value: ArchiveValue) -> Int {
        switch value {
        case .array(let elements):
            let number = objects.count
            objects.append(.array(start: 0, count: 0))
            let children = elements.map { flatten($0) }
            objects[number] = .array(start: refs.count, count: children.count)
            refs.append(contentsOf: children)
            containerRefs += children.count
            containerHeaders += Self.headerSize(count: children.count)
            return number
        case .dictionary(let entries):
            let number = objects.count
            objects.append(.dictionary(start: 0, count: 0))
            let keys = entries.keys.map { flatten(.string($0)) }
            let values = entries.values.map { flatten($0) }
            objects[number] = .dictionary(start: refs.count, count: keys.count)
            refs.append(contentsOf: keys)
            refs.append(contentsOf: values)
            containerRefs += 2 * keys.count
            containerHeaders += Self.headerSize(count: keys.count)
            return number
        default:
            let key = Self.scalarKey(value)
            if let existing = unique[key] { return existing }
            let number = objects.count
            unique[key] = number
            objects.append(.scalar(value))
            scalarBytes += Self.scalarSize(value)
            return number
        }
    }

    private static func scalarKey(_ value: ArchiveValue) -> ScalarKey {
        switch value {
        case .bool(let b): return .bool(b)
        case .integer(let v): return .integer(v)
        case .unsignedInteger(let v): return v <= UInt64(Int64.max) ? .integer(Int64(v)) : .unsignedInteger(v)
        case .real(let d): return .real(d.bitPattern)
        case .date(let d): return .date(d.timeIntervalSinceReferenceDate.bitPattern)
        case .data(let bytes): return .data(bytes)
        case .string(let s): return isASCII(s) ? .asciiString(s) : .unicodeString(Array(s.utf8))
        case .uid(let u): return .uid(u.rawValue)
        case .array, .dictionary: preconditionFailure("containers are not uniqued")
        }
    }

    private static func isASCII(_ s: String) -> Bool {
        s.utf8.withContiguousStorageIfAvailable { $0.allSatisfy { $0 < 0x80 } } ?? s.utf8.allSatisfy { $0 < 0x80 }
    }

    /// Bytes of a marker plus, for 15 or more elements, the length integer that follows it.
    private static func headerSize(count: Int) -> Int {
        count < 15 ? 1 : 2 + intWidth(UInt64(count))
    }

    /// The smallest of 1, 2, 4 or 8 bytes that holds `value`.
    private static func intWidth(_ value: UInt64) -> Int {
        value <= 0xFF ? 1 : value <= 0xFFFF ? 2 : value <= 0xFFFF_FFFF ? 4 : 8
    }

    private static func scalarSize(_ value: ArchiveValue) -> Int {
        switch value {
        case .bool: return 1
        case .integer(let v): return 1 + (v < 0 ? 8 : intWidth(UInt64(v)))
        case .unsignedInteger(let v): return 1 + (v <= UInt64(Int64.max) ? intWidth(v) : 16)
        case .real, .date: return 9
        case .data(let bytes): return headerSize(count: bytes.count) + bytes.count
        case .string(let s):
            if isASCII(s) { return headerSize(count: s.utf8.count) + s.utf8.count }
            let units = s.utf16.count
            return headerSize(count: units) + 2 * units
        case .uid(let u): return 1 + uidWidth(u.rawValue)
        case .array, .dictionary: preconditionFailure("containers are sized separately")
        }
    }

    private static func uidWidth(_ value: UInt32) -> Int {
        value <= 0xFF ? 1 : value <= 0xFFFF ? 2 : 4
    }

    // MARK: Pass two

    private func serialize() -> [UInt8] {
        let count = objects.count
        // CoreFoundation's rule: references wide enough for the object count itself.
        let refSize = Self.intWidth(UInt64(count))
        let tableOffset = 8 + scalarBytes + containerHeaders + containerRefs * refSize
        let offsetSize = Self.intWidth(UInt64(tableOffset))
        let total = tableOffset + count * offsetSize + BPlistTrailer.size

        return [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
            let out = UnsafeMutableRawBufferPointer(buffer)
            for (i, byte) in BPlistTrailer.magic.enumerated() { out[i] = byte }
            var position = 8
            for (number, object) in objects.enumerated() {
                BPlistBytes.writeUInt(
                    UInt64(position), to: out, at: tableOffset + number * offsetSize, width: offsetSize)
                switch object {
                case .scalar(let value):
                    position = Self.writeScalar(value, to: out, at: position)
                case .array(let start, let n):
                    position = Self.writeHeader(0xA0, count: n, to: out, at: position)
                    for i in start..<start + n {
                        BPlistBytes.writeUInt(UInt64(refs[i]), to: out, at: position, width: refSize)
                        position += refSize
                    }
                case .dictionary(let start, let n):
                    position = Self.writeHeader(0xD0, count: n, to: out, at: position)
                    for i in start..<start + 2 * n {
                        BPlistBytes.writeUInt(UInt64(refs[i]), to: out, at: position, width: refSize)
                        position += refSize
                    }
                }
            }
            precondition(position == tableOffset, "bplist sizing pass and fill pass disagree")
            let trailer = tableOffset + count * offsetSize
            for i in 0..<6 { out[trailer + i] = 0 }
            out[trailer + 6] = UInt8(offsetSize)
            out[trailer + 7] = UInt8(refSize)
            BPlistBytes.writeUInt(UInt64(count), to: out, at: trailer + 8, width: 8)
            BPlistBytes.writeUInt(0, to: out, at: trailer + 16, width: 8)
            BPlistBytes.writeUInt(UInt64(tableOffset), to: out, at: trailer + 24, width: 8)
            initialized = total
        }
    }

    private static func writeHeader(_ marker: UInt8, count: Int, to out: UnsafeMutableRawBufferPointer, at position: Int)
        -> Int
    {
        if count < 15 {
            out[position] = marker | UInt8(count)
            return position + 1
        }
        out[position] = marker | 0x0F
        let width = intWidth(UInt64(count))
        out[position + 1] = 0x10 | UInt8(width.trailingZeroBitCount)
        BPlistBytes.writeUInt(UInt64(count), to: out, at: position + 2, width: width)
        return position + 2 + width
    }

    private static func writeScalar(_ value: ArchiveValue, to out: UnsafeMutableRawBufferPointer, at position: Int) -> Int {
        switch value {
        case .bool(let b):
            out[position] = b ? 0x09 : 0x08
            return position + 1
        case .integer(let v):
            return writeInteger(UInt64(bitPattern: v), negative: v < 0, to: out, at: position)
        case .unsignedInteger(let v):
            if v <= UInt64(Int64.max) { return writeInteger(v, negative: false, to: out, at: position) }
            out[position] = 0x14
            BPlistBytes.writeUInt(0, to: out, at: position + 1, width: 8)
            BPlistBytes.writeUInt(v, to: out, at: position + 9, width: 8)
            return position + 17
        case .real(let d):
            out[position] = 0x23
            BPlistBytes.writeUInt(d.bitPattern, to: out, at: position + 1, width: 8)
            return position + 9
        case .date(let date):
            out[position] = 0x33
            BPlistBytes.writeUInt(date.timeIntervalSinceReferenceDate.bitPattern, to: out, at: position + 1, width: 8)
            return position + 9
        case .data(let bytes):
            var p = writeHeader(0x40, count: bytes.count, to: out, at: position)
            bytes.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: out[p..<p + $0.count]).copyMemory(from: $0) }
            p += bytes.count
            return p
        case .string(let s):
            if isASCII(s) {
                var p = writeHeader(0x50, count: s.utf8.count, to: out, at: position)
                for byte in s.utf8 {
                    out[p] = byte
                    p += 1
                }
                return p
            }
            var p = writeHeader(0x60, count: s.utf16.count, to: out, at: position)
            for unit in s.utf16 {
                out.storeBytes(of: unit.bigEndian, toByteOffset: p, as: UInt16.self)
                p += 2
            }
            return p
        case .uid(let u):
            let width = uidWidth(u.rawValue)
            out[position] = 0x80 | UInt8(width - 1)
            BPlistBytes.writeUInt(UInt64(u.rawValue), to: out, at: position + 1, width: width)
            return position + 1 + width
        case .array, .dictionary:
            preconditionFailure("containers are written by serialize()")
        }
    }

    private static func writeInteger(_ bits: UInt64, negative: Bool, to out: UnsafeMutableRawBufferPointer, at position: Int)
        -> Int
    {
        // Non-negative values take 1, 2, 4 or 8 bytes; negative ones always 8, as CoreFoundation writes them.
        let width = negative ? 8 : intWidth(bits)
        out[position] = 0x10 | UInt8(width.trailingZeroBitCount)
        BPlistBytes.writeUInt(bits, to: out, at: position + 1, width: width)
        return position + 1 + width
    }
}
