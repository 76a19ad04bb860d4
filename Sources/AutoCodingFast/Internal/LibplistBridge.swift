internal import CPlistShim
import OrderedCollections

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Converts between ``ArchiveValue`` and libplist's trees: the XML reader and writer of the package, the
/// optional libplist backend for binary input, and the libplist binary writer used by benchmarks and tests.
///
/// Every `plist_t` is owned by a `PlistNode` and stays inside this file. libplist trusts its input more than
/// this package does, so each entry point bounds what libplist will do first: binary input has been
/// validated by ``BPlistIndex`` (and its expanded size checked) by the caller; XML input is checked for
/// size here and scanned by `XMLScan` (XMLScan.swift) for nesting depth, element count, scalar text and
/// repeated keys. The fix-ups of libplist's XML output are in LibplistBridge+XMLFixups.swift. libplist
/// 2.2 ... 2.7 differences are hidden in `CPlistShim`.
enum LibplistBridge {
    /// The deepest container nesting the writers accept.
    ///
    /// libplist writes XML and binary plists with C recursion (one frame per level), and so do our tree
    /// builder and `plist_free`; twice the default reading ``ArchiveReadingOptions/depthLimit`` keeps all of
    /// them far from the end of a thread's stack while accepting anything the default reader accepts.
    static let maxWriteDepth = 1024

    // MARK: Reading

    /// Parses binary plist bytes that the native validator (``BPlistIndex``) has already accepted.
    ///
    /// The caller must also have run ``BPlistIndex/checkExpandedSize(in:limit:)``: libplist copies every
    /// shared reference, so a small file can otherwise expand to gigabytes, and that walk also rejects the
    /// objects libplist would misread. Recursion here is bounded by the nesting depth the validator checked.
    static func parseBinary(_ bytes: UnsafeRawBufferPointer) throws(ArchiveError) -> ArchiveValue {
        guard let base = bytes.baseAddress, bytes.count < Int(UInt32.max) else {
            throw ArchiveError(
                .limitExceeded,
                "binary plist of \(bytes.count) bytes cannot be passed to libplist, which takes 32-bit lengths"
            )
        }
        guard
            let raw = CPlistShim_fromBinary(
                base.assumingMemoryBound(to: CChar.self),
                UInt32(truncatingIfNeeded: bytes.count)
            )
        else {
            throw ArchiveError(
                .libplistFailure,
                "libplist rejected the \(bytes.count)-byte binary plist the native validator accepted"
            )
        }
        let tree = PlistNode(raw)
        var reader = TreeReader(xmlDictionaries: nil)
        return try withExtendedLifetime(tree) { () throws(ArchiveError) in try reader.value(of: tree.raw) }
    }

    /// Parses an XML plist.
    ///
    /// Before libplist sees the bytes, checks the size (``ArchiveReadingOptions/maxInputBytes``,
    /// ``ArchiveReadingOptions/maxXMLInputBytes``, and below
    /// `UInt32.max` since libplist takes 32-bit lengths) and scans the markup as libplist will tokenize it:
    /// the nesting depth of `<array>`/`<dict>` (``ArchiveReadingOptions/depthLimit``), the number of elements
    /// (``ArchiveReadingOptions/maxObjectCount``), and the text of every `<integer>`, `<real>`, `<date>` and
    /// `<data>`, which libplist would silently read as 0 or empty when malformed. A dictionary whose keys
    /// libplist merged (a repeated key) is an `invalidObject` error, as in a binary plist. Dictionaries of
    /// exactly one key `CF$UID` with an integer value become ``ArchiveValue/uid(_:)``; a value outside
    /// `UInt32` is an `invalidUID` error.
    static func parseXML(
        _ bytes: UnsafeRawBufferPointer,
        options: ArchiveReadingOptions
    ) throws(ArchiveError) -> ArchiveValue {
        guard bytes.count <= options.maxInputBytes else {
            throw ArchiveError(
                .limitExceeded,
                "XML plist of \(bytes.count) bytes exceeds maxInputBytes \(options.maxInputBytes)"
            )
        }
        guard bytes.count <= options.maxXMLInputBytes else {
            throw ArchiveError(
                .limitExceeded,
                "XML plist of \(bytes.count) bytes exceeds maxXMLInputBytes \(options.maxXMLInputBytes)"
            )
        }
        guard bytes.count < Int(UInt32.max) else {
            throw ArchiveError(
                .limitExceeded,
                "XML plist of \(bytes.count) bytes cannot be passed to libplist, which takes 32-bit lengths"
            )
        }
        let dictionaries = try XMLScan.scan(bytes, options: options)
        guard let base = bytes.baseAddress,
            let raw = CPlistShim_fromXML(
                base.assumingMemoryBound(to: CChar.self),
                UInt32(truncatingIfNeeded: bytes.count)
            )
        else {
            throw ArchiveError(.libplistFailure, "libplist could not parse the \(bytes.count)-byte XML property list")
        }
        let tree = PlistNode(raw)
        var reader = TreeReader(xmlDictionaries: dictionaries)
        return try withExtendedLifetime(tree) { () throws(ArchiveError) in try reader.value(of: tree.raw) }
    }

    // MARK: Writing

    /// Writes `value` as an XML plist through libplist. UIDs come out as
    /// `<dict><key>CF$UID</key><integer>n</integer></dict>` (libplist writes `PLIST_UID` nodes that way in
    /// every version). Dates keep whole seconds only, as in Apple's XML format.
    static func xmlData(_ value: ArchiveValue) throws(ArchiveError) -> [UInt8] {
        let hasDateBeforeYear1000 = try checkXMLDates(in: value)
        let tree = try makeTree(value)
        var buffer: UnsafeMutablePointer<CChar>? = nil
        var length: UInt32 = 0
        let written = withExtendedLifetime(tree) { CPlistShim_toXML(tree.raw, &buffer, &length) }
        guard written != 0, let buffer else {
            throw ArchiveError(.libplistFailure, "libplist could not write the \(value.typeName) as XML")
        }
        defer { CPlistShim_freeXML(buffer) }
        let xml = Array(UnsafeRawBufferPointer(start: buffer, count: Int(length)))
        var ordinal = 0
        var negativeZeros: Set<Int> = []
        collectNegativeZeroReals(in: value, ordinal: &ordinal, into: &negativeZeros)
        let restored = negativeZeros.isEmpty ? xml : restoringNegativeZeros(negativeZeros, in: xml)
        return hasDateBeforeYear1000 ? paddingShortYears(in: restored) : restored
    }

    /// Writes `value` as a binary plist with libplist's `plist_to_bin`, for benchmarks and oracle tests only
    /// (libplist 2.2's writer is much slower on large inputs). Production code uses
    /// ``ArchiveValue/binaryPropertyList()``.
    static func binaryData(_ value: ArchiveValue) throws(ArchiveError) -> [UInt8] {
        let tree = try makeTree(value)
        var buffer: UnsafeMutablePointer<CChar>? = nil
        var length: UInt32 = 0
        let written = withExtendedLifetime(tree) { CPlistShim_toBinary(tree.raw, &buffer, &length) }
        guard written != 0, let buffer else {
            throw ArchiveError(.libplistFailure, "libplist could not write the \(value.typeName) as a binary plist")
        }
        defer { CPlistShim_freeBinary(buffer) }
        return Array(UnsafeRawBufferPointer(start: buffer, count: Int(length)))
    }

    /// Builds libplist's tree for `value`. Each node is attached to its parent as soon as it exists, so the
    /// root `PlistNode` owns everything built so far when an error is thrown halfway.
    private static func makeTree(_ value: ArchiveValue) throws(ArchiveError) -> PlistNode {
        let root = PlistNode(try makeNode(value))
        try fill(root.raw, with: value, depth: 1)
        return root
    }

    /// A new, unattached node for `value`; containers come back empty for ``fill(_:with:depth:)``.
    private static func makeNode(_ value: ArchiveValue) throws(ArchiveError) -> plist_t {
        let node: plist_t?
        switch value {
        case .bool(let flag): node = plist_new_bool(flag ? 1 : 0)
        case .integer(let v): node = CPlistShim_newSignedInteger(v)
        case .unsignedInteger(let v): node = CPlistShim_newUnsignedInteger(v)
        case .real(let v): node = plist_new_real(v)
        case .date(let date): node = CPlistShim_newDate(date.timeIntervalSinceReferenceDate)
        case .data(let bytes):
            // Never hand libplist a NULL source, even for zero bytes (it memcpys from it).
            let source = bytes.isEmpty ? [0] : bytes
            node = source.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { plist_new_data($0.baseAddress, UInt64(bytes.count)) }
            }
        case .string(let s):
            try checkNoNUL(s, what: "string")
            node = s.withCString { plist_new_string($0) }
        case .uid(let uid): node = plist_new_uid(UInt64(uid.rawValue))
        case .array: node = plist_new_array()
        case .dictionary: node = plist_new_dict()
        }
        guard let node else {
            throw ArchiveError(.libplistFailure, "libplist could not create a node for a \(value.typeName)")
        }
        return node
    }

    /// Creates and attaches the children of a container `value` under its node `node`.
    private static func fill(_ node: plist_t, with value: ArchiveValue, depth: Int) throws(ArchiveError) {
        switch value {
        case .array(let elements):
            guard depth <= maxWriteDepth else { throw writeDepthError() }
            for element in elements {
                let child = try makeNode(element)
                plist_array_append_item(node, child)  // `node` owns `child` from here
                try fill(child, with: element, depth: depth + 1)
            }
        case .dictionary(let entries):
            guard depth <= maxWriteDepth else { throw writeDepthError() }
            for (key, element) in entries {
                try checkNoNUL(key, what: "dictionary key")
                let child = try makeNode(element)
                key.withCString { plist_dict_set_item(node, $0, child) }  // keys are unique: always an append
                try fill(child, with: element, depth: depth + 1)
            }
        default:
            break
        }
    }

    /// libplist takes C strings for keys and string values, which would silently cut at a NUL.
    private static func checkNoNUL(_ s: String, what: String) throws(ArchiveError) {
        guard !s.utf8.contains(0) else {
            throw ArchiveError(
                .libplistFailure,
                "\(what) \"\(s.prefix(40))\" contains U+0000, which libplist cannot store"
            )
        }
    }

    private static func writeDepthError() -> ArchiveError {
        ArchiveError(
            .depthLimitExceeded,
            "containers nest deeper than \(maxWriteDepth) levels, the most the libplist writers take"
        )
    }
}

/// Owns one libplist tree and frees it, children included, when the last reference goes.
private final class PlistNode {
    let raw: plist_t

    init(_ raw: plist_t) { self.raw = raw }

    deinit { plist_free(raw) }
}

// MARK: - Reading a tree

/// Converts a libplist tree into an ``ArchiveValue``, recursing once per nesting level (bounded by the checks
/// made before parsing: the binary validator's depth, or the XML scan's).
private struct TreeReader {
    /// For XML, every `<dict>` of the document in order, with the keys it holds; `nil` for binary input.
    /// A pre-order walk of libplist's tree meets its dictionaries in document order.
    let xmlDictionaries: [XMLScan.Dictionary]?
    /// How many of `xmlDictionaries` the walk has met.
    var dictionariesSeen = 0

    init(xmlDictionaries: [XMLScan.Dictionary]?) {
        self.xmlDictionaries = xmlDictionaries
    }

    mutating func value(of node: plist_t) throws(ArchiveError) -> ArchiveValue {
        switch CPlistShim_nodeKind(node) {
        case .boolean:
            var flag: UInt8 = 0
            plist_get_bool_val(node, &flag)
            return .bool(flag != 0)
        case .integer:
            let bits = CPlistShim_integerBits(node)
            if CPlistShim_integerIsUnsignedAboveInt64Max(node) != 0 { return .unsignedInteger(bits) }
            return .integer(Int64(bitPattern: bits))
        case .real:
            var real = 0.0
            plist_get_real_val(node, &real)
            return .real(real)
        case .date:
            var seconds = 0.0
            guard CPlistShim_dateSecondsSince2001(node, &seconds) != 0 else {
                throw ArchiveError(.libplistFailure, "libplist could not give the value of a date node")
            }
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case .data:
            var length: UInt64 = 0
            guard let pointer = plist_get_data_ptr(node, &length), length > 0 else { return .data([]) }
            guard length <= UInt64(Int.max) else {
                throw ArchiveError(.limitExceeded, "libplist reports a data node of \(length) bytes")
            }
            return .data(Array(UnsafeRawBufferPointer(start: pointer, count: Int(length))))
        case .string, .key:
            return .string(try Self.string(of: node))
        case .uid:
            // libplist 2.3+ turns a top-level XML CF$UID dictionary into a UID node itself.
            if xmlDictionaries != nil { dictionariesSeen += 1 }
            var uid: UInt64 = 0
            plist_get_uid_val(node, &uid)
            guard let narrow = UInt32(exactly: uid) else {
                let signed = Int64(bitPattern: uid) < 0 ? " (\(Int64(bitPattern: uid)) as a signed integer)" : ""
                throw ArchiveError(.invalidUID, "UID \(uid)\(signed) is outside 0...\(UInt32.max)")
            }
            return .uid(ArchiveUID(narrow))
        case .array:
            return .array(try elements(of: node))
        case .dictionary:
            try checkKeysWereKept(node)
            let entries = try entries(of: node)
            if xmlDictionaries != nil, entries.count == 1, let first = entries.elements.first, first.key == "CF$UID" {
                switch first.value {
                case .integer(let v):
                    guard let narrow = UInt32(exactly: v) else {
                        throw ArchiveError(.invalidUID, "CF$UID dictionary holds \(v), outside 0...\(UInt32.max)")
                    }
                    return .uid(ArchiveUID(narrow))
                case .unsignedInteger(let v):
                    throw ArchiveError(.invalidUID, "CF$UID dictionary holds \(v), outside 0...\(UInt32.max)")
                default:
                    break
                }
            }
            return .dictionary(entries)
        case .other:
            throw ArchiveError.unexpectedType(
                "libplist node type \(plist_get_node_type(node).rawValue) is not a property-list value"
            )
        }
    }

    /// For XML: throws if libplist kept fewer entries than the dictionary has keys.
    ///
    /// libplist's XML parser stores entries with `plist_dict_set_item`, which replaces an existing key (and
    /// frees the first value); a binary plist with a repeated key is an error, so this is too. Checking on the
    /// way down keeps the count of dictionaries met in step with the document: anything libplist dropped lies
    /// inside the first dictionary that fails.
    private mutating func checkKeysWereKept(_ node: plist_t) throws(ArchiveError) {
        guard let xmlDictionaries else { return }
        guard dictionariesSeen < xmlDictionaries.count else {
            throw ArchiveError(.libplistFailure, "libplist returned more dictionaries than the XML document has")
        }
        let scanned = xmlDictionaries[dictionariesSeen]
        dictionariesSeen += 1
        let kept = Int(plist_dict_get_size(node))
        guard kept == scanned.keys else {
            throw ArchiveError(
                .invalidObject,
                "XML dictionary at offset \(scanned.offset) has \(scanned.keys) keys but \(kept) distinct entries "
                    + "(a repeated key, or a key without a value)"
            )
        }
    }

    /// A copy of a string or key node's UTF-8 bytes (libplist keeps the length, so NUL bytes survive).
    private static func string(of node: plist_t) throws(ArchiveError) -> String {
        var length: UInt64 = 0
        if let pointer = plist_get_string_ptr(node, &length) {
            guard length <= UInt64(Int.max) else {
                throw ArchiveError(.limitExceeded, "libplist reports a string of \(length) bytes")
            }
            return String(decoding: UnsafeRawBufferPointer(start: pointer, count: Int(length)), as: UTF8.self)
        }
        // plist_get_string_ptr answers only for PLIST_STRING; keys come as a copy to free here.
        var copy: UnsafeMutablePointer<CChar>? = nil
        plist_get_key_val(node, &copy)
        guard let copy else { throw ArchiveError(.libplistFailure, "libplist gave no text for a string node") }
        defer { CPlistShim_freeString(copy) }
        return String(cString: copy)
    }

    /// The elements of an array node, walked with libplist's iterator: linear in every version, where
    /// `plist_array_get_item` in a loop walks the child list each time (2.2 indexes only arrays above 100).
    private mutating func elements(of node: plist_t) throws(ArchiveError) -> [ArchiveValue] {
        var iterator: plist_array_iter? = nil
        plist_array_new_iter(node, &iterator)
        guard let iterator else { throw ArchiveError(.libplistFailure, "libplist could not make an array iterator") }
        defer { CPlistShim_freeIterator(iterator) }
        var result: [ArchiveValue] = []
        result.reserveCapacity(min(Int(plist_array_get_size(node)), 256 * 1024))
        while true {
            var item: plist_t? = nil
            plist_array_next_item(node, iterator, &item)
            guard let item else { break }
            result.append(try value(of: item))
        }
        return result
    }

    /// The entries of a dictionary node in libplist's order (the file's order), walked with its iterator.
    /// A repeated key is an error: libplist's binary parser keeps both entries.
    private mutating func entries(of node: plist_t) throws(ArchiveError) -> OrderedDictionary<String, ArchiveValue> {
        var iterator: plist_dict_iter? = nil
        plist_dict_new_iter(node, &iterator)
        guard let iterator else {
            throw ArchiveError(.libplistFailure, "libplist could not make a dictionary iterator")
        }
        defer { CPlistShim_freeIterator(iterator) }
        var result = OrderedDictionary<String, ArchiveValue>(
            minimumCapacity: min(Int(plist_dict_get_size(node)), 256 * 1024)
        )
        while true {
            var keyCopy: UnsafeMutablePointer<CChar>? = nil
            var item: plist_t? = nil
            plist_dict_next_item(node, iterator, &keyCopy, &item)
            // The key is a fresh copy (strdup) to free whatever happens next.
            let key = keyCopy.map { String(cString: $0) }
            if let keyCopy { CPlistShim_freeString(keyCopy) }
            guard let item else { break }
            guard let key else { throw ArchiveError(.libplistFailure, "libplist gave a dictionary entry with no key") }
            let element = try value(of: item)
            guard result.updateValue(element, forKey: key) == nil else {
                throw ArchiveError(.invalidObject, "dictionary has the key \"\(key)\" twice")
            }
        }
        return result
    }
}
