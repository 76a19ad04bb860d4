import AutoCodingFast

/// The elements of a list being decoded, as bplist object numbers (pass each to ``DecodingContext/resolve(_:)``).
///
/// A validated array's references are read in place, so that a list costs no array of its own (an allocation
/// per `tags` and per `friends` of every person); the `NS.object.N` fields of an ordered set are collected.
struct ListElements: RandomAccessCollection {
    private let table: ArchiveRecordTable
    /// The array whose references are the elements, or -1 when they were collected.
    private let list: Int
    private let collected: [Int]
    /// The number of elements.
    let count: Int

    /// The elements of validated array `list`, whose references were checked in range when it was validated.
    init(array list: Int, in table: ArchiveRecordTable) {
        self.table = table
        self.list = list
        collected = []
        count = Int(table.validated(list).count)
    }

    /// Elements found one by one.
    init(collected: [Int], in table: ArchiveRecordTable) {
        self.table = table
        list = -1
        self.collected = collected
        count = collected.count
    }

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    /// Element `i`, below ``count`` (indices come from this package's own loops over the list).
    subscript(i: Int) -> Int {
        precondition(i >= 0 && i < count, "a list element past the list's end")
        return list >= 0 ? table.ref(list, i) : collected[i]
    }
}

extension DecodingContext {
    /// The bplist objects of a list: `NS.objects` of an instance, `NS.object.N` keys (NSOrderedSet), or an
    /// array stored in place. Its elements are counted against the expansion budget, all of them: the decoders
    /// decode every element, and a Codable unkeyed container may.
    func listElements(_ node: Node, path: CodingPathNode) throws -> ListElements {
        guard !node.isNull else { throw DecodingError.archiveTypeMismatch([Any].self, at: path, found: "$null") }
        var list = node.object
        if kind(node) == .dictionary {
            if let objects = field(FoundationKey.objects, of: node) {
                list = try resolve(objects).object
            } else {
                var elements: [Int] = []
                while let element = field("NS.object.\(elements.count)", of: node) { elements.append(element) }
                if try !elements.isEmpty || className(of: node)?.hasSuffix("OrderedSet") == true {
                    try countExpanded(elements.count, at: path)
                    return ListElements(collected: elements, in: table)
                }
            }
        }
        guard list >= 0, table.validated(list).kind == .array else {
            throw DecodingError.archiveTypeMismatch([Any].self, at: path, found: describe(node))
        }
        // The references of a validated array are in range; each element is validated when resolved.
        let elements = ListElements(array: list, in: table)
        try countExpanded(elements.count, at: path)
        return elements
    }
}
