import AutoCodingFast

/// Turns events into values with an explicit stack (no recursion however deep the stream nests).
///
/// One pass over the events, with the innermost group, array, struct or object kept in locals: a value is
/// appended to a local array, and the enclosing frames are touched only when a nested one opens or closes.
/// Type encodings and class names are turned into `String`s once per shared string; an object's class chain
/// read by reference shares the array of the first object of that class.
struct TypedGraphBuilder {
    private enum Kind { case top, group, object, array, structure }

    /// What a reference number names.
    private enum Entry {
        case object(TypedObject)
        case `class`([TypedClass])
        case cString(TypedCString)
    }

    /// A frame that encloses the innermost one, saved while the nested one is read.
    private struct Frame {
        var kind: Kind
        /// The encoding of a group, array or struct.
        var encoding: String
        /// The values so far of a group, array or struct.
        var values: [TypedValue]
        /// The groups so far of an object, or of the stream at the top.
        var groups: [TypedGroup]
        /// The object whose groups are being read.
        var owner: TypedObject?
    }

    let stream: Typedstream
    /// Class entries each hold their own chain (a class and its superclasses), so a chain of L classes read
    /// literally stores L(L+1)/2 of them: a 1 MB stream of one long chain would ask for terabytes. The
    /// classes stored are spent from this budget, proportional to the input.
    private var classBudget: Int
    /// Classes stored per input byte, on top of ``classAllowance``. A chain of L literal classes takes at
    /// least 3L bytes, so whole streams of chains up to 23 long fit, and real chains are under 10.
    static let classesPerInputByte = 4
    static let classAllowance = 4096

    init(stream: Typedstream) {
        self.stream = stream
        let (budget, overflow) = stream.storage.count.multipliedReportingOverflow(by: Self.classesPerInputByte)
        classBudget = overflow ? .max : budget &+ Self.classAllowance
    }

    /// The number of top-level types in an encoding (`iI` 2, `{_NSRange=II}` 1, `^@` 1). Only a capacity to
    /// reserve, so a malformed text costs a reallocation, never a wrong value: groups of values are small and
    /// many, and reserving their size spares the reallocations of growing each from empty.
    static func typeCount(_ bytes: ArraySlice<UInt8>) -> Int {
        var count = 0
        var depth = 0
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "("):
                if depth == 0 { count += 1 }
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ")"): depth -= 1
            case UInt8(ascii: "^"), UInt8(ascii: "0")...UInt8(ascii: "9"): break  // a pointer's target counts
            default: if depth == 0 { count += 1 }
            }
        }
        return count
    }

    mutating func build() throws(ArchiveError) -> [TypedGroup] {
        var encodings = EncodingTable()
        var entries: [Entry] = []
        var stack: [Frame] = []
        // The innermost frame.
        var kind = Kind.top
        var encoding = ""
        var values: [TypedValue] = []
        var groups: [TypedGroup] = []
        var owner: TypedObject?
        // The classes of a chain being read, with their entry numbers, until its nil or class reference, and
        // whether the chain is an object's (else it is a `#` value).
        var pendingChain: [(entry: Int, cls: TypedClass)] = []
        var inChain = false
        var chainOwner: TypedObject?

        func misplaced(_ event: TypedstreamEvent) -> ArchiveError {
            ArchiveError(.unexpectedType, "event \(event) where the stream's structure does not allow it")
        }
        /// Saves the innermost frame and opens a new one.
        func open(_ newKind: Kind, _ newEncoding: String, owner newOwner: TypedObject? = nil, capacity: Int = 0) {
            stack.append(Frame(kind: kind, encoding: encoding, values: values, groups: groups, owner: owner))
            kind = newKind
            encoding = newEncoding
            values = []
            // The reader bounded a declared array count by the event budget; the cap keeps a lie from reserving much.
            if capacity > 0 { values.reserveCapacity(min(capacity, 1 << 12)) }
            groups = []
            owner = newOwner
        }
        /// Closes the innermost frame, which must be of `closing` kind, and returns its encoding and values.
        func close(_ closing: Kind, _ event: TypedstreamEvent) throws(ArchiveError) -> (String, [TypedValue]) {
            guard kind == closing, let parent = stack.popLast() else { throw misplaced(event) }
            let closed = (encoding, values)
            kind = parent.kind
            encoding = parent.encoding
            values = parent.values
            groups = parent.groups
            owner = parent.owner
            return closed
        }
        func add(_ value: TypedValue) throws(ArchiveError) {
            guard kind != .object, kind != .top else {
                throw ArchiveError(.unexpectedType, "a value outside any group of values")
            }
            values.append(value)
        }
        /// Completes the chain being read: each pending class's chain is itself followed by the rest.
        func endChain(rest: [TypedClass]) throws(ArchiveError) {
            let chain: [TypedClass]
            if pendingChain.isEmpty {
                // The common case, an object of a class already read: its chain is shared, not copied.
                chain = rest
            } else {
                try spendClassBudget(pending: pendingChain.count, rest: rest.count)
                var literal: [TypedClass] = []
                literal.reserveCapacity(pendingChain.count + rest.count)
                for pending in pendingChain { literal.append(pending.cls) }
                literal.append(contentsOf: rest)
                chain = literal
                for (index, pending) in pendingChain.enumerated() {
                    entries[pending.entry] = .class(index == 0 ? chain : Array(chain[index...]))
                }
                pendingChain.removeAll(keepingCapacity: true)
            }
            inChain = false
            if let object = chainOwner {
                object.classes = chain
                chainOwner = nil
            } else {
                try add(.class(chain))
            }
        }

        for event in stream.events {
            switch event {
            case .beginGroup(let s):
                let known = encodings.entry(s, in: stream)
                open(.group, known.text, capacity: known.groupValues)
            case .endGroup:
                let (groupEncoding, groupValues) = try close(.group, event)
                // A group belongs to the stream at the top level, else to the object being read.
                guard kind == .top || kind == .object else { throw misplaced(event) }
                groups.append(TypedGroup(encoding: groupEncoding, values: groupValues))
            case .beginObject:
                let object = TypedObject(classes: [])
                entries.append(.object(object))
                try add(.object(object))
                open(.object, "", owner: object)
                inChain = true
                chainOwner = object
            case .endObject:
                guard kind == .object, let object = owner else { throw misplaced(event) }
                object.groups = groups
                _ = try close(.object, event)
            case .classInfo(let name, let version):
                if !inChain {
                    inChain = true
                    chainOwner = nil
                }
                pendingChain.append((entries.count, TypedClass(encodings.entry(name, in: stream).text, version: version)))
                entries.append(.class([]))
            case .nil:
                if inChain { try endChain(rest: []) } else { try add(.nil) }
            case .reference(let number, let referenceKind):
                guard number >= 0, Int(number) < entries.count else { throw misplaced(event) }
                switch (referenceKind, entries[Int(number)]) {
                case (.class, .class(let chain)):
                    if inChain { try endChain(rest: chain) } else { try add(.class(chain)) }
                case (.object, .object(let object)): try add(.object(object))
                case (.cString, .cString(let string)): try add(.cString(string))
                default: throw misplaced(event)
                }
            case .cString(let s):
                let string = TypedCString(Array(stream.bytes(of: s)))
                entries.append(.cString(string))
                try add(.cString(string))
            case .signed(let v, let type): try add(.signed(v, type: type))
            case .unsigned(let v, let type): try add(.unsigned(v, type: type))
            case .float(let v): try add(.float(v))
            case .double(let v): try add(.double(v))
            case .ignored: try add(.ignored)
            case .atom(let s): try add(.atom(s.map { Array(stream.bytes(of: $0)) }))
            case .selector(let s): try add(.selector(s.map { Array(stream.bytes(of: $0)) }))
            case .string(let s): try add(.string(Array(stream.bytes(of: s))))
            case .byteArray(let s, let signed): try add(.bytes(Array(stream.bytes(of: s)), signed: signed))
            case .beginArray(let s, let count): open(.array, encodings.entry(s, in: stream).text, capacity: count)
            case .endArray:
                let (arrayEncoding, elements) = try close(.array, event)
                try add(.array(elements, encoding: arrayEncoding))
            case .beginStruct(let s):
                let known = encodings.entry(s, in: stream)
                open(.structure, known.text, capacity: known.structFields)
            case .endStruct:
                let (structEncoding, fields) = try close(.structure, event)
                try add(.structure(fields, encoding: structEncoding))
            }
        }
        guard kind == .top else { throw ArchiveError(.truncated, "the events end inside a value") }
        return groups
    }

    /// Spends what the chains of `pending` new classes followed by `rest` earlier ones store:
    /// Σ (k + rest) for k in 1...pending, computed without overflow.
    private mutating func spendClassBudget(pending: Int, rest: Int) throws(ArchiveError) {
        let (square, overflow1) = pending.multipliedReportingOverflow(by: pending + 1)
        let (tail, overflow2) = pending.multipliedReportingOverflow(by: rest)
        let (cost, overflow3) = (square / 2).addingReportingOverflow(tail)
        guard !overflow1, !overflow2, !overflow3, cost <= classBudget else {
            throw ArchiveError(
                .limitExceeded,
                "a class chain of \(pending + rest) classes exceeds the class budget of the stream "
                    + "(\(Self.classesPerInputByte) classes per input byte, \(classBudget) left)"
            )
        }
        classBudget -= cost
    }
}

extension TypedGraphBuilder {
    /// The text of each type encoding and class name, decoded once per extent of the stream's storage (the
    /// reader shares them, so a stream of many objects of few classes decodes few), found by open addressing
    /// on the extent rather than through `Hasher`, which cost more than the rest of a small group.
    struct EncodingTable {
        /// A decoded encoding: its text and the number of values a group and a struct of it hold.
        struct Entry {
            var text: String
            var groupValues: Int
            var structFields: Int
        }

        private var keys: [UInt64] = []
        private var entries: [Entry] = []
        /// Per slot, an index into `keys` and `entries` plus one (0 for an empty slot); a power of two long.
        private var slots = [Int32](repeating: 0, count: 64)

        /// The entry of `s`, decoded from `stream` the first time.
        mutating func entry(_ s: TypedstreamString, in stream: Typedstream) -> Entry {
            let key = UInt64(s.range.lowerBound) << 32 | UInt64(UInt32(truncatingIfNeeded: s.range.count))
            let mask = slots.count - 1
            var slot = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
            while slots[slot] != 0 {
                let index = Int(slots[slot]) - 1
                if keys[index] == key { return entries[index] }
                slot = (slot + 1) & mask
            }
            let bytes = stream.bytes(of: s)
            var fields = bytes[...]
            if fields.first == UInt8(ascii: "{"), let equals = fields.firstIndex(of: UInt8(ascii: "=")) {
                fields = fields[(equals + 1)...].dropLast()
            }
            let entry = Entry(
                text: String(decoding: bytes, as: UTF8.self),
                groupValues: TypedGraphBuilder.typeCount(bytes),
                structFields: TypedGraphBuilder.typeCount(fields)
            )
            keys.append(key)
            entries.append(entry)
            slots[slot] = Int32(truncatingIfNeeded: keys.count)
            // Kept at most half full, so that a probe ends soon.
            if keys.count * 2 > slots.count { rehash(capacity: slots.count * 2) }
            return entry
        }

        private mutating func rehash(capacity: Int) {
            slots = [Int32](repeating: 0, count: capacity)
            let mask = capacity - 1
            for (index, key) in keys.enumerated() {
                var slot = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
                while slots[slot] != 0 { slot = (slot + 1) & mask }
                slots[slot] = Int32(truncatingIfNeeded: index + 1)
            }
        }
    }
}
