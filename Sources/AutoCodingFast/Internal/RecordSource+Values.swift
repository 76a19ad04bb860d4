#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OrderedCollections

/// How a value walk guards itself: the one difference between building values from a plist validated whole
/// and from records validated on first touch.
struct ValueWalk {
    /// Built values by object number, shared by every reference; only for a source proven acyclic.
    fileprivate var cache: ValueCache?
    /// Containers on the current path, for a source not proven acyclic; nil when proven.
    fileprivate var path: Set<Int>?
    /// The deepest container nesting allowed, counted from the value asked for.
    fileprivate let depthLimit: Int
    /// Nodes left to build (every visit counts, shared or not), or nil when the caller bounded the expanded
    /// size beforehand (``BPlistIndex/checkExpandedSize(in:limit:forLibplist:)``).
    fileprivate var budget: Int?
    fileprivate let nodeLimit: Int

    /// A walk over a source validated whole (``BPlistIndex``): acyclic and within the depth limit, so nothing
    /// is checked on the way, and each string, data and container is built once and shared through `cache`.
    static func proven(cache: ValueCache) -> ValueWalk {
        ValueWalk(cache: cache, path: nil, depthLimit: Int.max, budget: nil, nodeLimit: 0)
    }

    /// A walk over records validated on first touch, which prove neither: containers deeper than `depthLimit`
    /// or met again on their own path (a cycle) throw, and so does building more than `nodeLimit` nodes.
    static func firstTouch(depthLimit: Int, nodeLimit: Int) -> ValueWalk {
        ValueWalk(cache: nil, path: [], depthLimit: depthLimit, budget: nodeLimit, nodeLimit: nodeLimit)
    }

    /// Takes `nodes` from the budget, if any, as ``BPlistIndex/checkExpandedSize(in:limit:forLibplist:)``
    /// counts them: 1 a value, ``BPlistIndex/Record/keyNodes`` a key.
    fileprivate mutating func spend(_ nodes: UInt32) throws(ArchiveError) {
        guard let budget else { return }
        guard budget >= Int(nodes) else {
            throw ArchiveError(
                .limitExceeded,
                "the value expands past \(nodeLimit) nodes, keys counted by length (maxExpandedNodeCount, or maxExpandedNodesPerInputByte per input byte + 65,536)")
        }
        self.budget = budget - Int(nodes)
    }
}

/// Value materialization, the one copy: bplist records to ``ArchiveValue`` trees, UIDs left as UIDs.
extension RecordSource {
    /// The value tree under bplist object `object`, guarded as `walk` says.
    func value(at object: Int, walk: inout ValueWalk) throws(ArchiveError) -> ArchiveValue {
        try value(at: object, depth: 1, walk: &walk)
    }

    private func value(at object: Int, depth: Int, walk: inout ValueWalk) throws(ArchiveError) -> ArchiveValue {
        if let cached = walk.cache?[object] { return cached }
        try walk.spend(1)
        let record = try self.record(object)
        let value: ArchiveValue
        switch record.kind {
        case .null:
            throw ArchiveError.unexpectedType("object \(object) is the bplist null marker 0x00, which plists never hold")
        case .falseValue: return .bool(false)
        case .trueValue: return .bool(true)
        case .integer: return reader.integer(record, in: raw)
        case .real: return .real(reader.double(record, in: raw))
        case .date: return .date(Date(timeIntervalSinceReferenceDate: reader.double(record, in: raw)))
        // Checked below the object count with its record, where the source is a keyed archive.
        case .uid: return .uid(ArchiveUID(reader.uid(record)))
        case .data:
            value = .data(Array(UnsafeRawBufferPointer(rebasing: raw[record.offset..<record.offset + Int(record.count)])))
        case .asciiString, .utf16String:
            value = .string(string(record))
        case .array, .dictionary:
            if walk.path != nil {
                guard depth <= walk.depthLimit else {
                    throw ArchiveError.depthLimitExceeded(walk.depthLimit, writing: false, at: " at object \(object)")
                }
                guard walk.path!.insert(object).inserted else {
                    throw ArchiveError(.referenceCycle, "object \(object) contains itself")
                }
            }
            defer { walk.path?.remove(object) }
            let n = Int(record.count)
            if record.kind == .array {
                var elements: [ArchiveValue] = []
                elements.reserveCapacity(min(n, 256 * 1024))  // STYLE 5: capped
                for i in 0..<n { elements.append(try self.value(at: ref(object, i), depth: depth + 1, walk: &walk)) }
                value = .array(elements)
            } else {
                var entries = OrderedDictionary<String, ArchiveValue>(minimumCapacity: min(n, 256 * 1024))
                for i in 0..<n {
                    // Keys were validated as strings with their dictionary. A proven walk builds each key
                    // string once; every walk hashes it at each dictionary, which the budget counts.
                    let keyObject = ref(object, i)
                    let key: String
                    if case .string(let known)? = walk.cache?[keyObject] {
                        key = known
                    } else {
                        let keyRecord = validated(keyObject)
                        try walk.spend(keyRecord.keyNodes)
                        key = string(keyRecord)
                        walk.cache?[keyObject] = .string(key)
                    }
                    let element = try self.value(at: ref(object, n + i), depth: depth + 1, walk: &walk)
                    try BPlistIndex.insertUnique(element, forKey: key, into: &entries, object: object)
                }
                value = .dictionary(entries)
            }
        }
        walk.cache?[object] = value
        return value
    }
}

extension BPlistIndex {
    /// The value tree of the whole plist (the caller bounded its expanded size), each object built once.
    package func topValue(in bytes: UnsafeRawBufferPointer) throws(ArchiveError) -> ArchiveValue {
        var walk = ValueWalk.proven(cache: ValueCache(dense: records.count))
        return try IndexRecords(index: self, raw: bytes).value(at: topObject, walk: &walk)
    }
}
