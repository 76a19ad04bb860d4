#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OrderedCollections

/// The records of a binary plist, parsed and validated one object at a time as readers reach them.
///
/// Each check is the one ``BPlistIndex`` makes in its linear pass, applied at first touch instead: the record
/// parser is shared, and references, keys, UIDs and class descriptors get the same errors. Recursion into
/// containers (only when a value is materialized) is bounded by the depth limit and checked for cycles on the
/// current path, since no whole-file pass has proven the plist acyclic.
final class LazyRecordTable {
    let storage: ArchiveBytes
    let trailer: BPlistTrailer
    /// The record readers of ``BPlistIndex`` (strings, integers, reals, UIDs); its own table stays empty.
    let reader: BPlistIndex
    let depthLimit: Int
    let expandedNodeLimit: Int
    /// Set once the header is read: the `$objects` count and array.
    var objectCount = 0
    var objectsArray = 0

    private var records: [Int: BPlistIndex.Record] = [:]
    private(set) var touchedUIDs: Set<UInt32> = []
    private var checkedClasses: Set<UInt32> = []

    var raw: UnsafeRawBufferPointer { storage.raw }
    var recordCount: Int { records.count }

    init(storage: ArchiveBytes, options: ArchiveReadingOptions) throws(ArchiveError) {
        self.storage = storage
        trailer = try BPlistTrailer(parsing: storage.raw, options: options)
        reader = BPlistIndex(recordReaderFor: trailer)
        depthLimit = options.containerDepthLimit
        expandedNodeLimit = options.expandedNodeLimit(forInputBytes: storage.raw.count)
    }

    // MARK: Records

    /// The validated record of bplist object `object` (which must be below the trailer's count). A dictionary
    /// is validated with its keys, so that no lookup answers from a dictionary the whole-file reader refuses.
    func record(_ object: Int) throws(ArchiveError) -> BPlistIndex.Record {
        if let known = records[object] { return known }
        let record = try BPlistIndex.record(object: object, in: raw, trailer: trailer)
        if record.kind == .dictionary { try checkKeys(of: object, record) }
        records[object] = record
        return record
    }

    /// Every key of dictionary `object` is a string, and none appears twice (``BPlistIndex/insertUnique``, the
    /// rule of the whole-file reader). Key records are parsed here, not through ``record(_:)``: a key that is
    /// itself a dictionary is an error, so checking one never recurses.
    private func checkKeys(of object: Int, _ record: BPlistIndex.Record) throws(ArchiveError) {
        let n = Int(record.count)
        var seen = OrderedDictionary<String, Void>(minimumCapacity: min(n, 256 * 1024))
        for i in 0..<n {
            let key = try ref(object, record, i)
            let keyRecord: BPlistIndex.Record
            if let known = records[key] {
                keyRecord = known
            } else {
                keyRecord = try BPlistIndex.record(object: key, in: raw, trailer: trailer)
            }
            guard keyRecord.kind == .asciiString || keyRecord.kind == .utf16String else {
                throw Self.keyError(object, key, keyRecord)
            }
            records[key] = keyRecord
            try BPlistIndex.insertUnique((), forKey: string(keyRecord), into: &seen, object: object)
        }
    }

    private static func keyError(_ object: Int, _ key: Int, _ keyRecord: BPlistIndex.Record) -> ArchiveError {
        ArchiveError.unexpectedType(
            "dictionary object \(object) has a key (object \(key)) that is a \(keyRecord.kind), not a string")
    }

    /// The object number of element `i` of array `object`, or of key `i` (value `count + i`) of a dictionary.
    func ref(_ object: Int, _ record: BPlistIndex.Record, _ i: Int) throws(ArchiveError) -> Int {
        // The one bounds check before the unsafe read: `i` may come from a caller's path.
        let refs = record.kind == .dictionary ? 2 * Int(record.count) : (record.kind == .array ? Int(record.count) : 0)
        guard i >= 0, i < refs else {
            throw ArchiveError(.invalidReference, "object \(object) has no reference \(i) (it holds \(refs))")
        }
        let child = BPlistBytes.readUInt(
            raw, at: record.offset + i * trailer.objectRefSize, width: trailer.objectRefSize)
        guard child < UInt64(trailer.objectCount) else {
            throw ArchiveError(
                .invalidReference,
                "object \(object) refers to object \(child), beyond the \(trailer.objectCount) objects of the table")
        }
        return Int(child)
    }

    /// The record of key `i` of dictionary `object`, checked to be a string.
    func key(_ object: Int, _ record: BPlistIndex.Record, _ i: Int) throws(ArchiveError) -> BPlistIndex.Record {
        let key = try ref(object, record, i)
        let keyRecord = try self.record(key)
        guard keyRecord.kind == .asciiString || keyRecord.kind == .utf16String else {
            throw Self.keyError(object, key, keyRecord)
        }
        return keyRecord
    }

    /// The object number of the value under `key` in dictionary `object`, or nil when absent or not a dictionary.
    func entry(of object: Int, key: String) throws(ArchiveError) -> Int? {
        let record = try self.record(object)
        guard record.kind == .dictionary else { return nil }
        let n = Int(record.count)
        var wanted = key
        for i in 0..<n {
            let keyRecord = try self.key(object, record, i)
            let matches =
                keyRecord.kind == .asciiString
                ? wanted.withUTF8 { Int(keyRecord.count) == $0.count && BPlistBytes.equal(raw, at: keyRecord.offset, $0) }
                : reader.makeString(keyRecord, in: raw) == key
            if matches { return try ref(object, record, n + i) }
        }
        return nil
    }

    /// The string of a string record.
    func string(_ record: BPlistIndex.Record) -> String { reader.makeString(record, in: raw) }

    /// The UID of a UID record.
    func uid(_ record: BPlistIndex.Record) -> UInt32 { reader.uid(record, in: raw) }

    // MARK: $objects

    /// The bplist object number of `$objects[uid]`, after checking the UID and, for an instance, its class.
    func objectNumber(uid: UInt32) throws(ArchiveError) -> Int {
        guard uid < objectCount else { throw ArchiveError.invalidUID(UInt64(uid), objectCount: objectCount) }
        let object = try ref(objectsArray, try record(objectsArray), Int(uid))
        if touchedUIDs.insert(uid).inserted { try checkInstance(object, uid: uid) }
        return object
    }

    /// An instance's `$class` must be a UID naming a class descriptor (a dictionary with a string
    /// `$classname` and, if present, an array of strings as `$classes`).
    private func checkInstance(_ object: Int, uid: UInt32) throws(ArchiveError) {
        guard try record(object).kind == .dictionary else { return }
        if let name = try entry(of: object, key: ArchiveKey.className) {
            let kind = try record(name).kind
            guard kind == .asciiString || kind == .utf16String else {
                throw ArchiveError.unexpectedType("object \(uid): $classname is a \(kind), not a string")
            }
            return
        }
        guard let classRef = try entry(of: object, key: ArchiveKey.class) else {
            throw ArchiveError.missingKey(ArchiveKey.class, in: "object \(uid) (UID \(uid))")
        }
        let classRecord = try record(classRef)
        guard classRecord.kind == .uid else {
            throw ArchiveError.unexpectedType("object \(uid) (UID \(uid)): $class is not a UID")
        }
        let classUID = self.uid(classRecord)
        guard classUID < objectCount else { throw ArchiveError.invalidUID(UInt64(classUID), objectCount: objectCount) }
        guard checkedClasses.insert(classUID).inserted else { return }
        touchedUIDs.insert(classUID)
        let descriptor = try ref(objectsArray, try record(objectsArray), Int(classUID))
        let name = try entry(of: descriptor, key: ArchiveKey.className)
        guard let name, [.asciiString, .utf16String].contains(try record(name).kind) else {
            throw ArchiveError(
                .unexpectedType,
                "object \(uid) (UID \(uid)): $class UID \(classUID) is not a class descriptor with a $classname")
        }
        if let chain = try entry(of: descriptor, key: ArchiveKey.classes) {
            let chainRecord = try record(chain)
            guard chainRecord.kind == .array else {
                throw ArchiveError.unexpectedType("object \(classUID): $classes is not an array of strings")
            }
            for i in 0..<Int(chainRecord.count) {
                let kind = try record(try ref(chain, chainRecord, i)).kind
                guard kind == .asciiString || kind == .utf16String else {
                    throw ArchiveError.unexpectedType("object \(classUID): $classes is not an array of strings")
                }
            }
        }
    }

    // MARK: Values

    /// The value tree under `object`, UIDs left as UIDs. Recursion is bounded by the depth limit; a container
    /// met again on its own path is a cycle; the nodes built are bounded by `maxExpandedNodeCount`.
    func value(at object: Int) throws(ArchiveError) -> ArchiveValue {
        var budget = expandedNodeLimit
        var path: Set<Int> = []
        return try value(at: object, depth: 1, path: &path, budget: &budget)
    }

    private func value(at object: Int, depth: Int, path: inout Set<Int>, budget: inout Int) throws(ArchiveError)
        -> ArchiveValue
    {
        budget -= 1
        guard budget >= 0 else {
            throw ArchiveError(
                .limitExceeded, "the value expands past \(expandedNodeLimit) nodes (maxExpandedNodeCount, or maxExpandedNodesPerInputByte per input byte + 65,536)")
        }
        let record = try self.record(object)
        switch record.kind {
        case .null:
            throw ArchiveError.unexpectedType("object \(object) is the bplist null marker 0x00, which plists never hold")
        case .falseValue: return .bool(false)
        case .trueValue: return .bool(true)
        case .integer: return reader.integer(record, in: raw)
        case .real: return .real(reader.double(record, in: raw))
        case .date: return .date(Date(timeIntervalSinceReferenceDate: reader.double(record, in: raw)))
        case .uid:
            let uid = self.uid(record)
            guard uid < objectCount else { throw ArchiveError.invalidUID(UInt64(uid), objectCount: objectCount) }
            return .uid(ArchiveUID(uid))
        case .data:
            return .data(Array(UnsafeRawBufferPointer(rebasing: raw[record.offset..<record.offset + Int(record.count)])))
        case .asciiString, .utf16String:
            return .string(string(record))
        case .array, .dictionary:
            guard depth <= depthLimit else {
                throw ArchiveError.depthLimitExceeded(depthLimit, writing: false, at: " at object \(object)")
            }
            guard path.insert(object).inserted else {
                throw ArchiveError(.referenceCycle, "object \(object) contains itself")
            }
            defer { path.remove(object) }
            let n = Int(record.count)
            if record.kind == .array {
                var elements: [ArchiveValue] = []
                elements.reserveCapacity(min(n, 256 * 1024))
                for i in 0..<n {
                    elements.append(try value(at: ref(object, record, i), depth: depth + 1, path: &path, budget: &budget))
                }
                return .array(elements)
            }
            var entries = OrderedDictionary<String, ArchiveValue>(minimumCapacity: min(n, 256 * 1024))
            for i in 0..<n {
                let key = string(try self.key(object, record, i))
                let element = try value(at: ref(object, record, n + i), depth: depth + 1, path: &path, budget: &budget)
                try BPlistIndex.insertUnique(element, forKey: key, into: &entries, object: object)
            }
            return .dictionary(entries)
        }
    }
}
