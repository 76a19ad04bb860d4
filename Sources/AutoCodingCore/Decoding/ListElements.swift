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
    /// Whether the elements of a list of `T` below `parent` that refer to an instance decoded already may be
    /// taken from ``instances`` by UID alone (``decodedInstance(_:at:)``): where ``decodeChild(_:node:key:below:)``
    /// would only look such a reference up, as it does for an `@AutoCoding` object while objects are being
    /// filled and for any class instance, outside secure decoding and the root.
    func sharesDecodedInstances<T>(of type: T.Type, below parent: CodingPathNode) -> Bool {
        guard allowedClassNames == nil, !parent.isRoot else { return false }
        switch decodeKind(of: T.self) {
        case .autoCodingObject: return isDraining
        case .object(let isClass): return isClass
        default: return false
        }
    }

    /// The instance decoded already for the UID that list element `object` holds, when it is exactly a `T`;
    /// nil for anything else, which the caller resolves and decodes. Its `$objects` entry was resolved and
    /// checked when it was first decoded, so it is not resolved again: for a list of shared references (W1's
    /// friends, to people anywhere in the archive) that was two reads at random places per element, a cache
    /// and TLB miss each, about a twelfth of an `@AutoCoding` decode's time.
    @inline(__always)
    func decodedInstance<T>(_ type: T.Type, at object: Int) -> T? {
        guard let uid = try? table.uid(in: object), uid != 0, let existing = instances[uid],
            ClassReferences.isExactly(existing, T.self)
        else { return nil }
        return unsafeBitCast(existing, to: T.self)
    }
}
