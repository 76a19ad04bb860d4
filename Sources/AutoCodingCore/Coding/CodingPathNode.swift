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
/// One enum payload (17 bytes) rather than a `String?` and an `Int?` (25): it fits an existential's inline
/// buffer, so a path node costs one allocation, not two.
struct ArchiveCodingKey: CodingKey, Sendable {
    private enum Storage: Sendable {
        case name(String)
        case index(Int)
        case both(String, Int)
    }
    private let storage: Storage

    /// The key's name; for an index, `Index N`, made only when asked for (paths are built for every element).
    var stringValue: String {
        switch storage {
        case .name(let name), .both(let name, _): name
        case .index(let index): "Index \(index)"
        }
    }

    var intValue: Int? {
        switch storage {
        case .name: nil
        case .index(let index), .both(_, let index): index
        }
    }

    init(_ string: String) { storage = .name(string) }
    init?(stringValue: String) { self.init(stringValue) }
    init(intValue: Int) { storage = .index(intValue) }
    /// A sendable copy of any key.
    init(_ key: some CodingKey) {
        if let index = key.intValue {
            storage = .both(key.stringValue, index)
        } else {
            storage = .name(key.stringValue)
        }
    }
}
