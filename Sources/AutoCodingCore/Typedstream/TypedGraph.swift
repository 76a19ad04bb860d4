import AutoCodingFast

/// A typedstream's values as a graph: its top-level groups, with objects (of any class, known or not) as
/// ``TypedObject`` instances that keep identity through shared and cyclic references.
///
/// Lossless: ``typedstream()`` writes the same events back, objects literally at their first appearance and
/// as references afterwards, classes once per name, C strings once per instance, as `NSArchiver` does.
public struct TypedGraph {
    /// The header's byte order.
    public var byteOrder: Typedstream.ByteOrder
    /// The header's system version.
    public var systemVersion: Int64
    /// The top-level groups, in order.
    public var groups: [TypedGroup]

    /// Creates a graph from groups.
    public init(groups: [TypedGroup], byteOrder: Typedstream.ByteOrder = .little, systemVersion: Int64 = 1000) {
        self.groups = groups
        self.byteOrder = byteOrder
        self.systemVersion = systemVersion
    }

    /// Reads, validates and resolves typedstream bytes.
    public init(bytes: [UInt8], options: ArchiveReadingOptions = ArchiveReadingOptions()) throws(ArchiveError) {
        try self.init(stream: Typedstream(bytes: bytes, options: options))
    }

    /// Resolves a validated stream's events into a graph (references were checked by the reader).
    public init(stream: Typedstream) throws(ArchiveError) {
        byteOrder = stream.byteOrder
        systemVersion = stream.systemVersion
        var builder = TypedGraphBuilder(stream: stream)
        groups = try builder.build()
    }

    /// The first top-level value, when it is an object: the root of most streams.
    public var root: TypedObject? { groups.first?.values.first?.object }

    /// Every object of the graph, each once, in stream order of first appearance.
    public var objects: [TypedObject] { Self.objects(in: groups) }

    /// Every object of the graph, each once, found with an explicit stack.
    static func objects(in groups: [TypedGroup]) -> [TypedObject] {
        var seen: Set<ObjectIdentifier> = []
        var result: [TypedObject] = []
        var stack: [TypedValue] = groups.reversed().flatMap { $0.values.reversed() }
        while let value = stack.popLast() {
            switch value {
            case .object(let object):
                guard seen.insert(ObjectIdentifier(object)).inserted else { continue }
                result.append(object)
                stack.append(contentsOf: object.groups.reversed().flatMap { $0.values.reversed() })
            case .array(let values, _), .structure(let values, _):
                stack.append(contentsOf: values.reversed())
            default: break
            }
        }
        return result
    }

    /// The graph as events.
    public func typedstream() -> Typedstream {
        var writer = TypedGraphWriter(stream: Typedstream(byteOrder: byteOrder, systemVersion: systemVersion))
        writer.write(groups)
        return writer.stream
    }

    /// The graph as typedstream bytes.
    public func typedstreamBytes() -> [UInt8] {
        typedstream().typedstreamBytes()
    }

    /// The graph as typedstream bytes, refusing (with the reader's error) a graph that a reader with
    /// `options` would refuse, such as one nested deeper than ``ArchiveReadingOptions/depthLimit``.
    public func typedstreamBytes(readableWith options: ArchiveReadingOptions) throws(ArchiveError) -> [UInt8] {
        try typedstream().typedstreamBytes(readableWith: options)
    }
}

/// Turns events into values with an explicit stack (no recursion however deep the stream nests).
///
/// The stack is kept as parallel arrays, so that appending a value mutates the innermost array in place.
struct TypedGraphBuilder {
    private enum Kind { case group, object, array, structure }

    private enum Entry {
        case object(TypedObject)
        case `class`([TypedClass])
        case cString(TypedCString)
    }

    let stream: Typedstream
    private var kinds: [Kind] = []
    /// Per open group, array or struct: its encoding and the values so far (empty for an object).
    private var encodings: [String] = []
    private var values: [[TypedValue]] = []
    /// Per open object: the object whose groups are being read (nil for other kinds).
    private var owners: [TypedObject?] = []
    private var entries: [Entry] = []
    private var top: [TypedGroup] = []
    /// Classes of a chain being read, with their entry numbers, until its nil or class reference.
    private var pendingChain: [(entry: Int, cls: TypedClass)] = []
    /// Whether the chain being read is an object's (else it is a `#` value).
    private var chainOwner: TypedObject?
    private var inChain = false
    /// Type encodings by their place in storage, with the number of values a group and a struct of them hold: a
    /// shared string is decoded to a `String` and counted once.
    private var texts: [Int: (text: String, groupValues: Int, structFields: Int)] = [:]
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

    private mutating func text(_ s: TypedstreamString) -> String { encoding(s).text }

    /// The text of a type encoding and the number of values a group and a struct of it hold.
    private mutating func encoding(_ s: TypedstreamString) -> (text: String, groupValues: Int, structFields: Int) {
        if let known = texts[s.range.lowerBound] { return known }
        let bytes = stream.bytes(of: s)
        var fields = bytes[...]
        if fields.first == UInt8(ascii: "{"), let equals = fields.firstIndex(of: UInt8(ascii: "=")) {
            fields = fields[(equals + 1)...].dropLast()
        }
        let known = (
            text: String(decoding: bytes, as: UTF8.self), groupValues: Self.typeCount(bytes),
            structFields: Self.typeCount(fields)
        )
        texts[s.range.lowerBound] = known
        return known
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

    private mutating func open(_ kind: Kind, _ encoding: String, owner: TypedObject? = nil, capacity: Int = 0) {
        kinds.append(kind)
        encodings.append(encoding)
        var frame: [TypedValue] = []
        // The reader bounded a declared array count by the event budget; the cap keeps a lie from reserving much.
        frame.reserveCapacity(min(capacity, 1 << 12))
        values.append(frame)
        owners.append(owner)
    }

    /// Closes the innermost frame, which must be of `kind`, and returns its encoding and values.
    private mutating func close(_ kind: Kind, _ event: TypedstreamEvent) throws(ArchiveError) -> (String, [TypedValue])
    {
        guard kinds.last == kind else { throw misplaced(event) }
        kinds.removeLast()
        owners.removeLast()
        return (encodings.removeLast(), values.removeLast())
    }

    mutating func build() throws(ArchiveError) -> [TypedGroup] {
        for event in stream.events {
            switch event {
            case .beginGroup(let s):
                let encoding = encoding(s)
                open(.group, encoding.text, capacity: encoding.groupValues)
            case .endGroup:
                let (encoding, groupValues) = try close(.group, event)
                let group = TypedGroup(encoding: encoding, values: groupValues)
                if kinds.isEmpty {
                    top.append(group)
                } else if kinds.last == .object, let owner = owners.last ?? nil {
                    owner.groups.append(group)
                } else {
                    throw misplaced(event)
                }
            case .beginObject:
                let object = TypedObject(classes: [])
                entries.append(.object(object))
                try add(.object(object))
                open(.object, "", owner: object)
                inChain = true
                chainOwner = object
            case .endObject:
                _ = try close(.object, event)
            case .classInfo(let name, let version):
                if !inChain {
                    inChain = true
                    chainOwner = nil
                }
                pendingChain.append((entries.count, TypedClass(text(name), version: version)))
                entries.append(.class([]))
            case .nil:
                if inChain { try endChain(rest: []) } else { try add(.nil) }
            case .reference(let number, let kind):
                guard Int(number) < entries.count else { throw misplaced(event) }
                switch (kind, entries[Int(number)]) {
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
            case .beginArray(let s, let count): open(.array, text(s), capacity: count)
            case .endArray:
                let (encoding, elements) = try close(.array, event)
                try add(.array(elements, encoding: encoding))
            case .beginStruct(let s):
                let encoding = encoding(s)
                open(.structure, encoding.text, capacity: encoding.structFields)
            case .endStruct:
                let (encoding, fields) = try close(.structure, event)
                try add(.structure(fields, encoding: encoding))
            }
        }
        guard kinds.isEmpty else { throw ArchiveError(.truncated, "the events end inside a value") }
        return top
    }

    /// Completes the chain being read: each pending class's chain is itself followed by the rest.
    private mutating func endChain(rest: [TypedClass]) throws(ArchiveError) {
        try spendClassBudget(pending: pendingChain.count, rest: rest.count)
        let chain = pendingChain.map(\.cls) + rest
        for (index, pending) in pendingChain.enumerated() {
            entries[pending.entry] = .class(index == 0 ? chain : Array(chain[index...]))
        }
        pendingChain.removeAll(keepingCapacity: true)
        inChain = false
        if let owner = chainOwner {
            owner.classes = chain
            chainOwner = nil
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

    private mutating func add(_ value: TypedValue) throws(ArchiveError) {
        guard let kind = kinds.last, kind != .object else {
            throw ArchiveError(.unexpectedType, "a value outside any group of values")
        }
        values[values.count - 1].append(value)
    }

    private func misplaced(_ event: TypedstreamEvent) -> ArchiveError {
        ArchiveError(.unexpectedType, "event \(event) where the stream's structure does not allow it")
    }
}

/// Turns values into events with an explicit stack, sharing as `NSArchiver` does.
struct TypedGraphWriter {
    private enum Work {
        case group(TypedGroup)
        case value(TypedValue)
        case objectBody(TypedObject)
        case event(TypedstreamEvent)
    }

    var stream: Typedstream
    private var numbers: Int32 = 0
    private var objects: [ObjectIdentifier: Int32] = [:]
    private var classes: [String: Int32] = [:]
    private var cStrings: [ObjectIdentifier: Int32] = [:]
    private var work: [Work] = []

    init(stream: Typedstream) { self.stream = stream }

    mutating func write(_ groups: [TypedGroup]) {
        work.append(contentsOf: groups.reversed().map { .group($0) })
        while let item = work.popLast() {
            switch item {
            case .event(let event): stream.events.append(event)
            case .group(let group):
                stream.events.append(.beginGroup(stream.string(group.encoding)))
                work.append(.event(.endGroup))
                work.append(contentsOf: group.values.reversed().map { .value($0) })
            case .objectBody(let object):
                work.append(.event(.endObject))
                work.append(contentsOf: object.groups.reversed().map { .group($0) })
            case .value(let value): write(value)
            }
        }
    }

    private mutating func next() -> Int32 {
        defer { numbers += 1 }
        return numbers
    }

    private mutating func write(_ value: TypedValue) {
        switch value {
        case .signed(let v, let type): stream.events.append(.signed(v, type: type))
        case .unsigned(let v, let type): stream.events.append(.unsigned(v, type: type))
        case .float(let v): stream.events.append(.float(v))
        case .double(let v): stream.events.append(.double(v))
        case .nil: stream.events.append(.nil)
        case .ignored: stream.events.append(.ignored)
        case .cString(let string):
            if let number = cStrings[ObjectIdentifier(string)] {
                stream.events.append(.reference(number, kind: .cString))
            } else {
                cStrings[ObjectIdentifier(string)] = next()
                stream.events.append(.cString(stream.string(string.bytes)))
            }
        case .atom(let bytes): stream.events.append(.atom(bytes.map { stream.string($0) }))
        case .selector(let bytes): stream.events.append(.selector(bytes.map { stream.string($0) }))
        case .string(let bytes): stream.events.append(.string(stream.string(bytes)))
        case .class(let chain): writeChain(chain)
        case .object(let object):
            if let number = objects[ObjectIdentifier(object)] {
                stream.events.append(.reference(number, kind: .object))
            } else {
                objects[ObjectIdentifier(object)] = next()
                stream.events.append(.beginObject)
                writeChain(object.classes)
                work.append(.objectBody(object))
            }
        case .bytes(let bytes, let signed): stream.events.append(.byteArray(stream.string(bytes), signed: signed))
        case .array(let values, let encoding):
            stream.events.append(.beginArray(stream.string(encoding), count: values.count))
            work.append(.event(.endArray))
            work.append(contentsOf: values.reversed().map { .value($0) })
        case .structure(let values, let encoding):
            stream.events.append(.beginStruct(stream.string(encoding)))
            work.append(.event(.endStruct))
            work.append(contentsOf: values.reversed().map { .value($0) })
        }
    }

    /// Classes not written yet are written literally, up to the first one already written (a reference) or
    /// the end of the chain (nil).
    private mutating func writeChain(_ chain: [TypedClass]) {
        for cls in chain {
            if let number = classes[cls.name] {
                stream.events.append(.reference(number, kind: .class))
                return
            }
            classes[cls.name] = next()
            stream.events.append(.classInfo(name: stream.string(cls.name), version: cls.version))
        }
        stream.events.append(.nil)
    }
}
