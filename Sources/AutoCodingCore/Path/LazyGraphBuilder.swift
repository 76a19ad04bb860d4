import AutoCodingFast
import OrderedCollections

/// Builds graph values from a ``LazyKeyedArchive`` on demand: only the objects reachable from what is asked
/// for are read. Objects are memoized by UID, so shared references and cycles keep their identity, and fields
/// are filled from a worklist, so a long chain of objects costs no stack.
struct LazyGraphBuilder {
    let archive: LazyKeyedArchive
    private var shells: [ArchiveUID: ArchivedObject] = [:]
    /// Scalar entries already read: every reference to one gets the same value (one storage), so a string
    /// referenced a thousand times is held once and printed once (JSON `$ref`).
    private var scalars: [ArchiveUID: ArchivedValue] = [:]
    private var pending: [(ArchivedObject, Int)] = []

    init(archive: LazyKeyedArchive) { self.archive = archive }

    /// The objects read so far, each numbered by its archive UID.
    var objectNumbers: ObjectNumbers { ObjectNumbers(shells.map { ($0.value, $0.key.index) }) }

    /// Empties every object read, for a caller that will not hand them out.
    func emptyObjects() {
        for shell in shells.values { shell.fields = [:] }
    }

    /// The graph value of bplist object `object` (a UID is followed), with everything it reaches.
    mutating func graphValue(ofObject object: Int) throws(ArchiveError) -> ArchivedValue {
        let value = try resolve(archive.value(at: object))
        try drain()
        return value
    }

    /// The graph value for a table value: UIDs become objects (queued for filling), references or `nil`.
    private mutating func resolve(_ value: ArchiveValue) throws(ArchiveError) -> ArchivedValue {
        switch value {
        case .uid(let uid): return try resolve(uid)
        case .array(let elements):
            var resolved: [ArchivedValue] = []
            resolved.reserveCapacity(elements.count)
            for element in elements { resolved.append(try resolve(element)) }
            return .array(resolved)
        case .dictionary(let entries):
            var resolved = OrderedDictionary<String, ArchivedValue>(minimumCapacity: entries.count)
            for (key, element) in entries { resolved[key] = try resolve(element) }
            return .dictionary(resolved)
        default: return .inline(value)
        }
    }

    private mutating func resolve(_ uid: ArchiveUID) throws(ArchiveError) -> ArchivedValue {
        if uid.isNull { return .null }
        if let shell = shells[uid] { return .object(shell) }
        if let scalar = scalars[uid] { return scalar }
        let entry = try archive.entryObject(for: uid)
        guard try archive.kind(of: entry) == .dictionary, try archive.value(forKey: ArchiveKey.class, in: entry) != nil
        else {
            let scalar = ArchivedValue.reference(try archive.value(at: entry))
            scalars[uid] = scalar
            return scalar
        }
        let shell = ArchivedObject(archiveClass: try archive.archiveClass(ofObject: entry) ?? ArchiveClass(name: ""))
        shells[uid] = shell
        pending.append((shell, entry))
        return .object(shell)
    }

    private mutating func drain() throws(ArchiveError) {
        while let (shell, entry) = pending.popLast() {
            var fields = OrderedDictionary<String, ArchivedValue>()
            for (key, value) in try archive.entries(of: entry) where key != ArchiveKey.class {
                fields[key] = try resolve(archive.value(at: value))
            }
            shell.fields = fields
        }
    }
}
