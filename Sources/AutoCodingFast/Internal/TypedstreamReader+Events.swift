/// What the innermost open frame of the event loop reads next.
private enum FrameKind: UInt8 {
    /// Groups until the end of the data.
    case top
    /// The values of a group: `next` is the type of the next one, or -1.
    case group
    /// The fields of a struct: `next` is the type of the next one, or -1.
    case structure
    /// The elements of an array: `next` is the element type, `remaining` the elements left.
    case array
    /// The groups of an object, until its end marker.
    case object
}

/// A frame enclosing the innermost one (whose kind, next type and elements left are fields of the loop).
private struct Frame {
    var kind: FrameKind
    var next: Int32
    var remaining: Int
}

extension TypedstreamReader {
    /// The event loop: reads the system version after the header, then groups of values until the end of the data.
    /// Every read checks the bytes left before it touches them; `input` does not outlive the call.
    func readEvents(
        _ input: UnsafeRawBufferPointer,
        bigEndian: Bool
    ) throws(ArchiveError) -> (systemVersion: Int64, events: [TypedstreamEvent]) {
        var loop = EventLoop(input, bigEndian: bigEndian, reader: self)
        // Events are written in place, without an append's uniqueness and capacity checks (a sixth of the loop's
        // instructions), into an array with room for one event per input byte (the corpus makes one per two);
        // events past its end go to a second array.
        var systemVersion: Int64 = 0
        var failure: ArchiveError?
        var events = [TypedstreamEvent](unsafeUninitializedCapacity: min(input.count, 1 << 18) + 16) {
            out, initialized in
            loop.out = out
            defer {
                initialized = loop.filled
                loop.out = UnsafeMutableBufferPointer(start: nil, count: 0)
            }
            do throws(ArchiveError) { systemVersion = try loop.run() } catch { failure = error }
        }
        if let failure { throw failure }
        events.append(contentsOf: loop.spilled)
        return (systemVersion, events)
    }

    /// The event loop of ``readEvents(_:bigEndian:)``, handing the events to `sink` in order, a batch of
    /// ``eventBatch`` at a time, instead of keeping them: reading allocates no events array (24 bytes per event,
    /// one or two events per input byte), whose growth past its first estimate also copied it. An error `sink`
    /// throws ends the read.
    func readEvents(
        _ input: UnsafeRawBufferPointer,
        bigEndian: Bool,
        into sink: (UnsafeBufferPointer<TypedstreamEvent>) throws(ArchiveError) -> Void
    ) throws(ArchiveError) -> Int64 {
        try withoutActuallyEscaping(sink) { (sink) throws(ArchiveError) -> Int64 in
            let batch = UnsafeMutableBufferPointer<TypedstreamEvent>.allocate(capacity: Self.eventBatch)
            defer { batch.deallocate() }
            var loop = EventLoop(input, bigEndian: bigEndian, reader: self)
            loop.out = batch
            loop.sink = sink
            let systemVersion = try loop.run()
            try loop.flush()
            return systemVersion
        }
    }

    /// The events of a batch handed to a sink (1.5 KB).
    static let eventBatch = 64
}

/// The state of the event loop: the read position, the tables, the innermost frame (the stack is touched only
/// when an object, array or struct opens or closes) and the events. The hot readers are inlined into ``run()``, so
/// that a common value (a one-byte integer or reference, a group of a known type) is read without a call; the rare
/// paths (tagged integers, literal strings, type parsing, errors) are calls.
private struct EventLoop {
    let input: UnsafeRawBufferPointer
    let end: Int
    let bigEndian: Bool
    let bytes: [UInt8]
    let options: ArchiveReadingOptions
    let eventLimit: Int
    let reader: TypedstreamReader
    var position = 13
    /// The events written in place (only while ``TypedstreamReader/readEvents(_:bigEndian:)`` lends the buffer,
    /// `filled` of them), then those past its end; or, with a sink, the batch not handed to it yet. `count` is
    /// how many events there are in all.
    var out = UnsafeMutableBufferPointer<TypedstreamEvent>(start: nil, count: 0)
    var filled = 0
    var spilled: [TypedstreamEvent] = []
    var sink: ((UnsafeBufferPointer<TypedstreamEvent>) throws(ArchiveError) -> Void)?
    var count = 0

    // The shared-string table in stream order: extents into the input, and the parsed type list of each
    // (-1 until it is used as a type encoding).
    var sharedStrings: [TypedstreamString] = []
    var parsedTypes: [Int32] = []
    // The kind of every reference number assigned so far.
    var referenceKinds: [TypedstreamReferenceKind] = []
    var types = TypedstreamTypes()

    var kind = FrameKind.top
    var next: Int32 = -1
    var remaining = 0
    var frames: [Frame] = []
    // Objects, arrays and structs open (groups are not counted: one is always open inside an object).
    var depth = 0
    // Objects open: a group closes into the innermost one, or into the top level when there is none.
    var openObjects = 0

    init(_ input: UnsafeRawBufferPointer, bigEndian: Bool, reader: TypedstreamReader) {
        self.input = input
        self.end = input.count
        self.bigEndian = bigEndian
        self.bytes = reader.bytes
        self.options = reader.options
        self.eventLimit = reader.eventLimit
        self.reader = reader
    }

    @inline(__always)
    mutating func emit(_ event: TypedstreamEvent) throws(ArchiveError) {
        if filled < out.count {
            out.initializeElement(at: filled, to: event)
            filled += 1
        } else {
            try overflow(event)
        }
        count += 1
    }
    /// An event past the end of the buffer. With a sink, the full batch goes to it and the event starts the next;
    /// else it is kept apart, the first one reserving one more per byte left, as the buffer did.
    @inline(never)
    mutating func overflow(_ event: TypedstreamEvent) throws(ArchiveError) {
        if sink != nil {
            try flush()
            out.initializeElement(at: 0, to: event)
            filled = 1
            return
        }
        if spilled.isEmpty { spilled.reserveCapacity(min(end - position, eventLimit - count) + 16) }
        spilled.append(event)
    }
    /// Hands the batch's events to the sink. (Events hold no references: the batch's memory is reused as is.)
    mutating func flush() throws(ArchiveError) {
        guard let sink, filled > 0 else { return }
        let batch = UnsafeBufferPointer(rebasing: out[..<filled])
        filled = 0
        try sink(batch)
    }

    func eventLimitError(_ what: String, at position: Int) -> ArchiveError {
        reader.eventLimitError(what, at: position)
    }

    // MARK: Bytes

    @inline(__always)
    mutating func readHead() throws(ArchiveError) -> Int8 {
        guard position < end else { throw ArchiveError.truncated("head byte", at: position) }
        defer { position += 1 }
        return Int8(bitPattern: input[position])
    }
    @inline(__always)
    mutating func readByte(_ what: String) throws(ArchiveError) -> UInt8 {
        guard position < end else { throw ArchiveError.truncated(what, at: position) }
        defer { position += 1 }
        return input[position]
    }
    /// Reads `width` (2, 4 or 8) bytes in the stream's byte order.
    mutating func readFixed(_ width: Int, _ what: String) throws(ArchiveError) -> UInt64 {
        guard width <= end - position else { throw ArchiveError.truncated(what, at: position) }
        defer { position += width }
        switch width {
        case 2:
            let raw = input.loadUnaligned(fromByteOffset: position, as: UInt16.self)
            return UInt64(bigEndian ? UInt16(bigEndian: raw) : UInt16(littleEndian: raw))
        case 4:
            let raw = input.loadUnaligned(fromByteOffset: position, as: UInt32.self)
            return UInt64(bigEndian ? UInt32(bigEndian: raw) : UInt32(littleEndian: raw))
        default:
            let raw = input.loadUnaligned(fromByteOffset: position, as: UInt64.self)
            return bigEndian ? UInt64(bigEndian: raw) : UInt64(littleEndian: raw)
        }
    }
    /// Reads a tagged integer: the head itself, or 2, 4 or 8 bytes after a tag. An unsigned value is
    /// returned as its bit pattern.
    @inline(__always)
    mutating func readInteger(head: Int8, signed: Bool, what: String) throws(ArchiveError) -> Int64 {
        if head > TypedstreamReader.lastTag {
            return signed ? Int64(head) : Int64(UInt8(bitPattern: head))
        }
        return try readTaggedInteger(head: head, signed: signed, what: what)
    }
    /// The integer after a tag (the rare case, kept out of the loop).
    @inline(never)
    mutating func readTaggedInteger(head: Int8, signed: Bool, what: String) throws(ArchiveError) -> Int64 {
        switch head {
        case TypedstreamReader.tagInteger2:
            let raw = try readFixed(2, what)
            return signed ? Int64(Int16(truncatingIfNeeded: raw)) : Int64(raw)
        case TypedstreamReader.tagInteger4:
            let raw = try readFixed(4, what)
            return signed ? Int64(Int32(truncatingIfNeeded: raw)) : Int64(raw)
        case TypedstreamReader.tagInteger8:
            return Int64(bitPattern: try readFixed(8, what))
        default:
            throw ArchiveError(
                .invalidTag,
                "head 0x\(String(UInt8(bitPattern: head), radix: 16)) at offset \(position - 1) "
                    + "where a \(what) is expected"
            )
        }
    }

    // MARK: Tables


    mutating func assignReference(_ kind: TypedstreamReferenceKind) throws(ArchiveError) {
        guard referenceKinds.count < options.maxObjectCount else {
            throw ArchiveError(
                .limitExceeded,
                "more than \(options.maxObjectCount) objects (maxObjectCount) at offset \(position)"
            )
        }
        referenceKinds.append(kind)
    }
    /// Reads a reference number and checks it against the `count` entries of its table read so far.
    @inline(__always)
    mutating func readReferenceNumber(head: Int8, below count: Int, what: String, of table: String) throws(ArchiveError)
        -> Int
    {
        // Most references fit in the head byte: read them without a call.
        if head > TypedstreamReader.lastTag {
            let number = Int(head) - Int(TypedstreamReader.firstReferenceNumber)
            if number < count { return number }
        }
        return try readLongReferenceNumber(head: head, below: count, what: what, of: table)
    }
    /// A reference number after a tag, or one outside its table (an error).
    @inline(never)
    mutating func readLongReferenceNumber(head: Int8, below count: Int, what: String, of table: String)
        throws(ArchiveError) -> Int
    {
        let offset = position - 1
        let stored = try readInteger(head: head, signed: true, what: what)
        // A stored number near Int64.max has no reference number: the bias would overflow.
        let (number, overflow) = stored.subtractingReportingOverflow(TypedstreamReader.firstReferenceNumber)
        guard !overflow, number >= 0, number < count else {
            let name = overflow ? "stored as \(stored)" : "#\(number)"
            throw ArchiveError(
                .invalidReference,
                "\(what) \(name) at offset \(offset) is outside the \(count) \(table) read so far"
            )
        }
        return Int(number)
    }
    @inline(__always)
    mutating func readReference(head: Int8, kind: TypedstreamReferenceKind) throws(ArchiveError) -> TypedstreamEvent {
        let offset = position - 1
        let number = try readReferenceNumber(
            head: head,
            below: referenceKinds.count,
            what: "reference",
            of: "objects"
        )
        guard referenceKinds[number] == kind else {
            throw ArchiveError(
                .invalidReference,
                "reference #\(number) at offset \(offset) names a \(referenceKinds[number]) where a \(kind) is expected"
            )
        }
        return .reference(Int32(number), kind: kind)
    }
    /// Reads a length and that many bytes (the head is not nil).
    mutating func readUnsharedString(head: Int8) throws(ArchiveError) -> TypedstreamString {
        let offset = position - 1
        let length = try readInteger(head: head, signed: false, what: "string length")
        guard length >= 0, length <= end - position else {
            throw ArchiveError.truncated(
                "string of \(UInt64(bitPattern: length)) bytes declared at offset \(offset)",
                at: position
            )
        }
        defer { position += Int(length) }
        return TypedstreamString(start: position, count: Int(length))
    }
    /// Reads a shared string (literal or a reference into the shared-string table); nil for a nil string.
    @inline(__always)
    mutating func readSharedStringIndex(head: Int8) throws(ArchiveError) -> Int? {
        if head == TypedstreamReader.tagNil { return nil }
        if head == TypedstreamReader.tagNew { return try readLiteralSharedString() }
        return try readReferenceNumber(
            head: head,
            below: sharedStrings.count,
            what: "shared string",
            of: "shared strings"
        )
    }
    /// Reads a literal shared string into the table and returns its index.
    @inline(never)
    mutating func readLiteralSharedString() throws(ArchiveError) -> Int {
        let offset = position
        let head = try readHead()
        guard head != TypedstreamReader.tagNil else {
            throw ArchiveError(.invalidObject, "nil inside a literal shared string at offset \(offset)")
        }
        guard sharedStrings.count < options.maxObjectCount else {
            throw ArchiveError(
                .limitExceeded,
                "more than \(options.maxObjectCount) shared strings at offset \(offset)"
            )
        }
        sharedStrings.append(try readUnsharedString(head: head))
        parsedTypes.append(-1)
        return sharedStrings.count - 1
    }
    /// Reads a class chain: literal classes with versions, ending in nil or a reference to an earlier class.
    mutating func readClassChain(head first: Int8) throws(ArchiveError) {
        var head = first
        while head == TypedstreamReader.tagNew {
            let offset = position
            guard let name = try readSharedStringIndex(head: try readHead()) else {
                throw ArchiveError(.invalidObject, "nil class name at offset \(offset)")
            }
            let version = try readInteger(head: try readHead(), signed: true, what: "class version")
            try assignReference(.class)
            try emit(.classInfo(name: sharedStrings[name], version: version))
            head = try readHead()
        }
        if head == TypedstreamReader.tagNil {
            try emit(.nil)
        } else {
            try emit(try readReference(head: head, kind: .class))
        }
    }

    // MARK: Frames


    @inline(__always)
    mutating func push(_ newKind: FrameKind, next newNext: Int32, remaining newRemaining: Int = 0) {
        frames.append(Frame(kind: kind, next: next, remaining: remaining))
        kind = newKind
        next = newNext
        remaining = newRemaining
    }
    @inline(__always)
    mutating func pop() {
        // Only objects, arrays and structs are popped, and each saved the frame it opened in.
        guard let frame = frames.popLast() else { return }
        kind = frame.kind
        next = frame.next
        remaining = frame.remaining
    }
    mutating func enter() throws(ArchiveError) {
        depth += 1
        guard depth <= options.depthLimit else {
            throw ArchiveError(
                .depthLimitExceeded,
                "values nested deeper than \(options.depthLimit) at offset \(position)"
            )
        }
    }
    @inline(__always)
    mutating func beginGroup(head: Int8) throws(ArchiveError) {
        let offset = position - 1
        guard let index = try readSharedStringIndex(head: head) else {
            throw ArchiveError(.invalidTypeEncoding, "nil type encoding at offset \(offset)")
        }
        var first = parsedTypes[index]
        if first < 0 { first = try parseTypes(index) }
        try emit(.beginGroup(sharedStrings[index]))
        // A group opens only at the top level or in an object, whose frame (no next type, no elements left) is
        // known again when the group closes: it is not saved (one push and pop less per group, most of the
        // stream's frames).
        kind = .group
        next = first
    }
    /// Parses shared string `index` as a type encoding, the first time it is one.
    @inline(never)
    mutating func parseTypes(_ index: Int) throws(ArchiveError) -> Int32 {
        let string = sharedStrings[index]
        let first = try types.parse(
            bytes,
            start: string.range.lowerBound,
            end: string.range.upperBound,
            depthLimit: options.depthLimit
        )
        parsedTypes[index] = first
        return first
    }
    func text(_ node: TypedstreamTypes.Node) -> String {
        String(decoding: bytes[node.start..<node.end], as: UTF8.self)
    }

    // MARK: The loop

    mutating func run() throws(ArchiveError) -> Int64 {

    let systemVersion = try readInteger(head: try readHead(), signed: false, what: "system version")
    while true {
        guard count <= eventLimit else {
            throw eventLimitError("more than \(eventLimit) events", at: position)
        }
        // The type of the next value, or a frame that closes or reads a group.
        let start: Int32
        switch kind {
        case .top:
            if position == end { return systemVersion }
            try beginGroup(head: try readHead())
            continue
        case .group, .structure:
            if next < 0 {
                if kind == .group {
                    try emit(.endGroup)
                    kind = openObjects > 0 ? .object : .top
                } else {
                    depth -= 1
                    try emit(.endStruct)
                    pop()
                }
                continue
            }
            start = next
            next = types[next].next
        case .array:
            if remaining == 0 {
                depth -= 1
                try emit(.endArray)
                pop()
                continue
            }
            remaining -= 1
            start = next
        case .object:
            let head = try readHead()
            if head == TypedstreamReader.tagEndOfObject {
                depth -= 1
                openObjects -= 1
                try emit(.endObject)
                pop()
            } else {
                try beginGroup(head: head)
            }
            continue
        }

        // One value of type `start`; objects, arrays and structs push a frame whose contents the loop reads.
        var node = types[start]
        // A pointer is stored as the value it points to.
        while node.code == UInt8(ascii: "^") { node = types[node.child] }
        switch node.code {
        case UInt8(ascii: "c"):
            try emit(.signed(Int64(Int8(bitPattern: try readByte("c value"))), type: node.code))
        case UInt8(ascii: "C"), UInt8(ascii: "B"):
            try emit(.unsigned(UInt64(try readByte("byte value")), type: node.code))
        case UInt8(ascii: "s"), UInt8(ascii: "i"), UInt8(ascii: "l"), UInt8(ascii: "q"):
            try emit(.signed(try readInteger(head: try readHead(), signed: true, what: "integer"), type: node.code))
        case UInt8(ascii: "S"), UInt8(ascii: "I"), UInt8(ascii: "L"), UInt8(ascii: "Q"):
            let value = try readInteger(head: try readHead(), signed: false, what: "integer")
            try emit(.unsigned(UInt64(bitPattern: value), type: node.code))
        case UInt8(ascii: "f"):
            let head = try readHead()
            if head == TypedstreamReader.tagReal {
                try emit(.float(Float(bitPattern: UInt32(truncatingIfNeeded: try readFixed(4, "float")))))
            } else {
                try emit(.float(Float(try readInteger(head: head, signed: true, what: "float"))))
            }
        case UInt8(ascii: "d"):
            let head = try readHead()
            if head == TypedstreamReader.tagReal {
                try emit(.double(Double(bitPattern: try readFixed(8, "double"))))
            } else {
                try emit(.double(Double(try readInteger(head: head, signed: true, what: "double"))))
            }
        case UInt8(ascii: "*"):
            let head = try readHead()
            if head == TypedstreamReader.tagNil {
                try emit(.nil)
            } else if head == TypedstreamReader.tagNew {
                let offset = position
                guard let index = try readSharedStringIndex(head: try readHead()) else {
                    throw ArchiveError(.invalidObject, "nil string inside a literal C string at offset \(offset)")
                }
                try assignReference(.cString)
                try emit(.cString(sharedStrings[index]))
            } else {
                try emit(try readReference(head: head, kind: .cString))
            }
        case UInt8(ascii: "%"), UInt8(ascii: ":"):
            let string = try readSharedStringIndex(head: try readHead()).map { sharedStrings[$0] }
            try emit(node.code == UInt8(ascii: "%") ? .atom(string) : .selector(string))
        case UInt8(ascii: "+"):
            let head = try readHead()
            if head == TypedstreamReader.tagNil {
                try emit(.nil)
            } else {
                try emit(.string(try readUnsharedString(head: head)))
            }
        case UInt8(ascii: "#"):
            try readClassChain(head: try readHead())
        case UInt8(ascii: "@"):
            let head = try readHead()
            if head == TypedstreamReader.tagNil {
                try emit(.nil)
            } else if head == TypedstreamReader.tagNew {
                try assignReference(.object)
                try emit(.beginObject)
                try readClassChain(head: try readHead())
                try enter()
                openObjects += 1
                push(.object, next: -1)
            } else {
                try emit(try readReference(head: head, kind: .object))
            }
        case UInt8(ascii: "!"):
            try emit(.ignored)
        case UInt8(ascii: "["):
            let element = types[node.child]
            let encoding = TypedstreamString(start: node.start, count: node.end - node.start)
            if element.code == UInt8(ascii: "c") || element.code == UInt8(ascii: "C") {
                guard node.count <= end - position else {
                    throw ArchiveError.truncated("byte array of \(node.count) bytes", at: position)
                }
                try emit(
                    .byteArray(
                        TypedstreamString(start: position, count: node.count),
                        signed: element.code == UInt8(ascii: "c")
                    )
                )
                position += node.count
            } else {
                // Elements that take bytes cannot outnumber the bytes left; empty ones are bounded by the
                // event limit.
                guard node.minimumSize <= end - position else {
                    throw ArchiveError.truncated("array \(text(node)) of \(node.count) elements", at: position)
                }
                // Checked before the first element, so an array of empty elements fails at once, unallocated.
                guard node.count <= eventLimit - count else {
                    throw eventLimitError("array of \(node.count) elements", at: position)
                }
                try emit(.beginArray(encoding, count: node.count))
                try enter()
                push(.array, next: node.child, remaining: node.count)
            }
        case UInt8(ascii: "{"):
            guard node.minimumSize <= end - position else {
                throw ArchiveError.truncated("struct \(text(node))", at: position)
            }
            try emit(.beginStruct(TypedstreamString(start: node.start, count: node.end - node.start)))
            try enter()
            push(.structure, next: node.child)
        default:
            // Unions have no stored discriminator: their size is unknown to the reader.
            throw ArchiveError(
                .invalidTypeEncoding,
                "cannot read a value of type \(text(node)) at offset \(position)"
            )
        }
    }
}
}
