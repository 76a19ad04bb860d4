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
/// validated by ``BPlistIndex`` (and its expanded size checked) by the caller; XML input is scanned here
/// for size, nesting depth, element count, scalar text and repeated keys. libplist 2.2 ... 2.7 differences
/// are hidden in `CPlistShim`.
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

    /// The dates Apple's XML form (`YYYY-MM-DDTHH:MM:SSZ`, four-digit year) can hold, in seconds since 2001:
    /// 0000-01-01T00:00:00Z up to, not including, 10000-01-01T00:00:00Z.
    static let xmlDateRange: Range<Double> = -63_145_526_400 ..< 252_423_993_600

    /// 1000-01-01T00:00:00Z: libplist writes earlier years with fewer than four digits.
    private static let year1000: Double = -31_588_531_200

    /// Throws for a date the XML form cannot hold (libplist would write a year our reader, like
    /// CoreFoundation, refuses); returns whether some date has a year below 1000.
    private static func checkXMLDates(in value: ArchiveValue) throws(ArchiveError) -> Bool {
        var early = false
        var pending = [value]
        while let next = pending.popLast() {
            switch next {
            case .date(let date):
                let seconds = date.timeIntervalSinceReferenceDate
                guard xmlDateRange.contains(seconds) else {
                    throw ArchiveError.unexpectedType(
                        "date \(seconds) s after 2001 is outside years 0000...9999, which an XML plist cannot hold")
                }
                if seconds < year1000 { early = true }
            case .array(let elements): pending.append(contentsOf: elements)
            case .dictionary(let entries):
                // XML spells a UID as this very dictionary, so one would read back as a UID (or as an invalid one).
                if entries.count == 1, let first = entries.elements.first, first.key == "CF$UID" {
                    switch first.value {
                    case .integer, .unsignedInteger:
                        throw ArchiveError.unexpectedType(
                            "a dictionary whose only key is CF$UID, with an integer, reads back from XML as a UID")
                    default: break
                    }
                }
                pending.append(contentsOf: entries.values)
            default: break
            }
        }
        return early
    }

    /// Left-pads with zeros the years libplist wrote with fewer than four digits (`<date>197-01-02T…`, from
    /// `strftime`'s `%Y`), giving the form Apple writes and every reader, ours included, accepts.
    private static func paddingShortYears(in xml: [UInt8]) -> [UInt8] {
        let open = Array("<date>".utf8)
        var result: [UInt8] = []
        result.reserveCapacity(xml.count + 16)
        var i = 0
        while i < xml.count {
            if xml[i] == open[0], xml[i...].starts(with: open) {
                result.append(contentsOf: open)
                i += open.count
                let digits = xml[i...].prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }.count
                if digits < 4 { result.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: 4 - digits)) }
                continue
            }
            result.append(xml[i])
            i += 1
        }
        return result
    }

    /// Numbers, in document order, the reals of `value` and notes which are -0.0.
    ///
    /// libplist writes every real zero as `0.0` (its `dtostr` tests `realval == 0.0`), losing the sign that
    /// the binary format and CoreFoundation keep. Recursion is bounded by ``maxWriteDepth``, already checked.
    private static func collectNegativeZeroReals(in value: ArchiveValue, ordinal: inout Int, into set: inout Set<Int>) {
        switch value {
        case .real(let real):
            if real == 0 && real.sign == .minus { set.insert(ordinal) }
            ordinal += 1
        case .array(let elements):
            for element in elements { collectNegativeZeroReals(in: element, ordinal: &ordinal, into: &set) }
        case .dictionary(let entries):
            for element in entries.values { collectNegativeZeroReals(in: element, ordinal: &ordinal, into: &set) }
        default:
            break
        }
    }

    /// Rewrites the `<real>0.0</real>` elements numbered in `ordinals` as `-0.0`.
    ///
    /// libplist writes nodes in document order (a dictionary's keys and values alternate, as in
    /// `OrderedDictionary`), and escapes `<` in text, so the n-th literal `<real>` in its output is the n-th
    /// real of the value.
    private static func restoringNegativeZeros(_ ordinals: Set<Int>, in xml: [UInt8]) -> [UInt8] {
        let open = Array("<real>".utf8)
        let zero = Array("0.0</real>".utf8)
        var result: [UInt8] = []
        result.reserveCapacity(xml.count + ordinals.count)
        var ordinal = 0
        var i = 0
        while i < xml.count {
            if xml[i] == open[0], xml[i...].starts(with: open) {
                result.append(contentsOf: open)
                i += open.count
                if ordinals.contains(ordinal), xml[i...].starts(with: zero) { result.append(UInt8(ascii: "-")) }
                ordinal += 1
                continue
            }
            result.append(xml[i])
            i += 1
        }
        return result
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

// MARK: - XML pre-scan

/// A scan of an XML plist that follows libplist's tokenizer (src/xplist.c: `node_from_xml`, `get_text_parts`,
/// `find_str`, `find_next`), so that what it counts is what libplist will build.
///
/// Before libplist runs it checks the nesting depth, the element count and the text of each `<integer>`,
/// `<real>`, `<date>` and `<data>`; it records each dictionary's number of keys for the repeated-key check
/// after parsing. Comments, CDATA sections, processing instructions and the DOCTYPE are skipped as libplist
/// skips them (quoted text inside tags, `<?...?>` and the DOCTYPE included), so a `</dict>` hidden in any of
/// them cannot lower the count. A closing tag with no open container is rejected: libplist rejects it too.
private struct XMLScan {
    /// A `<dict>` (or `<dict/>`) of the document: where it starts and how many keys it holds.
    struct Dictionary {
        let offset: Int
        var keys: Int
    }

    /// An open container; in a dictionary, whether the last `<key>` still waits for its value.
    private struct Frame {
        let dictionary: Int?
        var awaitingValue = false
    }

    private enum Scalar: String {
        case integer, real, date, data
    }

    private let bytes: UnsafeRawBufferPointer
    private let options: ArchiveReadingOptions
    private var i = 0
    private var frames: [Frame] = []
    private var elements = 0
    private var dictionaries: [Dictionary] = []

    /// Scans `bytes` and returns every dictionary in document order, or throws what libplist must not see.
    static func scan(
        _ bytes: UnsafeRawBufferPointer,
        options: ArchiveReadingOptions
    ) throws(ArchiveError)
        -> [Dictionary]
    {
        var scan = XMLScan(bytes: bytes, options: options)
        try scan.run()
        return scan.dictionaries
    }

    private init(bytes: UnsafeRawBufferPointer, options: ArchiveReadingOptions) {
        self.bytes = bytes
        self.options = options
    }

    private mutating func run() throws(ArchiveError) {
        while i < bytes.count {
            guard bytes[i] == Self.ascii("<") else {
                i += 1
                continue
            }
            let start = i
            i += 1
            guard i < bytes.count else { return }  // libplist reports the truncated tag
            switch bytes[i] {
            case Self.ascii("?"):
                i = try skip(past: "?>", from: i + 1, quotes: true, what: "processing instruction", start)
            case Self.ascii("!"):
                try skipSpecial(start)
            default:
                try tag(start)
            }
        }
    }

    /// Skips `<!--...-->`, `<![CDATA[...]]>` or `<!DOCTYPE ...>` starting at `start`; `i` is at the `!`.
    private mutating func skipSpecial(_ start: Int) throws(ArchiveError) {
        if matches("!--", at: i) {
            i = try skip(past: "-->", from: i + 3, quotes: false, what: "comment", start)
        } else if matches("![CDATA[", at: i) {
            i = try skip(past: "]]>", from: i + 8, quotes: false, what: "CDATA section", start)
        } else if matches("!DOCTYPE", at: i) {
            i += 8
            while i < bytes.count {
                switch bytes[i] {
                case Self.ascii(">"):
                    i += 1
                    return
                case Self.ascii("["):
                    i = try skip(past: "]>", from: i + 1, quotes: true, what: "DOCTYPE", start)
                    return
                case Self.ascii("\""):
                    i = try skipQuoted(from: i, start)
                default:
                    i += 1
                }
            }
            throw Self.malformed("unterminated DOCTYPE at offset \(start)")
        } else {
            throw Self.malformed("unknown markup \"<!\" at offset \(start)")
        }
    }

    /// Reads the tag starting at `start` (`i` is just after its `<`) and updates the nesting.
    private mutating func tag(_ start: Int) throws(ArchiveError) {
        // The name runs to white space, '<' or '>'; then quoted attribute values are skipped up to '>'.
        let nameStart = i
        while i < bytes.count, !Self.isNameEnd(bytes[i]) { i += 1 }
        var nameEnd = i
        while i < bytes.count, bytes[i] != Self.ascii(">"), bytes[i] != Self.ascii("<") {
            if bytes[i] == Self.ascii("\"") { i = try skipQuoted(from: i, start) } else { i += 1 }
        }
        guard i < bytes.count, bytes[i] == Self.ascii(">") else {
            throw Self.malformed("the tag at offset \(start) has no closing '>'")
        }
        let isEmpty = bytes[i - 1] == Self.ascii("/")
        i += 1
        if isEmpty, nameEnd > nameStart, bytes[nameEnd - 1] == Self.ascii("/") { nameEnd -= 1 }
        let name = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[nameStart..<nameEnd]), as: UTF8.self)

        if name == "/array" || name == "/dict" {
            guard frames.popLast() != nil else {
                throw Self.malformed("closing tag at offset \(start) has no open <array> or <dict>")
            }
            return
        }
        if name.hasPrefix("/") || name == "plist" { return }

        elements += 1
        guard elements <= options.maxObjectCount else {
            throw ArchiveError(
                .limitExceeded,
                "XML plist has more than \(options.maxObjectCount) elements (maxObjectCount) at offset \(start)"
            )
        }
        // In a dictionary, libplist takes a <key> as a key only when no key waits for its value (and it is not
        // the empty <key/>, which it reads as a string value).
        if let top = frames.indices.last, let dictionary = frames[top].dictionary {
            if name == "key" && !isEmpty && !frames[top].awaitingValue {
                dictionaries[dictionary].keys += 1
                frames[top].awaitingValue = true
                return
            }
            frames[top].awaitingValue = false
        }
        switch name {
        case "array", "dict":
            var dictionary: Int? = nil
            if name == "dict" {
                dictionary = dictionaries.count
                dictionaries.append(Dictionary(offset: start, keys: 0))
            }
            guard !isEmpty else { return }
            frames.append(Frame(dictionary: dictionary))
            guard frames.count <= max(options.depthLimit, 1) else {
                throw ArchiveError(
                    .depthLimitExceeded,
                    "XML containers nest deeper than the depth limit \(max(options.depthLimit, 1)) at offset \(start)"
                )
            }
        default:
            guard let scalar = Scalar(rawValue: name) else { return }
            guard !isEmpty else {
                // libplist reads <integer/>, <real/> and <date/> as 0; CoreFoundation rejects them.
                if scalar != .data { throw Self.badText(scalar, at: start, "nothing") }
                return
            }
            try checkText(of: scalar, start)
        }
    }

    /// Checks the text of a scalar element whose start tag ends just before `i`, leaving `i` at the `<` of the
    /// closing tag. Comments are skipped and CDATA sections are text, as in libplist's `get_text_parts`.
    private mutating func checkText(of scalar: Scalar, _ start: Int) throws(ArchiveError) {
        var text: [UInt8] = []  // integer, real and date text, at most `cap` bytes
        let cap = 1024
        var base64 = Base64Check()
        func take(_ segment: UnsafeRawBufferPointer) {
            if scalar == .data {
                base64.feed(segment)
            } else if text.count + segment.count <= cap {
                text.append(contentsOf: segment)
            } else {
                text.append(contentsOf: segment.prefix(cap + 1 - text.count))
            }
        }
        while true {
            let segmentStart = i
            while i < bytes.count, bytes[i] != Self.ascii("<") { i += 1 }
            take(UnsafeRawBufferPointer(rebasing: bytes[segmentStart..<i]))
            guard i < bytes.count else { throw Self.malformed("unterminated <\(scalar)> at offset \(start)") }
            if matches("<!--", at: i) {
                i = try skip(past: "-->", from: i + 4, quotes: false, what: "comment", i)
            } else if matches("<![CDATA[", at: i) {
                let contentStart = i + 9
                let end = try skip(past: "]]>", from: contentStart, quotes: false, what: "CDATA section", i)
                take(UnsafeRawBufferPointer(rebasing: bytes[contentStart..<end - 3]))
                i = end
            } else {
                break
            }
        }
        let trimmed = Self.trimmingWhiteSpace(text)
        let valid: Bool
        switch scalar {
        case .integer: valid = text.count <= cap && Self.isInteger(trimmed)
        case .real: valid = text.count <= cap && Double(String(decoding: trimmed, as: UTF8.self)) != nil
        case .date: valid = text.count <= cap && Self.isDate(trimmed)
        case .data: valid = base64.isValid
        }
        guard valid else {
            let shown =
                scalar == .data ? "invalid base64" : "\"\(String(decoding: trimmed.prefix(40), as: UTF8.self))\""
            throw Self.badText(scalar, at: start, shown)
        }
    }

    // MARK: Lexical helpers

    @inline(__always)
    private static func ascii(_ c: Unicode.Scalar) -> UInt8 { UInt8(ascii: c) }

    private static func isWhiteSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func isNameEnd(_ byte: UInt8) -> Bool {
        isWhiteSpace(byte) || byte == ascii("<") || byte == ascii(">")
    }

    private func matches(_ literal: StaticString, at offset: Int) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard count <= bytes.count - offset else { return false }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
            .elementsEqual(UnsafeRawBufferPointer(start: literal.utf8Start, count: count))
    }

    /// The offset just past the closing quote of the quoted text starting at `offset`.
    private func skipQuoted(from offset: Int, _ start: Int) throws(ArchiveError) -> Int {
        var j = offset + 1
        while j < bytes.count, bytes[j] != Self.ascii("\"") { j += 1 }
        guard j < bytes.count else { throw Self.malformed("unterminated quote in the markup at offset \(start)") }
        return j + 1
    }

    /// The offset just past the first `terminator` at or after `offset`, skipping quoted text if `quotes`.
    private func skip(
        past terminator: StaticString,
        from offset: Int,
        quotes: Bool,
        what: String,
        _ start: Int
    ) throws(ArchiveError) -> Int {
        var j = offset
        while j < bytes.count {
            if matches(terminator, at: j) { return j + terminator.utf8CodeUnitCount }
            if quotes, bytes[j] == Self.ascii("\"") { j = try skipQuoted(from: j, start) } else { j += 1 }
        }
        throw Self.malformed("unterminated \(what) at offset \(start)")
    }

    private static func trimmingWhiteSpace(_ text: [UInt8]) -> ArraySlice<UInt8> {
        guard let first = text.firstIndex(where: { !isWhiteSpace($0) }),
            let last = text.lastIndex(where: { !isWhiteSpace($0) })
        else { return [] }
        return text[first...last]
    }

    // MARK: Scalar text

    /// A decimal or `0x` hexadecimal integer with an optional sign, in `Int64.min...UInt64.max`.
    ///
    /// libplist reads integers with `strtoull(text, NULL, 0)`, which also takes octal after a leading 0 and
    /// stops at the first bad character; CoreFoundation reads decimal. Leading zeros are refused, since the
    /// two would disagree on them.
    private static func isInteger(_ text: ArraySlice<UInt8>) -> Bool {
        var digits = text
        var negative = false
        if let sign = digits.first, sign == ascii("-") || sign == ascii("+") {
            negative = sign == ascii("-")
            digits = digits.dropFirst()
        }
        var radix: UInt64 = 10
        if digits.count > 2, digits.first == ascii("0"), digits.dropFirst().first.map({ $0 | 0x20 }) == ascii("x") {
            radix = 16
            digits = digits.dropFirst(2)
        } else if digits.count > 1, digits.first == ascii("0") {
            return false
        }
        guard !digits.isEmpty else { return false }
        var value: UInt64 = 0
        for byte in digits {
            let digit: UInt64
            switch byte {
            case ascii("0")...ascii("9"): digit = UInt64(byte - ascii("0"))
            case ascii("a")...ascii("f") where radix == 16: digit = UInt64(byte - ascii("a") + 10)
            case ascii("A")...ascii("F") where radix == 16: digit = UInt64(byte - ascii("A") + 10)
            default: return false
            }
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: radix)
            let (next, overflow2) = shifted.addingReportingOverflow(digit)
            guard !overflow1, !overflow2 else { return false }
            value = next
        }
        return !negative || value <= UInt64(Int64.max) + 1
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`, the only form Apple writes and libplist's `strptime` format.
    private static func isDate(_ text: ArraySlice<UInt8>) -> Bool {
        let form = Array("0000-00-00T00:00:00Z".utf8)
        guard text.count == form.count else { return false }
        var fields: [Int] = []
        var field = 0
        for (byte, expected) in zip(text, form) {
            if expected == ascii("0") {
                guard byte >= ascii("0"), byte <= ascii("9") else { return false }
                field = field * 10 + Int(byte - ascii("0"))
            } else {
                guard byte == expected else { return false }
                fields.append(field)
                field = 0
            }
        }
        // fields: year, month, day, hour, minute, second
        return (1...12).contains(fields[1]) && (1...31).contains(fields[2]) && fields[3] <= 23 && fields[4] <= 59
            && fields[5] <= 60
    }

    /// Base64 as libplist decodes it: groups of four, `=` padding only at the end, white space anywhere.
    /// libplist drops an incomplete last group and skips bad characters, so both are refused here.
    private struct Base64Check {
        private var count = 0
        private var padding = 0
        private var bad = false

        var isValid: Bool { !bad && count % 4 == 0 }

        mutating func feed(_ segment: UnsafeRawBufferPointer) {
            for byte in segment where !XMLScan.isWhiteSpace(byte) {
                switch byte {
                case UInt8(ascii: "="):
                    padding += 1
                    if padding > 2 { bad = true }
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"):
                    if padding > 0 { bad = true }
                default:
                    bad = true
                }
                count += 1
            }
        }
    }

    private static func malformed(_ reason: String) -> ArchiveError {
        ArchiveError(.notPropertyList, "malformed XML plist: \(reason)")
    }

    private static func badText(_ scalar: Scalar, at offset: Int, _ shown: String) -> ArchiveError {
        ArchiveError(
            .invalidObject,
            "XML <\(scalar.rawValue)> at offset \(offset) holds \(shown), not a valid \(scalar.rawValue)"
        )
    }
}
