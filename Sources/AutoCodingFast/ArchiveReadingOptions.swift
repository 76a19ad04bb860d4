/// Limits and choices for reading untrusted property lists and archives.
///
/// Every decoder entry point of this package takes untrusted bytes; these limits bound the time and memory
/// a hostile input can cost. The defaults accept every real archive seen in the wild while rejecting
/// resource bombs quickly. Raise them only for inputs you trust.
public struct ArchiveReadingOptions: Sendable, Hashable {
    /// Which implementation parses the bytes.
    public enum Backend: String, Sendable, Hashable, CaseIterable {
        /// This package's own binary-plist reader (XML still goes through libplist).
        case native
        /// libplist, reached only after the native validator has accepted binary input.
        case libplist
    }

    /// The parser to use for binary property lists. The default is ``Backend/native``: it is faster and
    /// never expands shared references.
    public var backend: Backend = .native

    /// The largest input accepted, in bytes. Default: 1 GiB.
    public var maxInputBytes: Int = 1 << 30

    /// The most objects a binary plist may declare in its trailer. Default: 32 million.
    public var maxObjectCount: Int = 32 << 20

    /// How deeply containers may nest. Default: 512. (Keyed archives nest 3 to 5 levels deep.)
    ///
    /// The writers' checked forms (``ArchiveValue/binaryPropertyList(readableWith:)``,
    /// ``KeyedArchive/binaryPlist(readableWith:)``, ``ArchiveValue/xmlPropertyList()``) refuse what this limit
    /// refuses, so that everything they write reads back.
    public var depthLimit: Int = 512

    /// How deeply values may nest in typed decoding (`KeyedArchiveDecoder`, `@AutoCoding` types): each value
    /// decoded inside another (an object in a field, an element of an array) is one level. Default: 256.
    ///
    /// It is not ``depthLimit`` because it bounds a different thing at a different cost. Objects refer to one
    /// another through UIDs, not by nesting containers, so a linked list of 10,000 objects is an archive whose
    /// containers nest 3 levels deep: ``depthLimit`` never sees object nesting. And the readers walk containers
    /// with explicit worklists (a level costs heap), while typed decoding runs each type's `init(from:)`
    /// recursively on the caller's stack: a level costs several frames of code this package does not write.
    /// So this limit is the lower one; past it the decode throws a `DecodingError`.
    ///
    /// Measured in a debug build on Linux x86-64 (a `Codable` class with a synthesized `init(from:)`): about
    /// 4.5 KiB of stack per level, so the default needs about 1.2 MiB. The main thread has that (8 MiB by
    /// default on Linux and macOS); a thread with a 512 KiB stack (macOS's default for secondary threads)
    /// decodes about 96 levels. For untrusted input on small stacks, lower this limit or decode on a thread
    /// with a larger stack.
    public var decodingDepthLimit: Int = 256

    /// The most nodes a property list may have once shared references are expanded into copies, as a
    /// tree-building parser (libplist) makes them and as anyone walking an ``ArchiveValue`` tree (a writer,
    /// `==`, the object graph) visits them. Default: 64 million.
    ///
    /// The native reader builds each shared value once, but a 250-byte file whose arrays each refer twice to
    /// the next expands to 2³⁰ nodes for whoever walks the result, so the limit applies whenever a value tree
    /// is built. ``KeyedArchiveView`` field access and the typed decoder read the table directly and never
    /// expand anything.
    ///
    /// A typedstream's events are bounded by this and by 4 events per input byte (plus 4,096), since values
    /// such as `!` and empty structs take no bytes: a 29-byte `[67108800!]` is refused before any event.
    ///
    /// A value tree is also bounded by the input's size (``maxExpandedNodesPerInputByte``).
    public var maxExpandedNodeCount: Int = 64 << 20

    /// The most nodes a value tree may have per input byte once shared references are expanded (plus 65,536),
    /// whatever ``maxExpandedNodeCount`` allows. A file without shared containers expands to about one node
    /// per byte, so only a reference bomb reaches this, and every walk of the result (`validate`, `json`,
    /// `inspect`, `get`) stays linear in the input: a 300-byte file of 25 arrays each holding the next twice
    /// (2²⁵ nodes) is refused at once instead of costing a minute. A dictionary key counts by its length at each
    /// dictionary that holds it (1 node, plus 1 per 4 UTF-16 units or 128 ASCII bytes), since every reader that
    /// builds dictionaries hashes it there: one long key shared by every dictionary would otherwise cost the
    /// square of the input. The typed decoders, which compare keys in place, apply the limit per bplist object
    /// of the archive instead, to the values they decode from shared entries. Default: 16; `Int.max` lifts it.
    public var maxExpandedNodesPerInputByte: Int = 16

    /// The largest XML plist read, in bytes (checked before libplist sees it). libplist builds about 130 bytes
    /// of tree per element, so 16 MiB of XML can cost about 300 MB. Default: 16 MiB.
    public var maxXMLInputBytes: Int = 16 << 20

    /// Whether a keyed archive must have `$version` 100000. Default: `true`.
    public var requiresKnownVersion: Bool = true

    /// Creates options with the documented defaults.
    public init() {}

    /// The nodes a value tree built from `byteCount` input bytes may have once shared references are expanded:
    /// ``maxExpandedNodeCount``, and no more than ``maxExpandedNodesPerInputByte`` per input byte plus 65,536.
    /// The one expansion rule of the binary-plist readers, eager and lazy.
    package func expandedNodeLimit(forInputBytes byteCount: Int) -> Int { expandedLimit(per: byteCount) }

    /// The values a typed decode of an archive of `objectCount` bplist objects may decode, a shared entry counted
    /// once per reference: the same rule counted per bplist object instead of per byte. A typed decode reads
    /// every object it reaches, and an object takes at least one byte, so this is the stricter of the two.
    package func expandedValueLimit(forObjects objectCount: Int) -> Int { expandedLimit(per: objectCount) }

    private func expandedLimit(per units: Int) -> Int {
        let (perUnit, overflow) = units.multipliedReportingOverflow(by: max(maxExpandedNodesPerInputByte, 0))
        let (limit, overflow2) = perUnit.addingReportingOverflow(65_536)
        return overflow || overflow2 ? maxExpandedNodeCount : min(maxExpandedNodeCount, limit)
    }

    /// The depth limit every binary-plist reader and writer applies to nested containers: ``depthLimit``,
    /// at least 1, and below the 16-bit marks of the whole-file validator. The root container is at depth 1.
    var containerDepthLimit: Int { min(max(depthLimit, 1), Int(UInt16.max) - 2) }
}
