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

    /// Reads, validates and resolves typedstream bytes, in one pass: the graph is built as the reader reads, and
    /// no `Typedstream` of the events is kept (`Typedstream(bytes:options:)` holds 24 bytes per event, about one
    /// event per input byte).
    public init(bytes: [UInt8], options: ArchiveReadingOptions = ArchiveReadingOptions()) throws(ArchiveError) {
        var builder = TypedGraphBuilder(storage: bytes)
        // The header and no events, once the build has returned (reading is its last step).
        var stream = Typedstream()
        groups = try builder.build { (consume) throws(ArchiveError) in
            stream = try Typedstream.read(bytes: bytes, options: options, into: consume)
        }
        byteOrder = stream.byteOrder
        systemVersion = stream.systemVersion
    }

    /// Resolves a validated stream's events into a graph (references were checked by the reader).
    public init(stream: Typedstream) throws(ArchiveError) {
        byteOrder = stream.byteOrder
        systemVersion = stream.systemVersion
        var builder = TypedGraphBuilder(storage: stream.storage)
        groups = try builder.build { (consume) throws(ArchiveError) in
            try stream.events.withUnsafeBufferPointer { (events) throws(ArchiveError) in try consume(events) }
        }
    }

    /// The first top-level value, when it is an object: the root of most streams.
    public var root: TypedObject? { groups.first?.first?.object }

    /// Every object of the graph, each once, in stream order of first appearance.
    public var objects: [TypedObject] { Self.objects(in: groups) }

    /// Every object of the graph, each once, found with an explicit stack.
    static func objects(in groups: [TypedGroup]) -> [TypedObject] {
        var seen: Set<ObjectIdentifier> = []
        var result: [TypedObject] = []
        var stack: [TypedValue] = groups.reversed().flatMap { $0.reversed() }
        while let value = stack.popLast() {
            switch value {
            case .object(let object):
                guard seen.insert(ObjectIdentifier(object)).inserted else { continue }
                result.append(object)
                stack.append(contentsOf: object.groups.reversed().flatMap { $0.reversed() })
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
    /// `options` would refuse, such as one nested deeper than `ArchiveReadingOptions.depthLimit`.
    public func typedstreamBytes(readableWith options: ArchiveReadingOptions) throws(ArchiveError) -> [UInt8] {
        try typedstream().typedstreamBytes(readableWith: options)
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
                work.append(contentsOf: group.reversed().map { .value($0) })
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
