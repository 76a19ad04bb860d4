#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OrderedCollections

/// Writes a value tree as a binary property list in linear time.
///
/// Pass one flattens the tree into numbered objects in CoreFoundation's order (a container, then its keys,
/// then its values), uniquing scalars so each distinct string, number, date, data and UID is stored once,
/// and sums their sizes. The reference and offset widths follow from the count and the size. Pass two fills
/// one buffer allocated at its final size.
struct BPlistWriter {
    private var objects: [Flat] = []
    private let refs: References
    /// The strings and data the objects name by index.
    private var texts: [String] = []
    private var blobs: [[UInt8]] = []
    // Uniquing tables (strings, scalars, data, UIDs) keyed by exact bits and bytes: 0.0 and -0.0 stay distinct,
    // and so do canonically equivalent strings with different code points (Swift's String `==` would merge them).
    private var strings = ValueNumbers()
    /// Integers, reals (by bit pattern) and dates, by their kind and 64 bits: one table, a candidate matched with
    /// its kind (where `[Int64: Int]` and three more dictionaries hashed every scalar with SipHash).
    private var scalars = ValueNumbers()
    private var datas: [[UInt8]: Int] = [:]
    /// UIDs are usually small and dense: object numbers by UID value (below 2³², see `References`),
    /// `UInt32.max` when not yet written. A UID far beyond the objects written so far (a value tree is not
    /// validated) goes to `sparseUIDs` instead, so a single large UID cannot allocate gigabytes.
    private var uids: [UInt32] = []
    private var sparseUIDs: [UInt32: Int] = [:]
    private var booleans: [Int] = [-1, -1]
    /// Payload bytes of all objects except the container references, which depend on the final count.
    private var scalarBytes = 0
    private var containerRefs = 0
    private var containerHeaders = 0

    /// A writer with room for `references` container references before its buffer grows.
    private init(references: Int) { refs = References(capacity: references) }

    /// A writer for a value tree.
    private static func treeWriter() -> BPlistWriter {
        var writer = BPlistWriter(references: initialCapacity)
        writer.objects.reserveCapacity(initialCapacity)
        return writer
    }

    /// Where a value tree's tables start (its size is not known before it is walked): a small plist is written
    /// with one allocation per table, not one per doubling from a single element.
    private static let initialCapacity = 256

    /// Appends `element` to one of the side tables, starting it at ``initialCapacity`` elements.
    private static func append<Element>(_ element: Element, to table: inout [Element]) -> Int {
        if table.capacity == 0 { table.reserveCapacity(initialCapacity) }
        table.append(element)
        return table.count - 1
    }

    /// Writes `value`, refusing containers nested deeper than `depthLimit` (the rule of
    /// ``ArchiveReadingOptions/containerDepthLimit``, so that what is written reads back).
    static func write(_ value: ArchiveValue, depthLimit: Int) throws(ArchiveError) -> [UInt8] {
        var writer = treeWriter()
        try writer.flatten(value, depthLimit: depthLimit)
        return writer.serialize()
    }

    /// Writes `value` whatever its depth (for callers that cannot throw; the walk costs no stack).
    static func write(_ value: ArchiveValue) -> [UInt8] {
        var writer = treeWriter()
        do {
            try writer.flatten(value, depthLimit: .max)
        } catch {
            // No limit: flattening has nothing else to refuse.
        }
        return writer.serialize()
    }

    /// Writes a keyed archive whose `$objects` is a flat table: the bytes ``write(_:)`` gives for the archive's
    /// property list (``KeyedArchive/propertyList``), numbered straight from the table. Instance entries are
    /// written as dictionaries without being built as one, and an instance's keys are looked up by class: the
    /// instances of one class usually repeat the same key strings, which then cost a comparison, not a hash.
    static func writeKeyedArchive(
        archiver: String, top: OrderedDictionary<String, ArchiveValue>, objects table: borrowing ArchiveObjectTable
    ) -> [UInt8] {
        keyedArchive(archiver: archiver, top: top, objects: table).serialize()
    }

    /// ``writeKeyedArchive(archiver:top:objects:)`` into a `Data` that owns the buffer written, not a copy of it
    /// (at a million people, a 700 MB copy into fresh memory).
    static func writeKeyedArchiveData(
        archiver: String, top: OrderedDictionary<String, ArchiveValue>, objects table: borrowing ArchiveObjectTable
    ) -> Data {
        keyedArchive(archiver: archiver, top: top, objects: table).serializeData()
    }

    /// A writer that has numbered the keyed archive's objects.
    private static func keyedArchive(
        archiver: String, top: OrderedDictionary<String, ArchiveValue>, objects table: borrowing ArchiveObjectTable
    ) -> BPlistWriter {
        // Two references per field and per `$class`, one per list element, and some for other lists' elements.
        var writer = BPlistWriter(
            references: 2 * (table.fieldCount + table.count) + table.count + table.listElementCount)
        // Up to about half the entries of an archive are distinct strings (corelibs' W1-10k: 39,183 of 89,188);
        // more grow the table.
        writer.strings.reserve(table.count / 2)
        writer.texts.reserveCapacity(table.count / 2)
        // Each entry is an object, and so are its UID and a list's array; a field adds at most one key, string or
        // scalar. Reserved whole, as untouched pages cost nothing (W1: 2.5 objects an entry; growing copied it).
        writer.objects.reserveCapacity(3 * table.count + table.fieldCount)
        // The table's UIDs name its own entries: numbered in a dense array of that size from the start, not in
        // `sparseUIDs` while they run ahead of the objects written.
        writer.uids = HugePages.array(repeating: .max, count: table.count)
        HugePages.advise(capacityOf: &writer.objects)
        let root = writer.beginContainer(dictionary: true, count: 4)
        writer.refs[root] = writer.flattenString(ArchiveKey.version)
        writer.refs[root + 4] = writer.flattenInteger(Int64(ArchiveKey.formatVersion))
        writer.refs[root + 1] = writer.flattenString(ArchiveKey.archiver)
        writer.refs[root + 5] = writer.flattenString(archiver)
        writer.refs[root + 2] = writer.flattenString(ArchiveKey.top)
        let topNumber = writer.flattenAny(.dictionary(top))
        writer.refs[root + 6] = topNumber
        writer.refs[root + 3] = writer.flattenString(ArchiveKey.objects)
        writer.refs[root + 7] = writer.objects.count
        let elements = writer.beginContainer(dictionary: false, count: table.count)
        var classKey = -1
        var keyNumbers = ClassKeyNumbers(entries: table.count)
        // The table's arrays are read in place: no copy (and retain) of each entry, key and value.
        // A number is computed before the reference slot it goes to is named: `writer.refs[i] = writer.f()`
        // loads (and retains) `refs` before the mutating call and releases it after, per reference.
        table.withStorage { entries, keys, values, listKeys, listElements in
            // By index, each entry read in place (`enumerated()` copied each one out).
            for i in 0..<entries.count {
                switch entries[i] {
                case .value(let value):
                    let number = writer.flattenAny(value)
                    writer.refs[elements + i] = number
                case .instance(let classUID, let start, let count):
                    writer.refs[elements + i] = writer.objects.count
                    let fields = writer.beginContainer(dictionary: true, count: count + 1)
                    let cached = keyNumbers.start(classUID)
                    for j in 0..<count {
                        let keyNumber = keyNumbers.number(of: keys[start + j], at: j, in: cached) {
                            writer.flattenString($0)
                        }
                        writer.refs[fields + j] = keyNumber
                        let valueNumber = writer.flattenField(values[start + j])
                        writer.refs[fields + count + 1 + j] = valueNumber
                    }
                    if classKey < 0 { classKey = writer.flattenString(ArchiveKey.class) }
                    writer.refs[fields + count] = classKey
                    let classNumber = writer.flattenUID(classUID)
                    writer.refs[fields + 2 * count + 1] = classNumber
                case .list(let classUID, let key, let start, let count):
                    // Numbered as the instance of one field holding an array of UIDs would be.
                    writer.refs[elements + i] = writer.objects.count
                    let fields = writer.beginContainer(dictionary: true, count: 2)
                    let cached = keyNumbers.start(classUID)
                    let keyNumber = keyNumbers.number(of: listKeys[Int(key)], at: 0, in: cached) {
                        writer.flattenString($0)
                    }
                    writer.refs[fields] = keyNumber
                    writer.refs[fields + 2] = writer.objects.count
                    let list = writer.beginContainer(dictionary: false, count: count)
                    for j in 0..<count {
                        let number = writer.flattenUID(listElements[start + j])
                        writer.refs[list + j] = number
                    }
                    if classKey < 0 { classKey = writer.flattenString(ArchiveKey.class) }
                    writer.refs[fields + 1] = classKey
                    let classNumber = writer.flattenUID(classUID)
                    writer.refs[fields + 3] = classNumber
                }
            }
        }
        return writer
    }

    /// Numbers an instance's field value. A list of scalars (`NS.objects`, `NS.keys`: UIDs) is numbered in one
    /// loop, as the general walk would number it, without that walk's frame stack.
    private mutating func flattenField(_ value: ArchiveValue) -> Int {
        switch value {
        case .uid(let u):
            // Most fields: another entry of the table.
            return flattenUID(u)
        case .array(let elements) where !elements.contains(where: \.isContainer):
            let number = objects.count
            let start = beginContainer(dictionary: false, count: elements.count)
            for (i, element) in elements.enumerated() {
                let elementNumber: Int
                if case .uid(let u) = element {
                    elementNumber = flattenUID(u)
                } else {
                    elementNumber = flattenScalar(element)
                }
                refs[start + i] = elementNumber
            }
            return number
        default:
            return flattenAny(value)
        }
    }

    /// The object numbers of the key strings last written for each class, by position.
    private struct ClassKeyNumbers {
        /// By class UID (an entry of the table), the index of its list plus one; 0 before its first instance.
        private var slots: [Int32]
        private var lists: [[(key: String, number: Int)]] = []

        init(entries: Int) { slots = HugePages.array(repeating: 0, count: entries) }

        /// The list of `classUID`'s keys, made empty the first time.
        mutating func start(_ classUID: ArchiveUID) -> Int {
            let index = classUID.index
            // Within the table when the encoders made the UID; grown rather than trusted otherwise.
            if index >= slots.count { slots.append(contentsOf: repeatElement(0, count: index + 1 - slots.count)) }
            if slots[index] > 0 { return Int(slots[index]) - 1 }
            lists.append([])
            slots[index] = Int32(truncatingIfNeeded: lists.count)
            return lists.count - 1
        }

        /// The number of `key`, the `position`th field of an instance: the cached one when the class's
        /// previous instance had the same bytes there, else `flatten(key)`'s, cached for the next instance.
        mutating func number(of key: String, at position: Int, in slot: Int, flatten: (String) -> Int) -> Int {
            if position < lists[slot].count {
                let cached = lists[slot][position]
                if StringBytes.equal(cached.key, key) {
                    return cached.number
                }
                let number = flatten(key)
                lists[slot][position] = (key, number)
                return number
            }
            let number = flatten(key)
            lists[slot].append((key, number))
            return number
        }
    }

    /// Numbers a container whose children the caller numbers, and returns its first reference slot: keys at
    /// `start..<start + count`, values after them.
    private mutating func beginContainer(dictionary: Bool, count: Int) -> Int {
        let slots = dictionary ? 2 * count : count
        let start = refs.append(slots)
        let n = UInt32(count)  // See `Flat`: a count of 2³² is 16 GiB of references.
        objects.append(dictionary ? .dictionary(start: start, count: n) : .array(start: start, count: n))
        containerRefs += slots
        containerHeaders += Self.headerSize(count: count)
        return start
    }

    // MARK: Pass one

    /// A container whose children are being numbered. The tree is walked with this explicit stack, depth
    /// first, so objects get the numbers a recursive walk would give (a container, then each key and
    /// value in order) and nesting costs heap, never call stack.
    private struct Frame {
        var elements: [ArchiveValue]
        var entries: OrderedDictionary<String, ArchiveValue>
        let isDictionary: Bool
        /// The first of the container's reference slots in `refs`.
        let start: Int
        let count: Int
        var next = 0
    }

    /// Numbers `root` and everything under it; returns the number of `root`.
    @discardableResult
    private mutating func flatten(_ root: ArchiveValue, depthLimit: Int) throws(ArchiveError) -> Int {
        var frames: [Frame] = []
        let rootNumber = try number(root, frames: &frames, depthLimit: depthLimit)
        // The innermost container's children are numbered in a tight loop; the walk leaves it only to descend
        // into a child container (pushed by `number`) and comes back to it when that one is done.
        frames: while let i = frames.indices.last {
            let start = frames[i].start
            let count = frames[i].count
            var next = frames[i].next
            if frames[i].isDictionary {
                let entries = frames[i].entries
                while next < count {
                    let keyNumber = flattenString(entries.keys[next])  // Before the slot: see keyedArchive.
                    refs[start + next] = keyNumber
                    let value = entries.values[next]
                    next += 1
                    if value.isContainer {
                        frames[i].next = next
                        let valueNumber = try number(value, frames: &frames, depthLimit: depthLimit)
                        refs[start + count + next - 1] = valueNumber
                        continue frames
                    }
                    let valueNumber = flattenScalar(value)
                    refs[start + count + next - 1] = valueNumber
                }
            } else {
                let elements = frames[i].elements
                while next < count {
                    let element = elements[next]
                    next += 1
                    if element.isContainer {
                        frames[i].next = next
                        let elementNumber = try number(element, frames: &frames, depthLimit: depthLimit)
                        refs[start + next - 1] = elementNumber
                        continue frames
                    }
                    let elementNumber = flattenScalar(element)
                    refs[start + next - 1] = elementNumber
                }
            }
            frames.removeLast()
        }
        return rootNumber
    }

    /// Numbers a value of any depth: a scalar at once, a container with its whole subtree.
    private mutating func flattenAny(_ value: ArchiveValue) -> Int {
        guard value.isContainer else { return flattenScalar(value) }
        do {
            return try flatten(value, depthLimit: .max)
        } catch {
            preconditionFailure("no depth limit: flattening has nothing else to refuse")
        }
    }

    /// The object number of `value`: a scalar is numbered (or found) at once; a container is numbered, its
    /// reference slots reserved, and a frame pushed for its children.
    private mutating func number(_ value: ArchiveValue, frames: inout [Frame], depthLimit: Int) throws(ArchiveError)
        -> Int
    {
        let number = objects.count
        let frame: Frame
        switch value {
        case .array(let elements):
            let start = beginContainer(dictionary: false, count: elements.count)
            frame = Frame(elements: elements, entries: [:], isDictionary: false, start: start, count: elements.count)
        case .dictionary(let entries):
            let start = beginContainer(dictionary: true, count: entries.count)
            frame = Frame(elements: [], entries: entries, isDictionary: true, start: start, count: entries.count)
        default:
            return flattenScalar(value)
        }
        // The container just numbered sits at depth frames.count + 1.
        guard frames.count < depthLimit else { throw ArchiveError.depthLimitExceeded(depthLimit, writing: true) }
        frames.append(frame)
        return number
    }

    private mutating func flattenScalar(_ value: ArchiveValue) -> Int {
        switch value {
        case .array, .dictionary:
            preconditionFailure("containers are numbered by number(_:frames:depthLimit:)")
        case .string(let s):
            return flattenString(s)
        case .uid(let u):
            return flattenUID(u)
        case .integer(let v):
            return flattenInteger(v)
        case .unsignedInteger(let v):
            if let signed = Int64(exactly: v) { return flattenInteger(signed) }
            return flattenBits(.largeInteger(v), bits: v, size: 17)
        case .real(let d):
            return flattenBits(.real(d.bitPattern), bits: d.bitPattern, size: 9)
        case .date(let d):
            let bits = d.timeIntervalSinceReferenceDate.bitPattern
            return flattenBits(.date(bits), bits: bits, size: 9)
        case .bool(let b):
            let slot = b ? 1 : 0
            if booleans[slot] >= 0 { return booleans[slot] }
            booleans[slot] = objects.count
            return append(.bool(b), size: 1)
        case .data(let bytes):
            if let existing = datas[bytes] { return existing }
            datas[bytes] = objects.count
            let index = Self.append(bytes, to: &blobs)
            return append(.data(index: index), size: Self.headerSize(count: bytes.count) + bytes.count)
        }
    }

    /// The object number of UID `u`: a UID met before is looked up inline (about half of a keyed archive's UID
    /// references), the first meeting numbers it out of line.
    @inline(__always)
    private mutating func flattenUID(_ u: ArchiveUID) -> Int {
        let index = u.index
        if index < uids.count {
            let known = uids[index]
            if known != .max { return Int(known) }
        }
        return numberUID(u)
    }

    @inline(never)
    private mutating func numberUID(_ u: ArchiveUID) -> Int {
        let index = u.index
        // A UID first met far ahead of the objects written was numbered there; it may be in range now.
        if !sparseUIDs.isEmpty, let existing = sparseUIDs[u.rawValue] { return existing }
        if index >= uids.count {
            guard index < 2 * objects.count + 4096 else {
                sparseUIDs[u.rawValue] = objects.count
                return append(.uid(u.rawValue), size: 1 + Self.uidWidth(u.rawValue))
            }
            uids.append(contentsOf: repeatElement(.max, count: index + 1 - uids.count))
        }
        uids[index] = UInt32(truncatingIfNeeded: objects.count)
        return append(.uid(u.rawValue), size: 1 + Self.uidWidth(u.rawValue))
    }

    private mutating func flattenInteger(_ v: Int64) -> Int {
        flattenBits(.integer(v), bits: UInt64(bitPattern: v), size: 1 + (v < 0 ? 8 : Self.intWidth(UInt64(v))))
    }

    /// Numbers scalar `object` of `size` bytes, whose 64 bits are `bits`, once per kind and bits (``scalars``).
    private mutating func flattenBits(_ object: Flat, bits: UInt64, size: Int) -> Int {
        let number = objects.count
        let existing = withUnsafeBytes(of: bits) { key in
            scalars.number(of: key, orAdd: number) { objects[$0] == object }
        }
        return existing != number ? existing : append(object, size: size)
    }

    /// Numbers a scalar object of `size` bytes.
    private mutating func append(_ object: Flat, size: Int) -> Int {
        objects.append(object)
        scalarBytes += size
        return objects.count - 1
    }

    private mutating func flattenString(_ s: String) -> Int {
        let number = objects.count
        // A new string's ASCII test reads the bytes already at hand, a word at a time.
        let (existing, ascii) = StringBytes.withUTF8(s) { raw in
            let existing = strings.number(of: raw, orAdd: number) { candidate in
                guard case .string(let index, _) = objects[candidate] else { return false }
                return StringBytes.equal(texts[index], raw)
            }
            return (existing, existing == number && BPlistBytes.isASCII(raw, from: 0, count: raw.count))
        }
        if existing != number { return existing }
        let index = Self.append(s, to: &texts)
        let count = ascii ? s.utf8.count : s.utf16.count
        let size = Self.headerSize(count: count) + (ascii ? count : 2 * count)
        return append(Flat.string(index: index, ascii: ascii), size: size)
    }

    /// Bytes of a marker plus, for 15 or more elements, the length integer that follows it.
    private static func headerSize(count: Int) -> Int {
        count < 15 ? 1 : 2 + intWidth(UInt64(count))
    }

    /// The smallest of 1, 2, 4 or 8 bytes that holds `value`.
    private static func intWidth(_ value: UInt64) -> Int {
        value <= 0xFF ? 1 : value <= 0xFFFF ? 2 : value <= 0xFFFF_FFFF ? 4 : 8
    }

    private static func uidWidth(_ value: UInt32) -> Int {
        value <= 0xFF ? 1 : value <= 0xFFFF ? 2 : 4
    }

    // MARK: Pass two

    /// Where the parts of the file go: the reference and offset widths, the offset table's position, the size.
    private struct Layout {
        let refSize: Int
        let tableOffset: Int
        let offsetSize: Int
        let total: Int
    }

    private var layout: Layout {
        // CoreFoundation's rule: references wide enough for the object count itself.
        let refSize = Self.intWidth(UInt64(objects.count))
        let tableOffset = 8 + scalarBytes + containerHeaders + containerRefs * refSize
        let offsetSize = Self.intWidth(UInt64(tableOffset))
        let total = tableOffset + objects.count * offsetSize + BPlistTrailer.size
        return Layout(refSize: refSize, tableOffset: tableOffset, offsetSize: offsetSize, total: total)
    }

    private func serialize() -> [UInt8] {
        let layout = self.layout
        return [UInt8](unsafeUninitializedCapacity: layout.total) { buffer, initialized in
            fill(UnsafeMutableRawBufferPointer(buffer), layout)
            initialized = layout.total
        }
    }

    private func serializeData() -> Data {
        let layout = self.layout
        let base = UnsafeMutableRawPointer.allocate(byteCount: layout.total, alignment: 16)
        fill(UnsafeMutableRawBufferPointer(start: base, count: layout.total), layout)
        return Data(bytesNoCopy: base, count: layout.total, deallocator: .custom { pointer, _ in pointer.deallocate() })
    }

    /// Writes the whole file into `out`, `layout.total` bytes.
    private func fill(_ out: UnsafeMutableRawBufferPointer, _ layout: Layout) {
        let (refSize, tableOffset, offsetSize) = (layout.refSize, layout.tableOffset, layout.offsetSize)
        precondition(out.count == layout.total)
        if let base = out.baseAddress { HugePages.advise(base, byteCount: out.count) }
        for (i, byte) in BPlistTrailer.magic.enumerated() { out[i] = byte }
        var position = 8
        objects.withUnsafeBufferPointer { objects in
            for (number, object) in objects.enumerated() {
                let offset = tableOffset + number * offsetSize
                BPlistBytes.writeUInt(UInt64(position), to: out, at: offset, width: offsetSize)
                position = write(object, refSize: refSize, to: out, at: position)
            }
        }
        precondition(position == tableOffset, "bplist sizing pass and fill pass disagree")
        let trailer = tableOffset + objects.count * offsetSize
        for i in 0..<6 { out[trailer + i] = 0 }
        out[trailer + 6] = UInt8(offsetSize)
        out[trailer + 7] = UInt8(refSize)
        BPlistBytes.writeUInt(UInt64(objects.count), to: out, at: trailer + 8, width: 8)
        BPlistBytes.writeUInt(0, to: out, at: trailer + 16, width: 8)
        BPlistBytes.writeUInt(UInt64(tableOffset), to: out, at: trailer + 24, width: 8)
    }

    /// Writes one object at `position`; returns the position after it.
    @inline(__always)
    private func write(_ object: Flat, refSize: Int, to out: UnsafeMutableRawBufferPointer, at position: Int) -> Int {
        switch object {
        case .integer(let v):
            return Self.writeInteger(UInt64(bitPattern: v), negative: v < 0, to: out, at: position)
        case .largeInteger(let v):
            out[position] = 0x14
            BPlistBytes.writeUInt(0, to: out, at: position + 1, width: 8)
            BPlistBytes.writeUInt(v, to: out, at: position + 9, width: 8)
            return position + 17
        case .real(let bits):
            out[position] = 0x23
            BPlistBytes.writeUInt(bits, to: out, at: position + 1, width: 8)
            return position + 9
        case .date(let bits):
            out[position] = 0x33
            BPlistBytes.writeUInt(bits, to: out, at: position + 1, width: 8)
            return position + 9
        case .bool(let b):
            out[position] = b ? 0x09 : 0x08
            return position + 1
        case .uid(let u):
            let width = Self.uidWidth(u)
            out[position] = 0x80 | UInt8(width - 1)
            BPlistBytes.writeUInt(UInt64(u), to: out, at: position + 1, width: width)
            return position + 1 + width
        case .string(let index, let ascii):
            return Self.writeString(texts[index], ascii: ascii, to: out, at: position)
        case .data(let index):
            return blobs[index].withUnsafeBytes { bytes in
                let p = Self.writeHeader(0x40, count: bytes.count, to: out, at: position)
                UnsafeMutableRawBufferPointer(rebasing: out[p..<p + bytes.count]).copyMemory(from: bytes)
                return p + bytes.count
            }
        case .array(let start, let n):
            let p = Self.writeHeader(0xA0, count: Int(n), to: out, at: position)
            return refs.write(start, count: Int(n), width: refSize, to: out, at: p)
        case .dictionary(let start, let n):
            let p = Self.writeHeader(0xD0, count: Int(n), to: out, at: position)
            return refs.write(start, count: 2 * Int(n), width: refSize, to: out, at: p)
        }
    }

    private static func writeHeader(_ marker: UInt8, count: Int, to out: UnsafeMutableRawBufferPointer, at position: Int)
        -> Int
    {
        if count < 15 {
            out[position] = marker | UInt8(count)
            return position + 1
        }
        out[position] = marker | 0x0F
        let width = intWidth(UInt64(count))
        out[position + 1] = 0x10 | UInt8(width.trailingZeroBitCount)
        BPlistBytes.writeUInt(UInt64(count), to: out, at: position + 2, width: width)
        return position + 2 + width
    }

    private static func writeString(_ s: String, ascii: Bool, to out: UnsafeMutableRawBufferPointer, at position: Int)
        -> Int
    {
        if ascii {
            return StringBytes.withUTF8(s) { utf8 in
                let p = writeHeader(0x50, count: utf8.count, to: out, at: position)
                UnsafeMutableRawBufferPointer(rebasing: out[p..<p + utf8.count]).copyMemory(from: utf8)
                return p + utf8.count
            }
        }
        var p = writeHeader(0x60, count: s.utf16.count, to: out, at: position)
        for unit in s.utf16 {
            out.storeBytes(of: unit.bigEndian, toByteOffset: p, as: UInt16.self)
            p += 2
        }
        return p
    }

    private static func writeInteger(_ bits: UInt64, negative: Bool, to out: UnsafeMutableRawBufferPointer, at position: Int)
        -> Int
    {
        // Non-negative values take 1, 2, 4 or 8 bytes; negative ones always 8, as CoreFoundation writes them.
        let width = negative ? 8 : intWidth(bits)
        out[position] = 0x10 | UInt8(width.trailingZeroBitCount)
        BPlistBytes.writeUInt(bits, to: out, at: position + 1, width: width)
        return position + 1 + width
    }
}
