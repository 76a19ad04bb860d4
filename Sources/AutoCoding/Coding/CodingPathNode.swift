/// A coding path as a linked list, so that going one level deeper is O(1); the array form that `Encoder` and
/// `Decoder` expose is built only when someone asks for it (usually an error message).
indirect enum CodingPathNode: Sendable {
    case root
    case node(CodingPathNode, any CodingKey & Sendable)

    /// The path one key deeper.
    @inline(__always)
    func appending(_ key: some CodingKey & Sendable) -> CodingPathNode { .node(self, key) }

    /// The path one index deeper.
    @inline(__always)
    func appending(index: Int) -> CodingPathNode { .node(self, ArchiveCodingKey(intValue: index)) }

    /// The keys from the root.
    var path: [any CodingKey] {
        var keys: [any CodingKey] = []
        var node = self
        while case .node(let parent, let key) = node {
            keys.append(key)
            node = parent
        }
        return keys.reversed()
    }
}

/// A coding key made from a string or an index.
struct ArchiveCodingKey: CodingKey, Sendable {
    private let name: String?
    let intValue: Int?

    /// The key's name; for an index, `Index N`, made only when asked for (paths are built for every element).
    var stringValue: String { name ?? "Index \(intValue ?? 0)" }

    init(_ string: String) {
        name = string
        intValue = nil
    }
    init?(stringValue: String) { self.init(stringValue) }
    init(intValue: Int) {
        name = nil
        self.intValue = intValue
    }
    /// A sendable copy of any key.
    init(_ key: some CodingKey) {
        name = key.stringValue
        intValue = key.intValue
    }
}
