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
    var stringValue: String
    var intValue: Int?
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) {
        stringValue = "Index \(intValue)"
        self.intValue = intValue
    }
    /// A sendable copy of any key.
    init(_ key: some CodingKey) {
        stringValue = key.stringValue
        intValue = key.intValue
    }
}
