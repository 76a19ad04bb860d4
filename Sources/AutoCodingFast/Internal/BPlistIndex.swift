/// A validated, flat table of a binary property list's objects: a type marker, a payload offset and a count
/// for each object, with no value decoded yet.
///
/// Building it is the one linear validation pass of the native reader. Afterwards every payload extent is
/// inside the object area, every reference names an existing object, every dictionary key is a string,
/// no container contains itself, nesting is within the depth limit, and strings are valid ASCII or UTF-16.
/// Readers index the table without re-checking. Shared references stay shared: an object referenced a
/// million times costs one record.
@usableFromInline package struct BPlistIndex: Sendable {
    /// The kind of an object, from its marker byte.
    @usableFromInline package enum Kind: UInt8, Sendable {
        case null, falseValue, trueValue, integer, real, date, data, asciiString, utf16String, uid, array, dictionary

        package var isContainer: Bool { self == .array || self == .dictionary }
    }

    /// One object: 12 bytes, whatever its size. A table holds one per bplist object (5.4 million for W1's
    /// 100,000 people), so its size is a large part of a decode's memory. The offset fits 32 bits because ``BPlistTrailer`` refuses inputs
    /// past `UInt32.max` bytes.
    @usableFromInline package struct Record: Sendable {
        @usableFromInline var offset32: UInt32
        /// Elements of an array or entries of a dictionary, bytes of data or ASCII, UTF-16 units, the byte
        /// width of an integer, real or date, or a UID's value (read once, while parsing: the decoders ask for
        /// a UID far more often than for any other value, and then need not touch the archive's bytes).
        @usableFromInline package var count: UInt32
        @usableFromInline package var kind: Kind
        /// What validation learned beyond the record, in its padding: a dictionary's `$class` slot
        /// (``ClassKeySlot``) and, in an ``ArchiveRecordTable``, the checks done (``ArchiveRecordTable/entryChecked``).
        @usableFromInline package var flags: UInt8 = 0
        /// The container check's mark (see `checkContainers`), in the record's two bytes of padding: the check
        /// kept it in an array of 8 bytes per object beside each object's expanded size (43 MB of fresh memory
        /// for W1's 5.4 million objects), and now needs neither array. Read by nothing else.
        @usableFromInline var mark: UInt16 = 0

        /// Where the payload starts (after the marker and any length integer).
        @inlinable package var offset: Int {
            get { Int(offset32) }
            set { offset32 = UInt32(truncatingIfNeeded: newValue) }
        }

        /// A record; `offset` lies inside an input the trailer accepted, so below 2³².
        @inlinable package init(offset: Int, count: UInt32, kind: Kind, flags: UInt8 = 0) {
            offset32 = UInt32(truncatingIfNeeded: offset)
            self.count = count
            self.kind = kind
            self.flags = flags
        }

        /// The record of an object not validated: holds nothing.
        @usableFromInline package static var none: Record { Record(offset: 0, count: 0, kind: .null) }
    }

    let trailer: BPlistTrailer
    package let records: RecordBuffer
    /// The top object's expanded size, as ``checkExpandedSize(in:limit:forLibplist:)`` counts it, measured by
    /// the container check when it reached no container twice (a tree, as archivers write), saturated at
    /// `UInt32.max`; nil when it did, and for a table without records.
    private(set) var expandedTopSize: UInt32?

    package var topObject: Int { trailer.topObject }
    var refSize: Int { trailer.objectRefSize }

    /// Validates `bytes` and builds the table.
    init(validating bytes: UnsafeRawBufferPointer, options: ArchiveReadingOptions) throws(ArchiveError) {
        let trailer = try BPlistTrailer(parsing: bytes, options: options)
        self.trailer = trailer
        // Written in place, without an append's capacity and uniqueness checks per record (5.4 million in W1),
        // into memory a previous large index may have left (``RecordMemory``): every record is written.
        guard let records = RecordBuffer(count: trailer.objectCount) else {
            throw ArchiveError.recordTableUnavailable(objects: trailer.objectCount)
        }
        self.records = records
        let base = records.base
        // One loop per offset width, so that reading an offset-table entry is one load, not a switch.
        switch trailer.offsetIntSize {
        case 1: try Self.parseRecords(into: base, bytes, trailer, width: 1)
        case 2: try Self.parseRecords(into: base, bytes, trailer, width: 2)
        case 4: try Self.parseRecords(into: base, bytes, trailer, width: 4)
        default: try Self.parseRecords(into: base, bytes, trailer, width: trailer.offsetIntSize)
        }
        // One pass per reference width, for the same reason; it also writes each dictionary's `$class` slot into
        // the records.
        let limit = options.containerDepthLimit
        let buffer = records.buffer
        switch trailer.objectRefSize {
        case 1: expandedTopSize = try Self.checkContainers(buffer, bytes, trailer, references: UInt8.self, depthLimit: limit)
        case 2: expandedTopSize = try Self.checkContainers(buffer, bytes, trailer, references: UInt16.self, depthLimit: limit)
        case 4: expandedTopSize = try Self.checkContainers(buffer, bytes, trailer, references: UInt32.self, depthLimit: limit)
        default: expandedTopSize = try Self.checkContainers(buffer, bytes, trailer, references: UInt64.self, depthLimit: limit)
        }
    }

    /// Parses every record into `base`.
    @inline(__always)
    private static func parseRecords(
        into base: UnsafeMutablePointer<Record>, _ bytes: UnsafeRawBufferPointer, _ trailer: BPlistTrailer, width: Int
    ) throws(ArchiveError) {
        for object in 0..<trailer.objectCount {
            let offset = try objectOffset(object, in: bytes, trailer: trailer, width: width)
            (base + object).initialize(to: try record(object: object, at: offset, in: bytes, trailer: trailer))
        }
    }

    /// A table with no records, for ``LazyKeyedArchive``, which parses records one at a time with
    /// ``record(object:in:trailer:)``. Only the readers that take a `Record` (``integer(_:in:)``,
    /// ``double(_:in:)``, ``uid(_:in:)``, ``makeString(_:in:)``) may be used on it; they never read `records`.
    init(recordReaderFor trailer: BPlistTrailer) {
        self.trailer = trailer
        self.records = .empty
        self.expandedTopSize = nil
    }

    /// Reads object `object`'s offset-table entry, checks it points into the object area, and parses the record.
    static func record(object: Int, in bytes: UnsafeRawBufferPointer, trailer: BPlistTrailer) throws(ArchiveError)
        -> Record
    {
        let offset = try objectOffset(object, in: bytes, trailer: trailer, width: trailer.offsetIntSize)
        return try record(object: object, at: offset, in: bytes, trailer: trailer)
    }

    /// The value of object `object` when it is a well-formed UID record (marker 0x80 to 0x83, its bytes before the
    /// offset table); nil for anything else, which ``record(object:in:trailer:)`` then parses (and refuses with its
    /// error). The check of ``record(object:in:trailer:)`` for a UID, without making a record: a keyed archive holds
    /// one UID object per reference, each read once.
    @inline(__always)
    static func uidValue(object: Int, in bytes: UnsafeRawBufferPointer, trailer: BPlistTrailer) -> UInt32? {
        guard object >= 0, object < trailer.objectCount else { return nil }
        let width = trailer.offsetIntSize
        let offset = BPlistBytes.readUInt(bytes, at: trailer.offsetTableOffset + object * width, width: width)
        guard offset >= 8, offset < UInt64(trailer.offsetTableOffset) else { return nil }
        let marker = bytes[Int(offset)]
        guard marker & 0xF0 == 0x80 else { return nil }
        let valueWidth = Int(marker & 0x0F) + 1
        guard valueWidth <= 4, valueWidth <= trailer.offsetTableOffset - Int(offset) - 1 else { return nil }
        return UInt32(truncatingIfNeeded: BPlistBytes.readUInt(bytes, at: Int(offset) + 1, width: valueWidth))
    }

    /// The record of object `object` when it is a well-formed ASCII string of at most 14 bytes (marker 0x50 to
    /// 0x5E, its bytes before the offset table, none above 0x7F); nil for anything else, which
    /// ``record(object:in:trailer:)`` then parses (and refuses with its error). The check of
    /// ``record(object:in:trailer:)`` for the usual dictionary key, without its dispatch on every marker:
    /// swift-corelibs-foundation writes each key of each object as a string object of its own.
    @inline(__always)
    static func shortASCIIString(object: Int, in bytes: UnsafeRawBufferPointer, trailer: BPlistTrailer) -> Record? {
        guard object >= 0, object < trailer.objectCount else { return nil }
        let width = trailer.offsetIntSize
        let offset = BPlistBytes.readUInt(bytes, at: trailer.offsetTableOffset &+ object &* width, width: width)
        guard offset >= 8, offset < UInt64(trailer.offsetTableOffset) else { return nil }
        let payload = Int(offset) &+ 1
        let marker = bytes[payload &- 1]
        let count = Int(marker & 0x0F)
        // 16 bytes from a payload inside the object area are always readable (the 32-byte trailer follows it),
        // so the string's bytes are checked in two loads, the bytes past it masked off.
        guard marker & 0xF0 == 0x50, count != 0x0F, count <= trailer.offsetTableOffset &- payload,
            payload &+ 16 <= bytes.count
        else { return nil }
        let bits = UInt64(truncatingIfNeeded: count &* 8)
        let first = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: payload, as: UInt64.self))
        let second = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: payload &+ 8, as: UInt64.self))
        let firstMask: UInt64 = count >= 8 ? .max : (1 &<< bits) &- 1
        let secondMask: UInt64 = count > 8 ? (1 &<< (bits &- 64)) &- 1 : 0
        guard (first & firstMask | second & secondMask) & 0x8080_8080_8080_8080 == 0 else { return nil }
        return Record(offset: payload, count: UInt32(truncatingIfNeeded: count), kind: .asciiString)
    }

    /// Object `object`'s offset-table entry (`width` bytes), checked to point into the object area.
    @inline(__always)
    private static func objectOffset(
        _ object: Int, in bytes: UnsafeRawBufferPointer, trailer: BPlistTrailer, width: Int
    ) throws(ArchiveError) -> Int {
        let offset = BPlistBytes.readUInt(bytes, at: trailer.offsetTableOffset + object * width, width: width)
        guard offset >= 8, offset < UInt64(trailer.offsetTableOffset) else {
            throw ArchiveError(
                .invalidOffset,
                "object \(object) has offset \(offset), outside the object area 8..<\(trailer.offsetTableOffset)")
        }
        return Int(offset)
    }

    /// Makes a parse error out of line: its message's interpolations, written in the parser, would widen the
    /// frame and the register use of every record parsed.
    @inline(never)
    private static func outOfLine(_ make: () -> ArchiveError) -> ArchiveError { make() }

    /// Parses the marker at `offset` and checks that the whole object lies before the offset table.
    @inline(__always)
    private static func record(object: Int, at offset: Int, in bytes: UnsafeRawBufferPointer, trailer: BPlistTrailer)
        throws(ArchiveError) -> Record
    {
        let end = trailer.offsetTableOffset
        let marker = bytes[offset]
        let low = Int(marker & 0x0F)
        var payload = offset + 1

        func fixed(_ kind: Kind, width: Int) throws(ArchiveError) -> Record {
            guard width <= end - payload else {
                throw outOfLine { ArchiveError.truncated("object \(object)", at: offset) }
            }
            return Record(offset: payload, count: UInt32(width), kind: kind)
        }

        // Reads the element count: the low nibble, or an integer object after it when the nibble is 0xF.
        func count() throws(ArchiveError) -> Int {
            guard low == 0x0F else { return low }
            guard payload < end else {
                throw outOfLine { ArchiveError.truncated("object \(object)'s length", at: offset) }
            }
            let lengthMarker = bytes[payload]
            guard lengthMarker & 0xF0 == 0x10, lengthMarker & 0x0F <= 3 else {
                throw outOfLine {
                    ArchiveError.invalidObject(
                        "length marker 0x\(String(lengthMarker, radix: 16)) is not a 1, 2, 4 or 8-byte integer",
                        object: object, offset: offset)
                }
            }
            let width = 1 << Int(lengthMarker & 0x0F)
            guard width <= end - payload - 1 else {
                throw outOfLine { ArchiveError.truncated("object \(object)'s length", at: offset) }
            }
            let value = BPlistBytes.readUInt(bytes, at: payload + 1, width: width)
            payload += 1 + width
            // The count can never exceed the bytes left; larger is a lie (and may be a negative 8-byte int).
            guard value <= UInt64(end - payload), value <= UInt64(UInt32.max) else {
                throw outOfLine {
                    ArchiveError(
                        .truncated,
                        "object \(object) at offset \(offset) claims \(value) elements, more than the \(end - payload) bytes left")
                }
            }
            return Int(value)
        }

        func sized(_ kind: Kind, unit: Int) throws(ArchiveError) -> Record {
            // The length in the marker, the usual case, without the call to `count()`.
            let n = low != 0x0F ? low : try count()
            // n ≤ remaining bytes ≤ Int.max / 16, so n * unit cannot overflow.
            guard n * unit <= end - payload else {
                throw outOfLine {
                    ArchiveError(
                        .truncated,
                        "object \(object) at offset \(offset) claims \(n) elements (\(n * unit) bytes), more than the \(end - payload) bytes left")
                }
            }
            return Record(offset: payload, count: UInt32(n), kind: kind)
        }

        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x00: return Record(offset: payload, count: 0, kind: .null)
            case 0x08: return Record(offset: payload, count: 0, kind: .falseValue)
            case 0x09: return Record(offset: payload, count: 0, kind: .trueValue)
            default: break
            }
        case 0x1:
            guard low <= 4 else {
                throw outOfLine {
                    ArchiveError.invalidObject(
                        "integer width 2^\(low) bytes is not 1, 2, 4, 8 or 16", object: object, offset: offset)
                }
            }
            let record = try fixed(.integer, width: 1 << low)
            if low == 4 {
                // 16-byte integers hold values in Int64.min...UInt64.max; the high half must be a sign extension.
                let high = BPlistBytes.readUInt(bytes, at: payload, width: 8)
                let lowHalf = BPlistBytes.readUInt(bytes, at: payload + 8, width: 8)
                guard high == 0 || (high == UInt64.max && lowHalf >> 63 == 1) else {
                    throw outOfLine {
                        ArchiveError.invalidObject(
                            "16-byte integer is outside Int64.min...UInt64.max", object: object, offset: offset)
                    }
                }
            }
            return record
        case 0x2:
            guard low == 2 || low == 3 else {
                throw outOfLine {
                    ArchiveError.invalidObject(
                        "real width 2^\(low) bytes is not 4 or 8", object: object, offset: offset)
                }
            }
            return try fixed(.real, width: 1 << low)
        case 0x3:
            guard low == 3 else {
                throw outOfLine {
                    ArchiveError.invalidObject(
                        "date marker 0x\(String(marker, radix: 16)) is not 0x33", object: object, offset: offset)
                }
            }
            return try fixed(.date, width: 8)
        case 0x4:
            return try sized(.data, unit: 1)
        case 0x5:
            let record = try sized(.asciiString, unit: 1)
            guard BPlistBytes.isASCII(bytes, from: record.offset, count: Int(record.count)) else {
                throw outOfLine {
                    ArchiveError.invalidObject("ASCII string has a byte above 0x7F", object: object, offset: offset)
                }
            }
            return record
        case 0x6:
            let record = try sized(.utf16String, unit: 2)
            if let bad = BPlistBytes.firstUnpairedSurrogate(bytes, from: record.offset, count: Int(record.count)) {
                throw outOfLine {
                    ArchiveError.invalidObject(
                        "UTF-16 string has an unpaired surrogate at unit \(bad)", object: object, offset: offset)
                }
            }
            return record
        case 0x8:
            let width = low + 1
            let record = try fixed(.uid, width: width)
            let value = BPlistBytes.readUInt(bytes, at: payload, width: width)
            guard value <= UInt64(UInt32.max) else {
                throw outOfLine {
                    ArchiveError(.invalidUID, "object \(object) at offset \(offset): UID \(value) is wider than 32 bits")
                }
            }
            return Record(offset: record.offset, count: UInt32(value), kind: .uid)
        case 0xA:
            return try sized(.array, unit: trailer.objectRefSize)
        case 0xC:
            throw outOfLine {
                ArchiveError.invalidObject(
                    "set objects (marker 0xC) are not property-list values", object: object, offset: offset)
            }
        case 0xD:
            return try sized(.dictionary, unit: 2 * trailer.objectRefSize)
        default:
            break
        }
        throw outOfLine {
            ArchiveError.invalidObject(
                "unknown marker 0x\(String(marker, radix: 16))", object: object, offset: offset)
        }
    }

    /// Checks every container once, depth first without recursion: references in range, keys are strings,
    /// no cycles, and no chain of nested containers longer than `depthLimit`. Measures the top's expanded size
    /// on the way, so that ``checkExpandedSize(in:limit:forLibplist:)`` need not walk the containers again,
    /// unless a container is reached twice: each finished container's size goes only to its parent, so that no
    /// size is kept per object (an array of 4 bytes an object, whose fresh pages cost 11 % of W1's read to
    /// clear), and then the size is unknown (nil).
    /// References are read as `Reference` when they are that wide (the reader specialized for the width), byte
    /// by byte otherwise (3, 5, 6 or 7 bytes).
    private static func checkContainers<Reference: FixedWidthInteger & UnsignedInteger>(
        _ records: UnsafeMutableBufferPointer<Record>, _ bytes: UnsafeRawBufferPointer, _ trailer: BPlistTrailer,
        references: Reference.Type, depthLimit: Int
    ) throws(ArchiveError) -> UInt32? {
        let limit = depthLimit
        let refSize = trailer.objectRefSize
        let exact = MemoryLayout<Reference>.size == refSize
        // Per object: its record's `mark`, 0 not visited, 1 on the current path, h + 2 done, with h the height of
        // its nesting.
        var topSize: UInt32 = 1
        var reachedTwice = false
        var stack: [(object: Int, next: Int, height: Int, size: UInt32)] = []
        let count = records.count
        func adding(_ a: UInt32, _ b: UInt32) -> UInt32 {
            let (sum, overflow) = a.addingReportingOverflow(b)
            return overflow ? .max : sum
        }

        for start in 0..<count where records[start].kind.isContainer && records[start].mark == 0 {
            records[start].mark = 1
            stack.append((start, 0, 1, 1))
            while let top = stack.last {
                let record = records[top.object]
                let isDictionary = record.kind == .dictionary
                let keys = isDictionary ? Int(record.count) : 0
                let refs = isDictionary ? 2 * Int(record.count) : Int(record.count)
                var next = top.next
                var height = top.height
                var size = top.size
                var descended = false
                func reference(_ slot: Int) throws(ArchiveError) -> Int {
                    let at = record.offset + slot * refSize
                    let child = exact
                        ? UInt64(Reference(bigEndian: bytes.loadUnaligned(fromByteOffset: at, as: Reference.self)))
                        : BPlistBytes.readUInt(bytes, at: at, width: refSize)
                    guard child < UInt64(count) else {
                        throw ArchiveError.referenceBeyondTable(child, from: top.object, count: count)
                    }
                    return Int(child)
                }
                // A dictionary's keys, in one run when it is first met: strings, never descended into, their
                // nodes (``Record/keyNodes``) summed without saturating (at most 2³² keys of 2³⁰ + 1 each).
                if next < keys {
                    var classKeys = ClassKeySlot()
                    var keyNodes: UInt64 = 0
                    while next < keys {
                        let c = try reference(next)
                        let key = records[c]
                        guard key.kind.isString else {
                            throw ArchiveError.keyIsNotAString(c, kind: "\(key.kind)", in: top.object)
                        }
                        classKeys.note(key, at: next, in: bytes)
                        keyNodes &+= UInt64(key.keyNodes)
                        next += 1
                    }
                    classKeys.record(in: &records[top.object])
                    size = adding(size, UInt32(clamping: keyNodes))
                }
                // The values in one inner loop (most are strings and UIDs, not containers); the stack is touched
                // again only to descend into a child container or to finish.
                while next < refs {
                    let c = try reference(next)
                    let childRecord = records[c]
                    next += 1
                    guard childRecord.kind.isContainer else {
                        size = adding(size, 1)
                        continue
                    }
                    switch childRecord.mark {
                    case 0:
                        guard stack.count < limit else { throw depthError(at: c, limit) }
                        stack[stack.count - 1].next = next
                        stack[stack.count - 1].height = height
                        stack[stack.count - 1].size = size
                        records[c].mark = 1
                        stack.append((c, 0, 1, 1))
                        descended = true
                    case 1:
                        throw ArchiveError(
                            .referenceCycle, "object \(c) contains itself (reached again from object \(top.object))")
                    default:
                        let childHeight = Int(childRecord.mark) - 2 + 1
                        if childHeight > height { height = childHeight }
                        if childHeight > limit { throw depthError(at: top.object, limit) }
                        // Done already: reached once before, its size not kept.
                        reachedTwice = true
                    }
                    if descended { break }
                }
                if descended { continue }
                // h + 2, as the marks are read below (h + 1 read back as h - 1 lost a level at every container
                // met done: nesting written children first passed at any depth).
                records[top.object].mark = UInt16(height + 2)
                if top.object == trailer.topObject { topSize = size }
                stack.removeLast()
                if !stack.isEmpty {
                    stack[stack.count - 1].height = max(stack[stack.count - 1].height, height + 1)
                    stack[stack.count - 1].size = adding(stack[stack.count - 1].size, size)
                    if stack[stack.count - 1].height > limit { throw depthError(at: stack.last!.object, limit) }
                }
            }
        }
        return reachedTwice ? nil : topSize
    }

    private static func depthError(at object: Int, _ limit: Int) -> ArchiveError {
        ArchiveError.depthLimitExceeded(limit, writing: false, at: " at object \(object)")
    }
}
