/// The one linear validating pass that turns typedstream bytes into events.
///
/// Every reference is checked against the table read so far (and against the kind its context requires),
/// every length against the bytes left, every array count against the bytes its elements need, nesting
/// against the depth limit and the tables against the count limits. Nested objects, arrays and structs use an
/// explicit stack, so hostile nesting costs heap within the limits, never the call stack. Errors name the
/// offset at fault.
struct TypedstreamReader {
    // Head bytes below -110 are tags; the others are one-byte integers or reference numbers.
    static let tagInteger2: Int8 = -127
    static let tagInteger4: Int8 = -126
    static let tagReal: Int8 = -125
    static let tagNew: Int8 = -124
    static let tagNil: Int8 = -123
    static let tagEndOfObject: Int8 = -122
    static let tagInteger8: Int8 = -121
    static let firstTag: Int8 = -128
    static let lastTag: Int8 = -111
    /// Reference numbers are stored biased by this, so that the first ones fit in the head byte.
    static let firstReferenceNumber: Int64 = -110
    /// The most events one input byte may produce, on top of ``eventAllowance``. Values of `!`, empty structs
    /// and the brackets of arrays and structs take no bytes, so without this a 29-byte `[67108800!]` would
    /// make 67 million events (2.9 GB). Real streams make at most about 2.5 per byte (arrays of rects).
    static let eventsPerInputByte = 4
    /// Events any stream may produce whatever its size.
    static let eventAllowance = 4096
    /// Extents, node indices and reference numbers are 32-bit: the largest stream read.
    static let maxInputBytes = Int(Int32.max)

    private enum Frame {
        case group(next: Int32)
        case structure(next: Int32)
        case array(element: Int32, remaining: Int)
        case object
    }

    let bytes: [UInt8]
    let options: ArchiveReadingOptions
    private var position: Int
    private var bigEndian = false
    private var events: [TypedstreamEvent] = []
    /// The shared-string table in stream order: extents into `bytes`, and the parsed type list of each
    /// (-1 until it is used as a type encoding).
    private var sharedStrings: [TypedstreamString] = []
    private var parsedTypes: [Int32] = []
    /// The kind of every reference number assigned so far.
    private var referenceKinds: [TypedstreamReferenceKind] = []
    private var types = TypedstreamTypes()
    private var frames: [Frame] = []
    /// Objects, arrays and structs open (groups are not counted: one is always open inside an object).
    private var depth = 0
    /// The most events this stream may produce: ``ArchiveReadingOptions/maxExpandedNodeCount``, and no more
    /// than ``eventsPerInputByte`` per input byte.
    private let eventLimit: Int

    init(bytes: [UInt8], options: ArchiveReadingOptions) {
        self.bytes = bytes
        self.options = options
        self.position = 0
        // Cannot overflow: the input is checked against `maxInputBytes` (2³¹) before any event is read.
        let budget = min(bytes.count, Self.maxInputBytes) * Self.eventsPerInputByte + Self.eventAllowance
        self.eventLimit = min(options.maxExpandedNodeCount, budget)
    }

    /// The error for a stream that makes more events than ``eventLimit``, naming both budgets.
    private func eventLimitError(_ what: String) -> ArchiveError {
        ArchiveError(
            .limitExceeded,
            "\(what) at offset \(position) exceeds the event budget of \(eventLimit) (\(Self.eventsPerInputByte) per "
                + "input byte, at most maxExpandedNodeCount \(options.maxExpandedNodeCount))"
        )
    }

    /// Whether `bytes` start with a typedstream header of any streamer version.
    static func hasSignature(_ bytes: some Collection<UInt8>) -> Bool {
        guard bytes.count >= 13 else { return false }
        let signature = bytes.dropFirst(2).prefix(11)
        return bytes.dropFirst().first == 11
            && (signature.elementsEqual("streamtyped".utf8) || signature.elementsEqual("typedstream".utf8))
    }

    mutating func read() throws(ArchiveError) -> Typedstream {
        guard bytes.count <= min(options.maxInputBytes, Self.maxInputBytes) else {
            throw ArchiveError(
                .limitExceeded,
                "input of \(bytes.count) bytes exceeds maxInputBytes \(options.maxInputBytes) "
                    + "(typedstreams are read up to \(Self.maxInputBytes) bytes: their extents are 32-bit)"
            )
        }
        guard Self.hasSignature(bytes) else {
            throw ArchiveError(.notTypedstream, "no typedstream signature (streamtyped or typedstream) at offset 1")
        }
        let streamerVersion = Int(bytes[0])
        guard streamerVersion == Typedstream.currentStreamerVersion else {
            throw ArchiveError(
                .unsupportedVersion,
                "streamer version \(streamerVersion) at offset 0; only version 4 is supported"
                    + (streamerVersion == 3 ? " (3 is the old NeXTSTEP format)" : "")
            )
        }
        bigEndian = bytes[2] == UInt8(ascii: "t")
        position = 13
        let systemVersion = try readInteger(head: try readHead(), signed: false, what: "system version")
        events.reserveCapacity(min(bytes.count, 256 * 1024))
        try readEvents()
        return Typedstream(
            streamerVersion: streamerVersion,
            byteOrder: bigEndian ? .big : .little,
            systemVersion: systemVersion,
            events: events,
            storage: bytes
        )
    }

    // MARK: - The event loop

    private mutating func readEvents() throws(ArchiveError) {
        while true {
            guard events.count <= eventLimit else { throw eventLimitError("more than \(eventLimit) events") }
            guard let frame = frames.last else {
                // Top level: groups until the end of the data.
                if position == bytes.count { return }
                try beginGroup(head: try readHead())
                continue
            }
            switch frame {
            case .group(let next):
                if next < 0 {
                    frames.removeLast()
                    events.append(.endGroup)
                } else {
                    frames[frames.count - 1] = .group(next: types[next].next)
                    try readValue(next)
                }
            case .structure(let next):
                if next < 0 {
                    frames.removeLast()
                    depth -= 1
                    events.append(.endStruct)
                } else {
                    frames[frames.count - 1] = .structure(next: types[next].next)
                    try readValue(next)
                }
            case .array(let element, let remaining):
                if remaining == 0 {
                    frames.removeLast()
                    depth -= 1
                    events.append(.endArray)
                } else {
                    frames[frames.count - 1] = .array(element: element, remaining: remaining - 1)
                    try readValue(element)
                }
            case .object:
                let head = try readHead()
                if head == Self.tagEndOfObject {
                    frames.removeLast()
                    depth -= 1
                    events.append(.endObject)
                } else {
                    try beginGroup(head: head)
                }
            }
        }
    }

    private mutating func beginGroup(head: Int8) throws(ArchiveError) {
        let offset = position - 1
        guard let index = try readSharedStringIndex(head: head) else {
            throw ArchiveError(.invalidTypeEncoding, "nil type encoding at offset \(offset)")
        }
        var first = parsedTypes[index]
        if first < 0 {
            let string = sharedStrings[index]
            first = try types.parse(
                bytes,
                start: string.range.lowerBound,
                end: string.range.upperBound,
                depthLimit: options.depthLimit
            )
            parsedTypes[index] = first
        }
        events.append(.beginGroup(sharedStrings[index]))
        frames.append(.group(next: first))
    }

    private mutating func enter() throws(ArchiveError) {
        depth += 1
        guard depth <= options.depthLimit else {
            throw ArchiveError(
                .depthLimitExceeded,
                "values nested deeper than \(options.depthLimit) at offset \(position)"
            )
        }
    }

    /// Reads one value of type `node`; objects, arrays and structs push a frame whose contents the loop reads.
    private mutating func readValue(_ start: Int32) throws(ArchiveError) {
        var node = types[start]
        // A pointer is stored as the value it points to.
        while node.code == UInt8(ascii: "^") { node = types[node.child] }
        switch node.code {
        case UInt8(ascii: "c"):
            events.append(.signed(Int64(Int8(bitPattern: try readByte("c value"))), type: node.code))
        case UInt8(ascii: "C"), UInt8(ascii: "B"):
            events.append(.unsigned(UInt64(try readByte("byte value")), type: node.code))
        case UInt8(ascii: "s"), UInt8(ascii: "i"), UInt8(ascii: "l"), UInt8(ascii: "q"):
            events.append(
                .signed(try readInteger(head: try readHead(), signed: true, what: "integer"), type: node.code)
            )
        case UInt8(ascii: "S"), UInt8(ascii: "I"), UInt8(ascii: "L"), UInt8(ascii: "Q"):
            let value = try readInteger(head: try readHead(), signed: false, what: "integer")
            events.append(.unsigned(UInt64(bitPattern: value), type: node.code))
        case UInt8(ascii: "f"):
            let head = try readHead()
            if head == Self.tagReal {
                events.append(.float(Float(bitPattern: UInt32(truncatingIfNeeded: try readFixed(4, "float")))))
            } else {
                events.append(.float(Float(try readInteger(head: head, signed: true, what: "float"))))
            }
        case UInt8(ascii: "d"):
            let head = try readHead()
            if head == Self.tagReal {
                events.append(.double(Double(bitPattern: try readFixed(8, "double"))))
            } else {
                events.append(.double(Double(try readInteger(head: head, signed: true, what: "double"))))
            }
        case UInt8(ascii: "*"):
            let head = try readHead()
            if head == Self.tagNil {
                events.append(.nil)
            } else if head == Self.tagNew {
                let offset = position
                guard let index = try readSharedStringIndex(head: try readHead()) else {
                    throw ArchiveError(.invalidObject, "nil string inside a literal C string at offset \(offset)")
                }
                try assignReference(.cString)
                events.append(.cString(sharedStrings[index]))
            } else {
                events.append(try readReference(head: head, kind: .cString))
            }
        case UInt8(ascii: "%"), UInt8(ascii: ":"):
            let string = try readSharedStringIndex(head: try readHead()).map { sharedStrings[$0] }
            events.append(node.code == UInt8(ascii: "%") ? .atom(string) : .selector(string))
        case UInt8(ascii: "+"):
            let head = try readHead()
            if head == Self.tagNil {
                events.append(.nil)
            } else {
                events.append(.string(try readUnsharedString(head: head)))
            }
        case UInt8(ascii: "#"):
            try readClassChain(head: try readHead())
        case UInt8(ascii: "@"):
            let head = try readHead()
            if head == Self.tagNil {
                events.append(.nil)
            } else if head == Self.tagNew {
                try assignReference(.object)
                events.append(.beginObject)
                try readClassChain(head: try readHead())
                try enter()
                frames.append(.object)
            } else {
                events.append(try readReference(head: head, kind: .object))
            }
        case UInt8(ascii: "!"):
            events.append(.ignored)
        case UInt8(ascii: "["):
            let element = types[node.child]
            let encoding = TypedstreamString(start: node.start, count: node.end - node.start)
            if element.code == UInt8(ascii: "c") || element.code == UInt8(ascii: "C") {
                guard node.count <= bytes.count - position else {
                    throw ArchiveError.truncated("byte array of \(node.count) bytes", at: position)
                }
                events.append(
                    .byteArray(
                        TypedstreamString(start: position, count: node.count),
                        signed: element.code == UInt8(ascii: "c")
                    )
                )
                position += node.count
            } else {
                // Elements that take bytes cannot outnumber the bytes left; empty ones are bounded by the event limit.
                guard node.minimumSize <= bytes.count - position else {
                    throw ArchiveError.truncated(
                        "array \(String(decoding: bytes[node.start..<node.end], as: UTF8.self)) of \(node.count) elements",
                        at: position
                    )
                }
                // Checked before the first element, so an array of empty elements fails at once, unallocated.
                guard node.count <= eventLimit - events.count else {
                    throw eventLimitError("array of \(node.count) elements")
                }
                events.append(.beginArray(encoding, count: node.count))
                try enter()
                frames.append(.array(element: node.child, remaining: node.count))
            }
        case UInt8(ascii: "{"):
            guard node.minimumSize <= bytes.count - position else {
                throw ArchiveError.truncated(
                    "struct \(String(decoding: bytes[node.start..<node.end], as: UTF8.self))",
                    at: position
                )
            }
            events.append(.beginStruct(TypedstreamString(start: node.start, count: node.end - node.start)))
            try enter()
            frames.append(.structure(next: node.child))
        default:
            // Unions have no stored discriminator: their size is unknown to the reader.
            throw ArchiveError(
                .invalidTypeEncoding,
                "cannot read a value of type \(String(decoding: bytes[node.start..<node.end], as: UTF8.self)) at offset \(position)"
            )
        }
    }

    /// Reads a class chain: literal classes with versions, ending in nil or a reference to an earlier class.
    private mutating func readClassChain(head first: Int8) throws(ArchiveError) {
        var head = first
        while head == Self.tagNew {
            let offset = position
            guard let name = try readSharedStringIndex(head: try readHead()) else {
                throw ArchiveError(.invalidObject, "nil class name at offset \(offset)")
            }
            let version = try readInteger(head: try readHead(), signed: true, what: "class version")
            try assignReference(.class)
            events.append(.classInfo(name: sharedStrings[name], version: version))
            head = try readHead()
        }
        if head == Self.tagNil {
            events.append(.nil)
        } else {
            events.append(try readReference(head: head, kind: .class))
        }
    }

    // MARK: - Tables

    private mutating func assignReference(_ kind: TypedstreamReferenceKind) throws(ArchiveError) {
        guard referenceKinds.count < options.maxObjectCount else {
            throw ArchiveError(
                .limitExceeded,
                "more than \(options.maxObjectCount) objects (maxObjectCount) at offset \(position)"
            )
        }
        referenceKinds.append(kind)
    }

    private mutating func readReference(
        head: Int8,
        kind: TypedstreamReferenceKind
    ) throws(ArchiveError) -> TypedstreamEvent {
        let offset = position - 1
        let number = try readReferenceNumber(head: head, below: referenceKinds.count, what: "reference", of: "objects")
        guard referenceKinds[number] == kind else {
            throw ArchiveError(
                .invalidReference,
                "reference #\(number) at offset \(offset) names a \(referenceKinds[number]) where a \(kind) is expected"
            )
        }
        return .reference(Int32(number), kind: kind)
    }

    /// Reads a reference number and checks it against the `count` entries of its table read so far.
    private mutating func readReferenceNumber(
        head: Int8,
        below count: Int,
        what: String,
        of table: String
    )
        throws(ArchiveError) -> Int
    {
        let offset = position - 1
        let stored = try readInteger(head: head, signed: true, what: what)
        // A stored number near Int64.max has no reference number: the bias would overflow.
        let (number, overflow) = stored.subtractingReportingOverflow(Self.firstReferenceNumber)
        guard !overflow, number >= 0, number < count else {
            let name = overflow ? "stored as \(stored)" : "#\(number)"
            throw ArchiveError(
                .invalidReference,
                "\(what) \(name) at offset \(offset) is outside the \(count) \(table) read so far"
            )
        }
        return Int(number)
    }

    /// Reads a shared string (literal or a reference into the shared-string table); nil for a nil string.
    private mutating func readSharedStringIndex(head: Int8) throws(ArchiveError) -> Int? {
        if head == Self.tagNil { return nil }
        if head == Self.tagNew {
            let offset = position
            let head = try readHead()
            guard head != Self.tagNil else {
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
        return try readReferenceNumber(
            head: head,
            below: sharedStrings.count,
            what: "shared string",
            of: "shared strings"
        )
    }

    /// Reads a length and that many bytes (the head is not nil).
    private mutating func readUnsharedString(head: Int8) throws(ArchiveError) -> TypedstreamString {
        let offset = position - 1
        let length = try readInteger(head: head, signed: false, what: "string length")
        guard length >= 0, length <= bytes.count - position else {
            throw ArchiveError.truncated(
                "string of \(UInt64(bitPattern: length)) bytes declared at offset \(offset)",
                at: position
            )
        }
        defer { position += Int(length) }
        return TypedstreamString(start: position, count: Int(length))
    }

    // MARK: - Bytes

    private mutating func readHead() throws(ArchiveError) -> Int8 {
        Int8(bitPattern: try readByte("head byte"))
    }

    private mutating func readByte(_ what: String) throws(ArchiveError) -> UInt8 {
        guard position < bytes.count else { throw ArchiveError.truncated(what, at: position) }
        defer { position += 1 }
        return bytes[position]
    }

    /// Reads `width` bytes in the stream's byte order.
    private mutating func readFixed(_ width: Int, _ what: String) throws(ArchiveError) -> UInt64 {
        guard width <= bytes.count - position else { throw ArchiveError.truncated(what, at: position) }
        var value: UInt64 = 0
        if bigEndian {
            for i in 0..<width { value = value << 8 | UInt64(bytes[position + i]) }
        } else {
            for i in (0..<width).reversed() { value = value << 8 | UInt64(bytes[position + i]) }
        }
        position += width
        return value
    }

    /// Reads a tagged integer: the head itself, or 2, 4 or 8 bytes after a tag. An unsigned value is
    /// returned as its bit pattern.
    private mutating func readInteger(head: Int8, signed: Bool, what: String) throws(ArchiveError) -> Int64 {
        if head < Self.firstTag || head > Self.lastTag {
            return signed ? Int64(head) : Int64(UInt8(bitPattern: head))
        }
        switch head {
        case Self.tagInteger2:
            let raw = try readFixed(2, what)
            return signed ? Int64(Int16(truncatingIfNeeded: raw)) : Int64(raw)
        case Self.tagInteger4:
            let raw = try readFixed(4, what)
            return signed ? Int64(Int32(truncatingIfNeeded: raw)) : Int64(raw)
        case Self.tagInteger8:
            return Int64(bitPattern: try readFixed(8, what))
        default:
            throw ArchiveError(
                .invalidTag,
                "head 0x\(String(UInt8(bitPattern: head), radix: 16)) at offset \(position - 1) where a \(what) is expected"
            )
        }
    }
}
