#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A keyed archive opened without reading it: the file is memory-mapped, and each object is validated and
/// decoded only when a caller reaches it.
///
/// Opening checks the trailer and the four top-level entries (`$archiver`, `$version`, `$objects`, `$top`),
/// nothing else. Each bplist object is validated the first time it is touched, with the same checks and
/// errors as ``KeyedArchiveView``'s one linear pass (marker, payload extent, string encoding, references in
/// range, string keys held once, UIDs below the object count, `$class` naming a class descriptor), and its
/// record (offset, count, type marker; never a decoded value) is kept, so nothing is validated twice. The
/// records live in the table the typed decoders read, filled on first touch. Strings and
/// data are created only when a value is asked for. Reading one field of one object of a 1 GB archive
/// therefore touches a few pages of the file, whatever its size.
///
/// The price of laziness: damage in a part of the file nobody reads is never reported. Use
/// ``KeyedArchiveView`` (or `autocoding validate`) when the whole file must be proven well formed first.
///
/// Lifetime: the mapping belongs to this object and is unmapped when the last reference to it goes away;
/// values it returns are copies and stay valid after that. If the file is rewritten in place while it is
/// open, reads may see old or new bytes (never re-validated: a later read can fail or see inconsistent
/// values); if it is truncated, touching a page past the new end raises `SIGBUS`. Replace archives by
/// writing a new file and renaming it over the old one, and open readers keep reading the old file.
///
/// Not `Sendable`: the table of validated records fills in as objects are read. Use one instance per task
/// (opening is cheap) or a ``KeyedArchiveView`` for concurrent reads.
public final class LazyKeyedArchive {
    /// How the bytes of a file are brought into memory.
    public enum FileAccess: Sendable, Hashable {
        /// Map files of at least ``LazyKeyedArchive/mappingThreshold`` bytes, read smaller ones whole.
        case automatic
        /// Always memory-map the file.
        case mapped
        /// Always read the whole file into memory.
        case read
    }

    /// Files from this size up are memory-mapped by ``FileAccess/automatic``: 1 MiB. Below it, one read
    /// costs less than setting up a mapping and faulting its pages in.
    public static let mappingThreshold = 1 << 20

    /// The record table, filled on first touch.
    let table: ArchiveRecordTable
    /// The `$objects` entries reached through this archive, and the class descriptors of the instances among
    /// them. Kept here, not in the table: the table's flags mark bplist objects, and a writer that uniques
    /// scalars stores equal strings of many entries once.
    private var touched: Set<UInt32> = []

    package var storage: ArchiveBytes { table.storage }
    /// The bplist object number of the `$top` dictionary.
    package var topDictionary: Int { table.topDictionary }
    /// The `$archiver` name.
    public var archiver: String { table.archiver }
    /// The `$version`.
    public var version: Int { table.version }
    /// The number of entries in `$objects`.
    public var objectCount: Int { table.objectCount }

    /// Opens the keyed archive at `path`. Binary archives are mapped or read as `access` says; XML archives
    /// are read whole and converted (XML has no offsets to seek to).
    public convenience init(
        contentsOf path: String, access: FileAccess = .automatic, options: ArchiveReadingOptions = .init()
    ) throws(ArchiveError) {
        let map = { (size: Int) in
            switch access {
            case .mapped: true
            case .read: false
            case .automatic: size >= Self.mappingThreshold
            }
        }
        let storage = try ArchiveBytes.binaryPlist(contentsOf: path, map: map, options: options)
        try self.init(storage: storage, options: options)
    }

    /// Opens a keyed archive from bytes in memory (held, not copied). XML is converted to binary first.
    public convenience init(bytes: [UInt8], options: ArchiveReadingOptions = .init()) throws(ArchiveError) {
        try self.init(storage: ArchiveBytes.binaryPlist(from: bytes, options: options), options: options)
    }

    private init(storage: ArchiveBytes, options: ArchiveReadingOptions) throws(ArchiveError) {
        table = try ArchiveRecordTable(lazy: storage, options: options, rejectsDuplicateKeys: true)
    }

    /// Whether the bytes are a file mapping (rather than an array in memory).
    public var isMapped: Bool { storage.isMapped }

    /// The `$objects` entries validated so far, in UID order: what reads have touched.
    public var touchedUIDs: [ArchiveUID] { touched.sorted().map { ArchiveUID($0) } }

    /// The bplist object number of the `$objects` entry `uid`, after checking the UID and the entry's class
    /// (the `$class` rule, once per entry); recorded in ``touchedUIDs``.
    package func entryObject(for uid: ArchiveUID) throws(ArchiveError) -> Int {
        let object = try table.objectNumber(uid.rawValue)
        if touched.insert(uid.rawValue).inserted, let classUID = table.classUID(ofEntry: object) {
            touched.insert(UInt32(classUID))
        }
        return object
    }

    /// The number of bplist objects (of every kind, `$objects` entries and the values inside them)
    /// validated so far.
    public var validatedObjectCount: Int { table.validatedCount }
}
