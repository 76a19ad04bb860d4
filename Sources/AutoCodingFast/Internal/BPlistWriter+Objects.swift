extension BPlistWriter {
    /// A numbered object as the fill pass writes it. Plain bits only: a string or data object is an index into
    /// the writer's `texts` or `blobs`, so the writer's largest table is copied and freed without reference
    /// counting (a `Flat` that held its `ArchiveValue` cost a retain and a release per object at each copy and
    /// an element-wise destroy at the end, 8 % of a W1 encode). Sixteen bytes a slot: a container's count is
    /// held in 32 bits (it has a four-byte reference slot per element, so 2³² elements would be 16 GiB of
    /// references first), where a second `Int` made the slot 24 bytes: half as much again of fresh memory for
    /// the kernel to clear (about two million objects for W1's 100,000 people).
    enum Flat: Equatable {
        /// Written in 1, 2, 4 or 8 bytes; 8 when negative.
        case integer(Int64)
        /// Above `Int64.max`: written as a 16-byte integer.
        case largeInteger(UInt64)
        /// The value's bit pattern.
        case real(UInt64)
        /// The bit pattern of the seconds since 2001.
        case date(UInt64)
        case bool(Bool)
        case uid(UInt32)
        /// `texts[index]`, 7-bit ASCII (written as its UTF-8 bytes) or not (written as UTF-16).
        case string(index: Int, ascii: Bool)
        /// `blobs[index]`.
        case data(index: Int)
        /// The child numbers at `references[start..<start + count]`.
        case array(start: Int, count: UInt32)
        /// Keys at `references[start..<start + count]`, values after them.
        case dictionary(start: Int, count: UInt32)
    }

    /// The containers' child object numbers, four bytes each, in one buffer the writer owns: half the memory of
    /// `[Int]` for the writer's largest table (about 85 million references for a million people, written into
    /// fresh pages the kernel clears), and written without an array's uniqueness and bounds checks at each of
    /// those stores. An object number cannot reach 2³²: the writer keeps a `Flat` of 17 bytes or more per
    /// object, so that many objects would hold 64 GiB first.
    ///
    /// Slots are handed out by ``append(_:)`` and each is set once before the fill pass reads it; every index
    /// used is one ``append(_:)`` returned plus less than what it asked for.
    final class References {
        private var base: UnsafeMutablePointer<UInt32>
        private var capacity: Int
        /// The number of slots handed out.
        private(set) var count = 0

        /// Room for `capacity` slots before the buffer grows.
        init(capacity: Int) {
            self.capacity = max(capacity, 64)
            base = .allocate(capacity: self.capacity)
            HugePages.advise(UnsafeMutableRawPointer(base), byteCount: self.capacity * 4)
        }

        deinit { base.deallocate() }

        /// The slot at `i`, below ``count``.
        subscript(i: Int) -> Int {
            @inline(__always) get {
                assert(i >= 0 && i < count)
                return Int(base[i])
            }
            @inline(__always) set {
                assert(i >= 0 && i < count)
                base[i] = UInt32(truncatingIfNeeded: newValue)
            }
        }

        /// Hands out `n` slots for the caller to set and returns the first.
        @inline(__always)
        func append(_ n: Int) -> Int {
            let start = count
            if n > capacity - start { grow(to: start + n) }
            count = start + n
            return start
        }

        private func grow(to needed: Int) {
            let newCapacity = max(needed, 2 * capacity)
            let newBase = UnsafeMutablePointer<UInt32>.allocate(capacity: newCapacity)
            HugePages.advise(UnsafeMutableRawPointer(newBase), byteCount: newCapacity * 4)
            newBase.update(from: base, count: count)
            base.deallocate()
            base = newBase
            capacity = newCapacity
        }

        /// Writes `references[start..<start + count]` big-endian, `width` bytes each, at `position` of `out`;
        /// returns the position after them.
        func write(
            _ start: Int, count: Int, width: Int, to out: UnsafeMutableRawBufferPointer, at position: Int
        ) -> Int {
            precondition(start >= 0 && count >= 0 && start + count <= self.count)
            precondition(position >= 0 && position + count * width <= out.count)
            guard let target = out.baseAddress?.advanced(by: position) else { return position }
            let source = base + start
            // One loop per width, so the width is not decided again at each reference.
            switch width {
            case 1:
                for i in 0..<count {
                    target.storeBytes(of: UInt8(truncatingIfNeeded: source[i]), toByteOffset: i, as: UInt8.self)
                }
            case 2:
                for i in 0..<count {
                    let reference = UInt16(truncatingIfNeeded: source[i]).bigEndian
                    target.storeBytes(of: reference, toByteOffset: 2 * i, as: UInt16.self)
                }
            case 4:
                for i in 0..<count { target.storeBytes(of: source[i].bigEndian, toByteOffset: 4 * i, as: UInt32.self) }
            default:
                for i in 0..<count {
                    target.storeBytes(of: UInt64(source[i]).bigEndian, toByteOffset: 8 * i, as: UInt64.self)
                }
            }
            return position + count * width
        }
    }
}
