/// A coding path as a linked list, so that going one level deeper is O(1); the array form that `Encoder` and
/// `Decoder` expose is built only when someone asks for it (usually an error message).
enum CodingPathNode: Sendable {
    case root
    /// The root of an object coded from a worklist, `$objects[uid]`: not boxed, and its key's text is made only
    /// when a path is asked for (one such root is made per object).
    case object(UInt32)
    indirect case node(CodingPathNode, any CodingKey & Sendable)

    /// The path one key deeper.
    @inline(__always)
    func appending(_ key: some CodingKey & Sendable) -> CodingPathNode { .node(self, key) }

    /// The path one index deeper.
    @inline(__always)
    func appending(index: Int) -> CodingPathNode { .node(self, ArchiveCodingKey(intValue: index)) }

    /// Whether this is the path of the decode's root value (no key at all).
    var isRoot: Bool {
        if case .root = self { return true }
        return false
    }

    /// The keys from the root.
    var path: [any CodingKey] {
        var keys: [any CodingKey] = []
        var node = self
        while true {
            switch node {
            case .root: return keys.reversed()
            case .object(let uid): return [ArchiveCodingKey("$objects[\(uid)]")] + keys.reversed()
            case .node(let parent, let key):
                keys.append(key)
                node = parent
            }
        }
    }
}

/// A coding key made from a string or an index.
///
/// 24 bytes, so that it fits an existential's inline buffer: a path node holds its key as
/// `any CodingKey & Sendable`, and a larger key (an enum of a name, an index or both took 25) was a second
/// allocation for every path node made.
struct ArchiveCodingKey: CodingKey, Sendable {
    /// The name; nil for a key made from an index alone.
    private let name: String?
    /// The index of an index key; of a named key, ``noIndex`` for none.
    private let index: Int

    /// The index a named key without one holds. (So a named key copied from another coder's key whose index is
    /// `Int.min` has no index here; an index key keeps any index.)
    private static let noIndex = Int.min

    /// The key's name; for an index, `Index N`, made only when asked for (paths are built for every element).
    var stringValue: String { name ?? "Index \(index)" }

    var intValue: Int? { name == nil || index != Self.noIndex ? index : nil }

    init(_ string: String) { (name, index) = (string, Self.noIndex) }
    init?(stringValue: String) { self.init(stringValue) }
    init(intValue: Int) { (name, index) = (nil, intValue) }
    /// A sendable copy of any key.
    init(_ key: some CodingKey) { (name, index) = (key.stringValue, key.intValue ?? Self.noIndex) }
}
