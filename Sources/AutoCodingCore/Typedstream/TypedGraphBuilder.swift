import AutoCodingFast

/// Turns events into values with an explicit stack (no recursion however deep the stream nests).
///
/// One pass over the events, which the reader hands over in batches as it reads. The values of every open group,
/// array and struct wait on one stack, and the groups of every open object on another, so that closing one makes a
/// single array of exactly its size; the innermost frame is kept in fields of its own and the enclosing ones are
/// touched only when a nested one opens or closes. Type encodings and class names become `String`s once per shared
/// string; an object whose class was read before shares that class's chain; an object is made once its chain is
/// known.
struct TypedGraphBuilder {
    private enum Kind { case top, group, object, array, structure }

    /// What a reference number names.
    private enum Entry {
        case object(TypedObject)
        case `class`([TypedClass])
        case cString(TypedCString)
        /// An object whose class chain is still being read.
        case pendingObject
    }

    /// A frame that encloses the innermost one, saved while the nested one is read.
    private struct Frame {
        var kind: Kind
        /// Where the frame's values (group, array, struct) or groups (object, top) begin on their stack.
        var start: Int
        /// The encoding of a group, array or struct in the ``EncodingTable``.
        var encoding: Int
        /// The object whose groups are being read.
        var owner: TypedObject?
    }

    /// The bytes that the events' strings are extents of.
    let storage: [UInt8]
    /// Class entries each hold their own chain (a class and its superclasses), so a chain of L classes read
    /// literally stores L(L+1)/2 of them: a 1 MB stream of one long chain would ask for terabytes. The
    /// classes stored are spent from this budget, proportional to the input.
    private var classBudget: Int
    /// Classes stored per input byte, on top of ``classAllowance``. A chain of L literal classes takes at
    /// least 3L bytes, so whole streams of chains up to 23 long fit, and real chains are under 10.
    static let classesPerInputByte = 4
    static let classAllowance = 4096

    /// A builder of the events of a stream of `storage` (handed over by an ``EventSource``).
    init(storage: [UInt8]) {
        self.storage = storage
        let (budget, overflow) = storage.count.multipliedReportingOverflow(by: Self.classesPerInputByte)
        classBudget = overflow ? .max : budget &+ Self.classAllowance
    }

    /// What reads a stream's events: it calls its argument with each batch of them, in stream order, and throws
    /// what the argument throws.
    typealias EventSource = (
        _ consume: (UnsafeBufferPointer<TypedstreamEvent>) throws(ArchiveError) -> Void
    ) throws(ArchiveError) -> Void

    // The state of the build. Fields, not locals of `build`: the events arrive in batches through a closure, and
    // locals captured by it were accessed with run-time exclusivity checks (twice the time of a build); through
    // `self` they are checked when compiled.

    /// What each reference number names.
    private var entries = Pile<Entry>()
    private var encodings = EncodingTable()
    private var frames = Pile<Frame>()
    private var values = Pile<TypedValue>()
    private var groups = Pile<TypedGroup>()
    // The innermost frame.
    private var kind = Kind.top
    private var start = 0
    private var encoding = -1
    private var owner: TypedObject?
    // The classes of a chain being read, with their entry numbers, until its nil or class reference; the object
    // whose chain it is, by its entry number and the place of its value (-1 for a `#` value).
    private var pendingChain: [(entry: Int, cls: TypedClass)] = []
    private var inChain = false
    private var chainObject = -1
    private var chainObjectValue = -1

    /// The top-level groups of the events `read` hands over. A builder builds once.
    mutating func build(_ read: EventSource) throws(ArchiveError) -> [TypedGroup] {
        defer {
            entries.free()
            frames.free()
            values.free()
            groups.free()
        }
        do throws(ArchiveError) {
            try read { (batch) throws(ArchiveError) in try self.consume(batch) }
            guard kind == .top else { throw ArchiveError(.truncated, "the events end inside a value") }
            return groups.take(from: 0)
        } catch {
            // The objects closed so far may be on cycles, which would outlive the error (see ReferenceCycles.swift).
            entries.forEach { entry in
                if case .object(let object) = entry { object.groups = [] }
            }
            throw error
        }
    }

    /// Builds on with a batch of events.
    private mutating func consume(_ batch: UnsafeBufferPointer<TypedstreamEvent>) throws(ArchiveError) {
        for event in batch {
            switch event {
            case .beginGroup(let s):
                open(.group, encoding: encodings.index(s, in: storage))
            case .endGroup:
                let group: TypedGroup
                if kind == .group, values.count - start == 1, let value = values.popLast() {
                    // One value, the usual group: stored in place, without an array.
                    group = TypedGroup(encoding: encodings.text(encoding), value: value)
                    try close(.group, event)
                } else {
                    let (groupEncoding, groupValues) = try closeTaking(.group, event)
                    group = TypedGroup(encoding: groupEncoding, values: groupValues)
                }
                // A group belongs to the stream at the top level, else to the object being read.
                guard kind == .top || kind == .object else { throw Self.misplaced(event) }
                groups.push(group)
            case .beginObject:
                // The object's place, until its chain is read.
                try add(.nil)
                chainObject = entries.count
                chainObjectValue = values.count - 1
                entries.push(.pendingObject)
                open(.object, encoding: -1)
                inChain = true
            case .endObject:
                guard kind == .object, let object = owner, let parent = frames.popLast() else {
                    throw Self.misplaced(event)
                }
                object.groups = groups.take(from: start)
                kind = parent.kind
                start = parent.start
                encoding = parent.encoding
                owner = parent.owner
            case .classInfo(let name, let version):
                if !inChain {
                    inChain = true
                    chainObject = -1
                }
                let index = encodings.index(name, in: storage)
                let text = encodings.text(index)
                pendingChain.append((entries.count, TypedClass(text, version: version)))
                entries.push(.class([]))
            case .nil:
                if inChain { try endChain(rest: []) } else { try add(.nil) }
            case .reference(let number, let referenceKind):
                guard number >= 0, Int(number) < entries.count else { throw Self.misplaced(event) }
                switch (referenceKind, entries[Int(number)]) {
                case (.class, .class(let chain)):
                    if inChain { try endChain(rest: chain) } else { try add(.class(chain)) }
                case (.object, .object(let object)): try add(.object(object))
                case (.cString, .cString(let string)): try add(.cString(string))
                default: throw Self.misplaced(event)
                }
            case .cString(let s):
                let string = TypedCString(Array(storage[s.range]))
                entries.push(.cString(string))
                try add(.cString(string))
            case .signed(let v, let type): try add(.signed(v, type: type))
            case .unsigned(let v, let type): try add(.unsigned(v, type: type))
            case .float(let v): try add(.float(v))
            case .double(let v): try add(.double(v))
            case .ignored: try add(.ignored)
            case .atom(let s): try add(.atom(s.map { Array(storage[$0.range]) }))
            case .selector(let s): try add(.selector(s.map { Array(storage[$0.range]) }))
            case .string(let s): try add(.string(Array(storage[s.range])))
            case .byteArray(let s, let signed): try add(.bytes(Array(storage[s.range]), signed: signed))
            case .beginArray(let s, _): open(.array, encoding: encodings.index(s, in: storage))
            case .endArray:
                let (arrayEncoding, elements) = try closeTaking(.array, event)
                try add(.array(elements, encoding: arrayEncoding))
            case .beginStruct(let s): open(.structure, encoding: encodings.index(s, in: storage))
            case .endStruct:
                let (structEncoding, fields) = try closeTaking(.structure, event)
                try add(.structure(fields, encoding: structEncoding))
            }
        }
    }

    private static func misplaced(_ event: TypedstreamEvent) -> ArchiveError {
        ArchiveError(.unexpectedType, "event \(event) where the stream's structure does not allow it")
    }

    /// Saves the innermost frame and opens a new one, whose contents begin at the top of their stack.
    private mutating func open(_ newKind: Kind, encoding newEncoding: Int) {
        frames.push(Frame(kind: kind, start: start, encoding: encoding, owner: owner))
        kind = newKind
        start = newKind == .object ? groups.count : values.count
        encoding = newEncoding
        owner = nil
    }

    /// Closes the innermost frame, which must be of `closing` kind, and returns its encoding and values.
    private mutating func closeTaking(
        _ closing: Kind, _ event: TypedstreamEvent
    ) throws(ArchiveError) -> (String, [TypedValue]) {
        guard kind == closing else { throw Self.misplaced(event) }
        let closed = (encodings.text(encoding), values.take(from: start))
        try close(closing, event)
        return closed
    }

    /// Closes the innermost frame, which must be of `closing` kind and whose values were taken.
    private mutating func close(_ closing: Kind, _ event: TypedstreamEvent) throws(ArchiveError) {
        guard kind == closing, let parent = frames.popLast() else { throw Self.misplaced(event) }
        kind = parent.kind
        start = parent.start
        encoding = parent.encoding
        owner = parent.owner
    }

    private mutating func add(_ value: TypedValue) throws(ArchiveError) {
        guard kind != .object, kind != .top else {
            throw ArchiveError(.unexpectedType, "a value outside any group of values")
        }
        values.push(value)
    }

    /// Completes the chain being read: each pending class's chain is itself followed by the rest.
    private mutating func endChain(rest: [TypedClass]) throws(ArchiveError) {
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
        if chainObject >= 0 {
            let object = TypedObject(classes: chain)
            entries[chainObject] = .object(object)
            values[chainObjectValue] = .object(object)
            owner = object
            chainObject = -1
        } else {
            try add(.class(chain))
        }
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
    /// The values (or groups) of every open frame, innermost last, from which a closing frame takes its own as
    /// one array of exactly their number. The pile keeps its own memory instead of an array's: a push initializes
    /// the next slot and a take moves a frame's elements out, where an array's element assignment checks uniqueness
    /// and releases the slot's old value each time and a take swapped a placeholder in per element. A pile is
    /// local to one build, never copied, and freed by ``free()`` when the build ends.
    struct Pile<Element> {
        private var base: UnsafeMutablePointer<Element>
        private var capacity: Int
        /// The number of elements of the open frames.
        private(set) var count = 0

        init() {
            capacity = 64
            base = .allocate(capacity: capacity)
        }

        mutating func push(_ element: Element) {
            if count == capacity { grow() }
            (base + count).initialize(to: element)
            count += 1
        }

        /// The element at `index` (below ``count``), checked as an array's subscript would be.
        subscript(index: Int) -> Element {
            get {
                precondition(index >= 0 && index < count, "an index past the pile's top")
                return base[index]
            }
            set {
                precondition(index >= 0 && index < count, "an index past the pile's top")
                base[index] = newValue
            }
        }

        /// Removes the elements from `start` on and returns them.
        mutating func take(from start: Int) -> [Element] {
            precondition(start >= 0 && start <= count, "a frame begins inside the pile")
            let taken = count - start
            guard taken > 0 else { return [] }
            count = start
            let first = base + start
            // Most frames hold one to three elements (a group of one object, a point, a range): an array literal
            // is one allocation of exactly its size, without the capacity arithmetic and size query of a
            // reserved array.
            switch taken {
            case 1: return [first.move()]
            case 2: return [first.move(), (first + 1).move()]
            case 3: return [first.move(), (first + 1).move(), (first + 2).move()]
            default: break
            }
            // Made by `reserveCapacity`, the one path that allocates without an unspecialized runtime call that
            // looks the array type up each time (250 to 500 instructions, more than the allocation; the
            // `unsafeUninitializedCapacity` initializer is one of those).
            var result: [Element] = []
            result.reserveCapacity(taken)
            for index in 0..<taken { result.append((first + index).move()) }
            return result
        }

        /// Removes and returns the top element, if any.
        mutating func popLast() -> Element? {
            guard count > 0 else { return nil }
            count -= 1
            return (base + count).move()
        }

        /// Calls `body` with every element left on the pile.
        func forEach(_ body: (Element) -> Void) {
            for index in 0..<count { body(base[index]) }
        }

        /// Releases the elements left and the pile's memory; the pile is not used afterwards.
        mutating func free() {
            base.deinitialize(count: count)
            base.deallocate()
            count = 0
            capacity = 0
        }

        private mutating func grow() {
            let larger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
            larger.moveInitialize(from: base, count: count)
            base.deallocate()
            base = larger
            capacity *= 2
        }
    }

    /// The text of each type encoding and class name, decoded once per extent of the stream's storage (the
    /// reader shares them, so a stream of many objects of few classes decodes few), found by open addressing
    /// on the extent rather than through `Hasher`, which cost more than the rest of a small group.
    struct EncodingTable {
        private var keys: [UInt64] = []
        private var texts: [String] = []
        /// Per slot, an index into `keys` and `texts` plus one (0 for an empty slot); a power of two long.
        private var slots = [Int32](repeating: 0, count: 64)

        /// The text of the entry at `index`.
        func text(_ index: Int) -> String { texts[index] }

        /// The index of the entry of `s`, decoded from `stream` the first time.
        mutating func index(_ s: TypedstreamString, in storage: [UInt8]) -> Int {
            let key = UInt64(s.range.lowerBound) << 32 | UInt64(UInt32(truncatingIfNeeded: s.range.count))
            let mask = slots.count - 1
            var slot = Self.slot(key, mask)
            while slots[slot] != 0 {
                let index = Int(slots[slot]) - 1
                if keys[index] == key { return index }
                slot = (slot + 1) & mask
            }
            keys.append(key)
            texts.append(String(decoding: storage[s.range], as: UTF8.self))
            slots[slot] = Int32(truncatingIfNeeded: keys.count)
            // Kept at most half full, so that a probe ends soon.
            if keys.count * 2 > slots.count { rehash(capacity: slots.count * 2) }
            return keys.count - 1
        }

        private static func slot(_ key: UInt64, _ mask: Int) -> Int {
            Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
        }

        private mutating func rehash(capacity: Int) {
            slots = [Int32](repeating: 0, count: capacity)
            let mask = capacity - 1
            for (index, key) in keys.enumerated() {
                var slot = Self.slot(key, mask)
                while slots[slot] != 0 { slot = (slot + 1) & mask }
                slots[slot] = Int32(truncatingIfNeeded: index + 1)
            }
        }
    }
}
