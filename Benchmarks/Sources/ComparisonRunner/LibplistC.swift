import LibplistFloor

/// libplist's C API through the `LibplistFloor` C target, linked with plist-2.0: the parse, the walk of every node
/// with libplist's iterators (strings and data read by pointer, keys not copied), `plist_to_bin` and the frees all
/// run in C, as a C program makes them; this is only the Swift face of those calls.
enum LibplistC {
    /// The library and API the runner was compiled against, for the report's machine line.
    static let describe = "libplist-2.0 (linked, API \(String(cString: LibplistFloor_api_version())))"

    /// What the walk saw: nodes visited, a checksum of the values read, and the root's `$objects` count (-1: none).
    struct Walk {
        var nodes: Int
        var checksum: UInt64
        var objects: Int
    }

    /// The C floor of a read: `plist_from_bin` (or `plist_from_xml`), a full walk, `plist_free`; nil when libplist
    /// rejects the bytes.
    static func parseWalkFree(_ bytes: [UInt8]) -> Walk? {
        // The C calls alone (no tree object): this is the floor, timed as a C program would run it.
        guard let tree = bytes.withUnsafeBufferPointer({ LibplistFloor_parse($0.baseAddress, $0.count) }) else { return nil }
        let walk = LibplistFloor_walk(tree)
        LibplistFloor_free(tree)
        return Walk(nodes: Int(walk.nodes), checksum: walk.checksum, objects: Int(walk.objects))
    }

    /// `plist_to_bin` of a parsed tree; returns the output's length (the buffer is freed).
    static func writeBinary(_ tree: LibplistTree) -> Int { LibplistFloor_write(tree.node) }

    /// `plist_to_bin` of a parsed tree, the bytes kept (for checks).
    static func writeBinaryBytes(_ tree: LibplistTree) -> [UInt8] {
        var length = 0
        guard let buffer = LibplistFloor_write_bytes(tree.node, &length) else { return [] }
        defer { LibplistFloor_free_buffer(buffer) }
        return Array(UnsafeBufferPointer(start: buffer, count: length))
    }
}

/// A tree parsed by libplist (binary or XML), freed when the last reference goes.
final class LibplistTree {
    let node: UnsafeMutableRawPointer

    init?(_ bytes: [UInt8]) {
        guard let node = bytes.withUnsafeBufferPointer({ LibplistFloor_parse($0.baseAddress, $0.count) }) else { return nil }
        self.node = node
    }

    deinit { LibplistFloor_free(node) }
}
