#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Comparing strings as an archive does: by their exact bytes.
///
/// `NSString` keys and strings are equal when their code units are (`isEqualToString:`), while Swift's `==` also
/// merges canonically equivalent strings (`"caf\u{E9}"` and `"cafe\u{301}"`, even `"K"` and the Kelvin sign), which
/// an archive keeps apart: an encoder that found a field's key with `==` wrote one field for two keys. The same
/// storage or equal small-string bits decide without reading the bytes.
package enum StringBytes {
    /// Whether `a` and `b` have the same UTF-8 bytes.
    package static func equal(_ a: String, _ b: String) -> Bool {
        if identical(a, b) { return true }
        guard a.utf8.count == b.utf8.count else { return false }
        return compare(a, b)
    }

    /// Whether two strings are the same value bit for bit: the same storage, or the same small-string bytes. Then
    /// they have the same bytes; the converse need not hold. A key written from a literal is identical at every
    /// use.
    @inline(__always)
    static func identical(_ a: String, _ b: String) -> Bool {
        // Two words on 64-bit platforms; elsewhere the byte comparison alone decides.
        guard MemoryLayout<String>.size == MemoryLayout<(UInt64, UInt64)>.size else { return false }
        return unsafeBitCast(a, to: (UInt64, UInt64).self) == unsafeBitCast(b, to: (UInt64, UInt64).self)
    }

    /// Whether `a` has exactly the UTF-8 bytes `b`.
    static func equal(_ a: String, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.utf8.count == b.count else { return false }
        return withUTF8(a) { x in
            guard let p = x.baseAddress, let q = b.baseAddress else { return true }  // Both empty.
            return memcmp(p, q, x.count) == 0
        }
    }

    /// The bytes of two strings of one length, compared with `memcmp` over contiguous buffers (the generic
    /// `utf8.elementsEqual` walk was 10 % of a W1 encode).
    private static func compare(_ a: String, _ b: String) -> Bool {
        withUTF8(b) { equal(a, $0) }
    }

    /// Runs `body` over the UTF-8 bytes of `s`, read in place: `withUTF8` on a copy of the string (it is
    /// `mutating`) costs a retain and a release of its storage, twice per string an encode writes. A string
    /// without contiguous UTF-8 (bridged from `NSString`) is made contiguous first.
    @inline(__always)
    static func withUTF8<R>(_ s: String, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        if let result = try s.utf8.withContiguousStorageIfAvailable({ try body(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        var contiguous = s
        return try contiguous.withUTF8 { try body(UnsafeRawBufferPointer($0)) }
    }
}
