/// Parsed type-encoding strings: a pool of nodes, one per type, linked as siblings and children, so that the
/// reader walks nested arrays and structs with an explicit stack instead of recursion.
struct TypedstreamTypes {
    /// One type of an encoding string.
    struct Node {
        /// The type code: a scalar code, `[` (array), `{` (struct), `(` (union) or `^` (pointer).
        var code: UInt8
        /// Array length, or the number of fields of a struct or union.
        var count: Int
        /// The element (array, pointer) or first field (struct, union) node, or -1.
        var child: Int32
        /// The next type of the same group or struct, or -1.
        var next: Int32
        /// The extent of this type's encoding text in the stream's bytes.
        var start: Int
        var end: Int
        /// The fewest bytes a value of this type takes (saturating), used to bound array counts by the
        /// bytes left before any element is read.
        var minimumSize: Int
    }

    private(set) var nodes: [Node] = []

    subscript(index: Int32) -> Node { nodes[Int(index)] }

    /// The codes of scalar types the reader knows.
    static let scalarCodes: Set<UInt8> = Set("cCsSiIlLqQfdB*%:#@!+".utf8)

    /// Parses `bytes[start..<end]` and returns the index of the first top-level type (the others follow through
    /// `next`). Nesting is limited to `depthLimit`.
    mutating func parse(_ bytes: [UInt8], start: Int, end: Int, depthLimit: Int) throws(ArchiveError) -> Int32 {
        // Each open frame is a container node whose children are still being read, and its last child so far.
        var open: [(node: Int32, last: Int32)] = []
        var first: Int32 = -1
        var lastTop: Int32 = -1
        var i = start
        func fail(_ what: String) -> ArchiveError {
            let text = String(decoding: bytes[start..<end], as: UTF8.self)
            return ArchiveError(.invalidTypeEncoding, "type encoding \(text.debugDescription) at offset \(i): \(what)")
        }
        while true {
            var completed: Int32 = -1
            if i >= end {
                guard open.isEmpty else { throw fail("missing closing bracket") }
                break
            }
            let c = bytes[i]
            let index = Int32(nodes.count)
            switch c {
            case UInt8(ascii: "["):
                let nodeStart = i
                i += 1
                var count = 0
                while i < end, bytes[i] >= 0x30, bytes[i] <= 0x39 {
                    count = count &* 10 &+ Int(bytes[i] - 0x30)
                    guard count <= Int(Int32.max) else { throw fail("array length too large") }
                    i += 1
                }
                guard i > nodeStart + 1 else { throw fail("array without length") }
                nodes.append(Node(code: c, count: count, child: -1, next: -1, start: nodeStart, end: i, minimumSize: 0))
                try push(index, &open, &first, &lastTop, depthLimit, fail)
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "("):
                let nodeStart = i
                i += 1
                // An optional name ends at `=`, before any nested type.
                var j = i
                while j < end, !"{}[]()=".utf8.contains(bytes[j]) { j += 1 }
                if j < end, bytes[j] == UInt8(ascii: "=") { i = j + 1 }
                nodes.append(Node(code: c, count: 0, child: -1, next: -1, start: nodeStart, end: i, minimumSize: 0))
                try push(index, &open, &first, &lastTop, depthLimit, fail)
                continue
            case UInt8(ascii: "^"):
                nodes.append(Node(code: c, count: 1, child: -1, next: -1, start: i, end: i + 1, minimumSize: 0))
                i += 1
                try push(index, &open, &first, &lastTop, depthLimit, fail)
                continue
            case UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: ")"):
                guard let top = open.last else { throw fail("unbalanced \(Character(Unicode.Scalar(c)))") }
                let node = nodes[Int(top.node)]
                let expected: UInt8 =
                    node.code == UInt8(ascii: "[")
                    ? UInt8(ascii: "]") : node.code == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: ")")
                guard node.code != UInt8(ascii: "^"), c == expected else {
                    throw fail("unbalanced \(Character(Unicode.Scalar(c)))")
                }
                if node.code == UInt8(ascii: "[") {
                    guard node.child >= 0, nodes[Int(node.child)].next < 0 else {
                        throw fail("an array needs one element type")
                    }
                    let size = nodes[Int(node.child)].minimumSize.multipliedReportingOverflow(by: node.count)
                    nodes[Int(top.node)].minimumSize = size.overflow ? Int.max : size.partialValue
                } else {
                    var size = 0
                    var count = 0
                    var field = node.child
                    while field >= 0 {
                        size =
                            size.addingReportingOverflow(nodes[Int(field)].minimumSize).overflow
                            ? Int.max : size + nodes[Int(field)].minimumSize
                        count += 1
                        field = nodes[Int(field)].next
                    }
                    nodes[Int(top.node)].minimumSize = size
                    nodes[Int(top.node)].count = count
                }
                i += 1
                nodes[Int(top.node)].end = i
                open.removeLast()
                completed = top.node
            default:
                guard Self.scalarCodes.contains(c) else {
                    throw fail("unknown type code \(Character(Unicode.Scalar(c)).debugDescription)")
                }
                nodes.append(
                    Node(
                        code: c,
                        count: 0,
                        child: -1,
                        next: -1,
                        start: i,
                        end: i + 1,
                        minimumSize: c == UInt8(ascii: "!") ? 0 : 1
                    )
                )
                i += 1
                link(index, &open, &first, &lastTop)
                completed = index
            }
            // A completed type completes the pointers that wait for it.
            while completed >= 0, let top = open.last, nodes[Int(top.node)].code == UInt8(ascii: "^"), top.last >= 0 {
                nodes[Int(top.node)].minimumSize = nodes[Int(top.last)].minimumSize
                nodes[Int(top.node)].end = nodes[Int(top.last)].end
                open.removeLast()
                completed = top.node
            }
        }
        guard first >= 0 else { throw fail("empty") }
        return first
    }

    /// Links a new container node into its parent and opens it.
    private mutating func push(
        _ index: Int32,
        _ open: inout [(node: Int32, last: Int32)],
        _ first: inout Int32,
        _ lastTop: inout Int32,
        _ depthLimit: Int,
        _ fail: (String) -> ArchiveError
    ) throws(ArchiveError) {
        link(index, &open, &first, &lastTop)
        guard open.count < depthLimit else { throw fail("nested deeper than \(depthLimit)") }
        open.append((index, -1))
    }

    /// Appends `index` as the last child of the innermost open container, or as the last top-level type.
    private mutating func link(
        _ index: Int32,
        _ open: inout [(node: Int32, last: Int32)],
        _ first: inout Int32,
        _ lastTop: inout Int32
    ) {
        if let top = open.last {
            if top.last >= 0 { nodes[Int(top.last)].next = index } else { nodes[Int(top.node)].child = index }
            open[open.count - 1].last = index
        } else {
            if lastTop >= 0 { nodes[Int(lastTop)].next = index } else { first = index }
            lastTop = index
        }
    }
}
