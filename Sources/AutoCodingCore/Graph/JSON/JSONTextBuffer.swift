/// The bytes of a JSON text being written: one allocation that grows by doubling. An append checks the room left
/// and copies, without the uniqueness check and the generic copy that an array's append makes each time (most of
/// the cost of writing a short key such as `"name":`).
///
/// Not thread-safe: one writer owns it. (Its variables skip the runtime's exclusivity checks, which would cost
/// more than the appends they guard.)
package final class JSONTextBuffer {
    @exclusivity(unchecked) private var base: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private var capacity: Int
    /// The number of bytes written.
    @exclusivity(unchecked) package private(set) var count = 0

    /// An empty buffer with room for `capacity` bytes before it first grows.
    package init(capacity: Int = 4096) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// The last byte written, if any.
    var last: UInt8? { count > 0 ? base[count - 1] : nil }

    /// The bytes written so far.
    package var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    /// The text written so far. The writers put only whole UTF-8 sequences in it (a Swift string's, or ASCII);
    /// the decoding still checks, so that a wrong writer gets repaired text, never an invalid `String`.
    var text: String { String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self) }

    /// Appends one byte.
    @inline(__always)
    package func append(_ byte: UInt8) {
        if count == capacity { grow(toHold: 1) }
        base[count] = byte
        count += 1
    }

    /// Appends `bytes`.
    @inline(__always)
    func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        if capacity - count < bytes.count { grow(toHold: bytes.count) }
        (base + count).initialize(from: source, count: bytes.count)
        count += bytes.count
    }

    /// Appends the UTF-8 bytes of `literal`.
    @inline(__always)
    func append(_ literal: StaticString) {
        literal.withUTF8Buffer { append($0) }
    }

    /// Appends `length` bytes that `write` puts into the buffer it is given, every one of them.
    @inline(__always)
    func append(length: Int, _ write: (UnsafeMutableBufferPointer<UInt8>) -> Void) {
        if capacity - count < length { grow(toHold: length) }
        write(UnsafeMutableBufferPointer(start: base + count, count: length))
        count += length
    }

    @inline(never)
    private func grow(toHold extra: Int) {
        // The text is in memory, so its length plus the next piece cannot overflow; doubling is capped instead.
        let needed = count + extra
        let larger = max(needed, capacity > Int.max / 2 ? needed : capacity * 2)
        let memory = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        memory.initialize(from: base, count: count)
        base.deallocate()
        base = memory
        capacity = larger
    }
}
