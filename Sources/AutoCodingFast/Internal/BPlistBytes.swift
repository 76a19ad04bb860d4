/// Big-endian reads and writes over raw bytes: the only place the binary-plist code does pointer arithmetic.
///
/// Callers check bounds first (the index validates every extent once); these helpers trust them.
@usableFromInline
enum BPlistBytes {
    /// Reads an unsigned big-endian integer of `width` bytes (1...8) at `offset`.
    @inlinable @inline(__always)
    static func readUInt(_ bytes: UnsafeRawBufferPointer, at offset: Int, width: Int) -> UInt64 {
        switch width {
        case 1: return UInt64(bytes[offset])
        case 2: return UInt64(UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
        case 4: return UInt64(UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        case 8: return UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        default:
            var value: UInt64 = 0
            for i in 0..<width { value = value << 8 | UInt64(bytes[offset + i]) }
            return value
        }
    }

    /// The object number in reference slot `i` of a container whose references start at `offset`, `width` bytes
    /// each: an array's elements, or a dictionary's keys (slots `0..<n`) then its values (`n..<2n`).
    @inlinable @inline(__always)
    static func reference(_ bytes: UnsafeRawBufferPointer, at offset: Int, slot i: Int, width: Int) -> Int {
        Int(truncatingIfNeeded: readUInt(bytes, at: offset + i * width, width: width))
    }

    /// The largest of `count` unsigned big-endian integers of `width` bytes (1...8) stored from `offset` (0 for
    /// none): a container's references checked against the object count in one comparison. One loop per width,
    /// without a branch per element, so the compiler can vectorize it (wrapping arithmetic: the caller validated
    /// the extent, and an overflow check per element would keep it from vectorizing).
    @inline(__always)
    static func maxUInt(_ bytes: UnsafeRawBufferPointer, from offset: Int, count: Int, width: Int) -> UInt64 {
        switch width {
        case 1:
            var largest: UInt8 = 0
            for i in 0..<count { largest = max(largest, bytes[offset &+ i]) }
            return UInt64(largest)
        case 2:
            var largest: UInt16 = 0
            for i in 0..<count {
                largest = max(largest, UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: offset &+ 2 &* i, as: UInt16.self)))
            }
            return UInt64(largest)
        case 4:
            var largest: UInt32 = 0
            for i in 0..<count {
                largest = max(largest, UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset &+ 4 &* i, as: UInt32.self)))
            }
            return UInt64(largest)
        default:
            var largest: UInt64 = 0
            for i in 0..<count { largest = max(largest, readUInt(bytes, at: offset + i * width, width: width)) }
            return largest
        }
    }

    /// Writes `value` big-endian in `width` bytes (1...8) at `offset`.
    @inline(__always)
    static func writeUInt(_ value: UInt64, to bytes: UnsafeMutableRawBufferPointer, at offset: Int, width: Int) {
        switch width {
        case 1: bytes[offset] = UInt8(truncatingIfNeeded: value)
        case 2: bytes.storeBytes(of: UInt16(truncatingIfNeeded: value).bigEndian, toByteOffset: offset, as: UInt16.self)
        case 4: bytes.storeBytes(of: UInt32(truncatingIfNeeded: value).bigEndian, toByteOffset: offset, as: UInt32.self)
        case 8: bytes.storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt64.self)
        default:
            for i in 0..<width { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(width - 1 - i))) }
        }
    }

    /// Whether `bytes[start..<start + other.count]` equals `other`; the range must be in bounds.
    @inline(__always)
    static func equal(_ bytes: UnsafeRawBufferPointer, at start: Int, _ other: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let b = other.baseAddress else { return other.isEmpty }
        return equal(bytes, at: start, UnsafeRawBufferPointer(start: b, count: other.count), at: 0, count: other.count)
    }

    /// Whether `count` bytes of `bytes` from `start` equal `count` bytes of `other` from `otherStart`; both
    /// ranges must be in bounds.
    @inline(__always)
    static func equal(
        _ bytes: UnsafeRawBufferPointer, at start: Int, _ other: UnsafeRawBufferPointer, at otherStart: Int, count: Int
    ) -> Bool {
        guard let a = bytes.baseAddress.map({ $0 + start }), let b = other.baseAddress.map({ $0 + otherStart }) else {
            return count == 0
        }
        guard count >= 8 else {
            var i = 0
            while i < count {
                guard a.load(fromByteOffset: i, as: UInt8.self) == b.load(fromByteOffset: i, as: UInt8.self) else {
                    return false
                }
                i += 1
            }
            return true
        }
        var i = 0
        while i + 8 <= count {
            let x = a.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            guard x == b.loadUnaligned(fromByteOffset: i, as: UInt64.self) else { return false }
            i += 8
        }
        // The tail as the last 8 bytes, overlapping what was compared.
        return i == count
            || a.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
                == b.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
    }

    /// Whether every byte of `bytes[start..<start+count]` is 7-bit ASCII.
    @inline(__always)
    static func isASCII(_ bytes: UnsafeRawBufferPointer, from start: Int, count: Int) -> Bool {
        var i = start
        let end = start + count
        while i + 8 <= end {
            if bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            i += 8
        }
        // A tail of 1 to 7 bytes with 8 readable: one load, the bytes past the string masked off (most strings
        // are that short).
        if i < end, i + 8 <= bytes.count {
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            let mask: UInt64 = (1 << UInt64(8 * (end - i))) - 1
            return word & mask & 0x8080_8080_8080_8080 == 0
        }
        while i < end {
            if bytes[i] & 0x80 != 0 { return false }
            i += 1
        }
        return true
    }

    /// The index of the first unpaired surrogate among `count` big-endian UTF-16 units at `start`, or nil.
    static func firstUnpairedSurrogate(_ bytes: UnsafeRawBufferPointer, from start: Int, count: Int) -> Int? {
        var i = 0
        while i < count {
            let unit = UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: start + 2 * i, as: UInt16.self))
            if unit & 0xF800 == 0xD800 {
                // A high surrogate must be followed by a low one; a low one may not come first.
                guard unit < 0xDC00, i + 1 < count else { return i }
                let next = UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: start + 2 * i + 2, as: UInt16.self))
                guard next & 0xFC00 == 0xDC00 else { return i }
                i += 2
            } else {
                i += 1
            }
        }
        return nil
    }
}

extension Array where Element == UInt8 {
    /// `withUnsafeBytes` with a typed error: the standard library's version only rethrows `any Error`.
    @inline(__always)
    func withArchiveBytes<R>(_ body: (UnsafeRawBufferPointer) throws(ArchiveError) -> R) throws(ArchiveError) -> R {
        let result: Result<R, ArchiveError> = withUnsafeBytes { raw in
            Result { () throws(ArchiveError) in try body(raw) }
        }
        return try result.get()
    }
}
