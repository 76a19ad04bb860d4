#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Elements in one allocation of their own, which another buffer can take whole without copying them.
///
/// The encoders write each object's fields into a scratch list and then move them into the archive's table:
/// with arrays, that move was a copy (a retain per key and value, `append(contentsOf:)`) followed by a
/// destruction (a release per key and value, `removeAll(keepingCapacity:)`), 7 % of an encode. Here the
/// elements are moved bitwise (``moveAppend(from:)``), and the source keeps its storage for the next object.
/// Noncopyable, so that no two values share the allocation.
///
/// The storage is `malloc`'s and grows with `realloc` until it reaches ``AnonymousMemory/threshold`` bytes, then
/// is a mapping of its own that grows by moving its pages (the table of a 100,000-person encode doubles its way to
/// tens of megabytes, which `realloc` copied). Both move the elements bitwise, as `moveInitialize` would:
/// `Element` must be bitwise takable (the strings and archive values kept here are; a type holding a weak
/// reference would not be).
struct MovableBuffer<Element>: ~Copyable {
    private var base: UnsafeMutablePointer<Element>?
    private(set) var count = 0
    private var capacity = 0
    /// Whether the storage is an ``AnonymousMemory`` mapping rather than `malloc`'s.
    private var isMapped = false

    init() {}

    // What is left is destroyed here by `deinitialize(count:)`, generic code that calls the runtime's
    // `swift_arrayDestroy`; owners of large buffers empty them first with ``removeAll()``.
    deinit {
        guard let base else { return }
        base.deinitialize(count: count)
        if isMapped { AnonymousMemory.unmap(base, capacity * MemoryLayout<Element>.stride) } else { free(base) }
    }

    /// The element at `index` (below ``count``: indices come from this package's own loops, never from input).
    subscript(index: Int) -> Element {
        get {
            precondition(index >= 0 && index < count, "MovableBuffer index out of range")
            return base.unsafelyUnwrapped[index]
        }
        set {
            precondition(index >= 0 && index < count, "MovableBuffer index out of range")
            base.unsafelyUnwrapped[index] = newValue
        }
    }

    /// Appends `element`, doubling the storage when it is full.
    mutating func append(_ element: consuming Element) {
        if count == capacity { grow(minimum: count + 1) }
        (base.unsafelyUnwrapped + count).initialize(to: element)
        count += 1
    }

    /// Moves every element of `other` to the end of this buffer, in order; `other` is left empty, with its storage.
    mutating func moveAppend(from other: inout MovableBuffer<Element>) {
        guard other.count > 0, let source = other.base else { return }
        if capacity - count < other.count { grow(minimum: count + other.count) }
        (base.unsafelyUnwrapped + count).moveInitialize(from: source, count: other.count)
        count += other.count
        other.count = 0
    }

    /// Room for `minimumCapacity` elements in all; growing at least doubles the storage, so that many small
    /// reservations stay linear.
    mutating func reserveCapacity(_ minimumCapacity: Int) {
        if minimumCapacity > capacity { grow(minimum: minimumCapacity) }
    }

    /// Removes the element at `index`, moving the ones after it down.
    mutating func remove(at index: Int) {
        precondition(index >= 0 && index < count, "MovableBuffer index out of range")
        let base = base.unsafelyUnwrapped
        (base + index).deinitialize(count: 1)
        (base + index).moveInitialize(from: base + index + 1, count: count - index - 1)
        count -= 1
    }

    /// Removes the elements from `index` (at most ``count``) on, and keeps the storage.
    mutating func removeSuffix(from index: Int) {
        precondition(index >= 0 && index <= count, "MovableBuffer index out of range")
        guard let base else { return }
        (base + index).deinitialize(count: count - index)
        count = index
    }

    /// Removes every element and keeps the storage. Each element is moved out and dropped, so that a caller whose
    /// `Element` is concrete destroys it inline; `deinitialize(count:)` would call the runtime's
    /// `swift_arrayDestroy`, a value-witness call per element (18 M instructions for a 10,000-person table).
    mutating func removeAll() {
        guard let base else { return }
        for index in 0..<count { _ = (base + index).move() }
        count = 0
    }

    /// The elements, read in place.
    func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<Element>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: base, count: count))
    }

    private mutating func grow(minimum: Int) {
        let newCapacity = max(minimum, 2 * capacity, 8)
        let byteCount = newCapacity * MemoryLayout<Element>.stride
        // malloc's alignment (16 bytes) covers the elements kept here; a mapping is page-aligned.
        assert(MemoryLayout<Element>.alignment <= 16)
        let storage: UnsafeMutableRawPointer?
        if isMapped, let base {
            storage = AnonymousMemory.grow(base, from: capacity * MemoryLayout<Element>.stride, to: byteCount)
        } else if byteCount >= AnonymousMemory.threshold {
            storage = AnonymousMemory.map(byteCount)
            if let storage {
                if let base {
                    storage.copyMemory(from: base, byteCount: count * MemoryLayout<Element>.stride)
                    free(base)
                }
                isMapped = true
            }
        } else {
            storage = realloc(base, byteCount)
        }
        guard let storage else { Self.outOfMemory(byteCount) }
        if isMapped {
            HugePages.adviseMapping(storage, byteCount: byteCount)
        } else {
            HugePages.advise(storage, byteCount: byteCount)
        }
        base = storage.bindMemory(to: Element.self, capacity: newCapacity)
        capacity = newCapacity
    }

    /// Traps as Swift's own allocations do when memory is exhausted (not an input check: the buffers hold
    /// what an encoder was given, and grow only by doubling).
    private static func outOfMemory(_ byteCount: Int) -> Never {
        fatalError("MovableBuffer: cannot allocate \(byteCount) bytes")
    }
}
