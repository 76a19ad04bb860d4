extension BPlistIndex.Record {
    /// The nodes a dictionary key counts in an expanded size, at each reference: 1, plus 1 per 4 units of a
    /// UTF-16 key or per 128 bytes of an ASCII key. The one rule for keys of every expansion budget.
    ///
    /// A reader that builds dictionaries hashes each key at each dictionary that holds it, and a binary plist
    /// may store one long key and refer to it from every dictionary: counted as 1, such keys cost references ×
    /// length, the square of the input. Counted by length, they cost what hashing them costs against a node
    /// (30-60 ns to build and insert): Swift hashes a non-ASCII string at 5-8 ns a unit, as it normalizes it,
    /// and an ASCII one at about 0.2 ns a byte. Keys written by archivers are short, and count 1.
    @inline(__always) var keyNodes: UInt32 { 1 + (kind == .utf16String ? count >> 2 : count >> 7) }
}

/// Preparing a validated binary plist for a tree-building parser (libplist).
extension BPlistIndex {
    /// Throws `limitExceeded` if a tree-building parser would make more than `limit` nodes from this plist.
    ///
    /// Binary plists share objects by reference; parsers that build a tree (libplist, and any XML output)
    /// copy a shared object once per reference. A chain of 30 arrays that each refer twice to the next fits in
    /// under 250 bytes and expands to 2³¹ nodes, which libplist would try to allocate (about 1 GB and
    /// exponential time, since libplist 2.2 re-parses each reference).
    ///
    /// The count follows the parser: a scalar is 1 node, a container is 1 plus the expanded size of each
    /// child, and each dictionary key counts as ``Record/keyNodes`` (1, more for a long key). Only what the top
    /// object reaches is counted. It is computed in time linear in the references, with one memoized size per
    /// object, by an iterative post-order walk (the index is validated acyclic, so no recursion and no cycle
    /// checks are needed), and with saturating arithmetic, so a count beyond `Int.max` still compares correctly.
    ///
    /// The same walk visits every object libplist would parse, so it also rejects, naming the object, what
    /// libplist would misread rather than return a wrong value (see ``checkLibplistReads(_:asKey:in:)``).
    ///
    /// With `forLibplist` false only the size is checked: the native reader builds shared values once, but
    /// whoever walks the resulting tree (a writer, `==`, a graph) pays the expanded size.
    ///
    /// Returns the containers the top reaches more than once (shared in place: a graph builder keeps each one
    /// value); usually none.
    @discardableResult
    func checkExpandedSize(
        in bytes: UnsafeRawBufferPointer, limit: Int, forLibplist: Bool = true
    ) throws(ArchiveError) -> Set<Int> {
        let top = topObject
        guard records[top].kind.isContainer else {
            if forLibplist { try checkLibplistReads(top, asKey: false, in: bytes) }
            return []
        }
        let limit = max(limit, 1)
        // Measured with the container check when it reached no container twice: within the limit, the walk
        // below has nothing to find, and no container is shared. Past it, the walk finds the container that
        // passes it first, which the error names.
        if !forLibplist, let size = expandedTopSize, size < .max, Int(size) <= limit { return [] }
        // Sizes up to the limit, and a bit for "reached again": 4 bytes an object under the default limits.
        if limit < Int(UInt32.max >> 1) {
            var memo = [UInt32](repeating: 0, count: records.count)
            return try expandedSize(of: top, in: bytes, limit: limit, forLibplist: forLibplist, memo: &memo)
        }
        var memo = [UInt64](repeating: 0, count: records.count)
        return try expandedSize(of: top, in: bytes, limit: limit, forLibplist: forLibplist, memo: &memo)
    }

    /// The walk of ``checkExpandedSize(in:limit:forLibplist:)``: `memo` holds, for each object whose walk has
    /// finished, its expanded size (leaves: 1, and only when checked for libplist), with the top bit set once
    /// it is reached again.
    private func expandedSize<Size: FixedWidthInteger & UnsignedInteger>(
        of top: Int, in bytes: UnsafeRawBufferPointer, limit: Int, forLibplist: Bool, memo: inout [Size]
    ) throws(ArchiveError) -> Set<Int> {
        let reachedAgain: Size = 1 << (Size.bitWidth - 1)
        var shared = Set<Int>()
        var stack: [(object: Int, next: Int, size: Int)] = [(top, 0, 1)]
        // UTF-16 strings already checked as keys (a string can be a value in one place and a key in another).
        var checkedUTF16Keys = Set<Int>()
        let refSize = trailer.objectRefSize

        while let frame = stack.last {
            let record = records[frame.object]
            let keys = record.kind == .dictionary ? Int(record.count) : 0
            let refs = keys + Int(record.count)
            // The container's references in one inner loop; the stack is touched again only to descend into a
            // child container or to finish.
            var next = frame.next
            var size = frame.size
            var descend = -1
            while next < refs {
                let child = BPlistBytes.reference(bytes, at: record.offset, slot: next, width: refSize)
                let kind = records[child].kind
                let isKey = next < keys
                if forLibplist && isKey && kind == .utf16String && !checkedUTF16Keys.contains(child) {
                    // A UTF-16 string holding U+0000 is fine as a value but not as a key.
                    try checkLibplistReads(child, asKey: true, in: bytes)
                    checkedUTF16Keys.insert(child)
                }
                next += 1
                let childSize: Int
                if kind.isContainer {
                    let known = memo[child]
                    guard known != 0 else {
                        descend = child
                        break
                    }
                    if known & reachedAgain == 0 {
                        memo[child] = known | reachedAgain
                        shared.insert(child)
                    }
                    childSize = Int(known & ~reachedAgain)
                } else {
                    if forLibplist && memo[child] == 0 {
                        try checkLibplistReads(child, asKey: false, in: bytes)
                        memo[child] = 1
                    }
                    childSize = isKey ? Int(records[child].keyNodes) : 1
                }
                let (sum, overflow) = size.addingReportingOverflow(childSize)
                size = overflow ? Int.max : sum
                guard size <= limit else { throw Self.expansionError(frame.object, limit) }
            }
            stack[stack.count - 1].next = next
            stack[stack.count - 1].size = size
            if descend >= 0 {
                stack.append((descend, 0, 1))
                continue
            }
            // Finished: record the size and add it to the parent, if any.
            stack.removeLast()
            memo[frame.object] = Size(size)
            guard !stack.isEmpty else { return shared }
            let parent = stack.count - 1
            let (sum, overflow) = stack[parent].size.addingReportingOverflow(size)
            stack[parent].size = overflow ? Int.max : sum
            guard stack[parent].size <= limit else { throw Self.expansionError(stack[parent].object, limit) }
        }
        return shared
    }

    private static func expansionError(_ object: Int, _ limit: Int) -> ArchiveError {
        ArchiveError(
            .limitExceeded,
            "object \(object) expands to more than \(limit) nodes (shared references copied, keys counted by length; maxExpandedNodeCount, maxExpandedNodesPerInputByte)"
        )
    }

    /// Throws if libplist (2.2 ... 2.7, src/bplist.c) would misread the scalar `object`:
    ///
    /// - the null marker 0x00, which plists never hold: `unexpectedType`, as the native reader reports it
    ///   (libplist 2.2 rejects the file, 2.3+ returns a `PLIST_NULL` node);
    /// - an ASCII string holding U+0000, which `parse_string_node` cuts there (`length = strlen(...)`), and
    ///   a key holding U+0000 in either encoding, which `plist_dict_next_item` copies with `strdup`;
    /// - an empty UTF-16 string, which `plist_utf16be_to_utf8` refuses (`len <= 0`), failing the whole file;
    /// - a negative 16-byte integer, of which `parse_uint_node` keeps only the low 8 bytes, so that it reads
    ///   as an unsigned value above `Int64.max`.
    ///
    /// The last three are `libplistFailure`: valid files that only the native reader reads correctly.
    func checkLibplistReads(_ object: Int, asKey: Bool, in bytes: UnsafeRawBufferPointer) throws(ArchiveError) {
        let record = records[object]
        // A string's bytes, read only for strings (other records' counts are widths or, for a UID, its value).
        var payload: UnsafeRawBufferPointer {
            UnsafeRawBufferPointer(
                rebasing: bytes[record.offset..<record.offset + Int(record.count) * (record.kind == .utf16String ? 2 : 1)]
            )
        }
        switch record.kind {
        case .null:
            throw ArchiveError.unexpectedType(
                "object \(object) is the bplist null marker 0x00, which plists never hold"
            )
        case .asciiString where payload.contains(0):
            throw ArchiveError(
                .libplistFailure,
                "object \(object) is an ASCII string holding U+0000, which libplist cuts short there"
            )
        case .utf16String where record.count == 0:
            throw ArchiveError(.libplistFailure, "object \(object) is an empty UTF-16 string, which libplist rejects")
        case .utf16String where asKey:
            var unit = 0
            while unit < Int(record.count) {
                if payload[2 * unit] == 0 && payload[2 * unit + 1] == 0 {
                    throw ArchiveError(
                        .libplistFailure,
                        "object \(object) is a dictionary key holding U+0000, which libplist cuts short there"
                    )
                }
                unit += 1
            }
        case .integer where record.count == 16:
            // Validated: the high half is 0 or, for a negative Int64, all ones.
            if BPlistBytes.readUInt(bytes, at: record.offset, width: 8) != 0 {
                throw ArchiveError(
                    .libplistFailure,
                    "object \(object) is a negative 16-byte integer, which libplist reads as unsigned"
                )
            }
        default:
            break
        }
    }
}
