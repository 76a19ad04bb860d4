import AutoCodingFast

/// The identity of the heap storage behind a property-list value, which tells a value shared by reference from
/// its copies without comparing contents.
///
/// The native reader builds each shared binary-plist object once, and the graph resolvers and the JSON reader
/// hand out copies of one value for every reference to it: Swift copies share their storage, so one storage
/// reached twice is one shared node. Walkers that expand shared nodes (JSON, `inspect`, equivalence) use this to
/// print or compare each node once. Comparing contents instead would cost as much as the expansion: hashing a
/// 1 MiB string referenced 1,000 times reads 1 GB.
///
/// Only values with heap storage have an identity: strings longer than the 15 UTF-8 bytes Swift stores in place,
/// and non-empty data, arrays and dictionaries. Small values are cheap to repeat. An identity is only meaningful
/// while the value it came from is alive (the walker holds the whole tree, so addresses are not reused).
package struct StorageIdentity: Hashable {
    private let address: UInt
    private let secondAddress: UInt
    private let count: Int

    private init?(_ address: UnsafeRawPointer?, _ second: UnsafeRawPointer? = nil, count: Int) {
        // Empty values may all point at one shared empty buffer: they are not one node.
        guard count > 0, let address else { return nil }
        self.address = UInt(bitPattern: address)
        self.secondAddress = second.map { UInt(bitPattern: $0) } ?? 0
        self.count = count
    }

    /// The identity of `value`'s storage, or nil when it has none worth tracking.
    package init?(_ value: ArchiveValue) {
        switch value {
        case .string(let s):
            // 15 bytes or fewer are stored in the value itself; the pointer would be to a temporary copy.
            guard s.utf8.count > 15,
                let address = s.utf8.withContiguousStorageIfAvailable({ UnsafeRawPointer($0.baseAddress) })
            else { return nil }
            self.init(address, count: s.utf8.count)
        case .data(let bytes):
            self.init(bytes.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }, count: bytes.count)
        case .array(let elements):
            self.init(elements.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }, count: elements.count)
        case .dictionary(let entries):
            // Keys and values are separate arrays; both must be the same storage.
            self.init(
                entries.keys.elements.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) },
                entries.values.elements.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) },
                count: entries.count)
        default:
            return nil
        }
    }

    /// The identity of an in-place graph array's storage (nil when empty).
    package init?(_ elements: [ArchivedValue]) {
        self.init(elements.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }, count: elements.count)
    }
}
