import AutoCodingFast

/// A Swift type that decodes itself from a typedstream object, as an `NSCoding` class's `initWithCoder:`
/// does under `NSUnarchiver`: it reads its groups in the order its archiver wrote them.
public protocol TypedstreamDecodable: AnyObject {
    /// The class names this type decodes (after ``TypedstreamUnarchiver/decodeClassName(_:asClassName:)``).
    static var typedstreamClassNames: [String] { get }
    /// Creates the value from the object's groups.
    init(typedstreamCoder coder: TypedstreamUnarchiver.ObjectCoder) throws
    /// `awakeAfterUsingCoder:`: the object that takes this one's place (default: itself).
    func awakeAfter(using coder: TypedstreamUnarchiver) -> AnyObject
}

extension TypedstreamDecodable {
    /// Returns `self`.
    public func awakeAfter(using coder: TypedstreamUnarchiver) -> AnyObject { self }
}

/// Reads a typedstream in sequence with typed calls, in the shape of `NSUnarchiver`:
/// `decodeValue(ofObjCType:)`, `decodeObject()`, `versionForClassName`, `decodeClassName:asClassName:`.
///
/// The whole stream is validated and resolved into a ``TypedGraph`` first; the calls then walk its top-level
/// groups. Objects keep identity (a shared object decodes to one instance, cycles included, through the memo).
/// Classes without a registered ``TypedstreamDecodable`` type come back as ``TypedObject``s, never an error.
public final class TypedstreamUnarchiver {
    /// The resolved graph.
    public let graph: TypedGraph
    private var cursor: GroupCursor
    private var registry: [String: any TypedstreamDecodable.Type] = [:]
    private var classNameMap: [String: String] = [:]
    private var decoded: [ObjectIdentifier: AnyObject] = [:]
    private var versions: [String: Int64] = [:]

    /// Reads and validates `bytes`.
    public init(forReadingWith bytes: [UInt8], options: ArchiveReadingOptions = ArchiveReadingOptions()) throws {
        graph = try TypedGraph(bytes: bytes, options: options)
        cursor = GroupCursor(groups: graph.groups, what: "the stream")
        for object in graph.objects {
            for cls in object.classes where versions[cls.name] == nil { versions[cls.name] = cls.version }
        }
    }

    /// The header's system version (1000 on Mac OS X, 930 on NeXTSTEP 3).
    public var systemVersion: Int64 { graph.systemVersion }

    /// Whether every top-level group has been decoded.
    public var isAtEnd: Bool { cursor.isAtEnd }

    /// The version the stream records for a class, or nil when no object of it is in the stream.
    public func versionForClassName(_ name: String) -> Int64? { versions[name] }

    /// Decodes objects archived under `archiveName` as `className` (for a class renamed since).
    public func decodeClassName(_ archiveName: String, asClassName className: String) {
        classNameMap[archiveName] = className
    }

    /// The class name objects archived under `archiveName` decode as.
    public func classNameDecoded(forArchiveClassName archiveName: String) -> String {
        classNameMap[archiveName] ?? archiveName
    }

    /// Registers a Swift type for the class names it declares.
    public func register(_ type: any TypedstreamDecodable.Type) {
        for name in type.typedstreamClassNames { registry[name] = type }
    }

    /// `decodeValuesOfObjCTypes:`: the next group, which must have exactly the encoding `types`.
    public func decodeValues(ofObjCTypes types: String) throws -> [TypedValue] {
        try cursor.next(types).values
    }

    /// `decodeValueOfObjCType:at:` for a one-value encoding.
    public func decodeValue(ofObjCType type: String) throws -> TypedValue {
        try cursor.nextFirst(type)
    }

    /// Decodes the next group as an integer of any width (its encoding must be one integer code).
    public func decodeInteger<T: FixedWidthInteger>(_: T.Type = T.self) throws -> T {
        try Self.integer(cursor.nextSingle(), T.self)
    }

    /// Decodes the next group as a real (`f` or `d`).
    public func decodeReal() throws -> Double {
        let value = try cursor.nextSingle()
        guard let real = value.real else {
            throw TypedstreamDecodingError(.typeMismatch, "expected a real, found \(value)")
        }
        return real
    }

    /// `decodeObject`: the next `@` group. A registered class decodes to its Swift type; others stay
    /// ``TypedObject``; nil for a nil object.
    public func decodeObject() throws -> AnyObject? {
        try object(for: cursor.nextFirst("@"))
    }

    /// Decodes an `@` value found inside a group (an element of an array, say).
    public func object(for value: TypedValue) throws -> AnyObject? {
        switch value {
        case .nil: return nil
        case .object(let node): return try decode(node)
        default: throw TypedstreamDecodingError(.typeMismatch, "expected an object, found \(value)")
        }
    }

    private func decode(_ node: TypedObject) throws -> AnyObject {
        if let done = decoded[ObjectIdentifier(node)] { return done }
        guard let type = registry[classNameDecoded(forArchiveClassName: node.className)] else {
            decoded[ObjectIdentifier(node)] = node
            return node
        }
        // A cycle back to an object still being decoded gets the undecoded node, as there is no instance yet.
        decoded[ObjectIdentifier(node)] = node
        let value = try type.init(typedstreamCoder: ObjectCoder(node: node, unarchiver: self))
        let result = value.awakeAfter(using: self)
        decoded[ObjectIdentifier(node)] = result
        return result
    }

    static func integer<T: FixedWidthInteger>(_ value: TypedValue, _: T.Type) throws -> T {
        switch value {
        case .signed(let v, _): if let r = T(exactly: v) { return r }
        case .unsigned(let v, _): if let r = T(exactly: v) { return r }
        default: break
        }
        throw TypedstreamDecodingError(.typeMismatch, "expected an integer that fits \(T.self), found \(value)")
    }

    /// The coder a ``TypedstreamDecodable`` type reads its own object's groups from.
    public struct ObjectCoder {
        /// The object being decoded: its class chain (with versions) and groups.
        public let node: TypedObject
        /// The unarchiver, for nested objects and class versions.
        public let unarchiver: TypedstreamUnarchiver
        private var cursor: GroupCursor

        init(node: TypedObject, unarchiver: TypedstreamUnarchiver) {
            self.node = node
            self.unarchiver = unarchiver
            self.cursor = GroupCursor(groups: node.groups, what: node.className)
        }

        /// The version of `name` in this object's class chain.
        public func version(of name: String) -> Int64? { node.version(of: name) }

        /// Whether every group of the object has been read.
        public var isAtEnd: Bool { cursor.isAtEnd }

        /// The next group, which must have exactly the encoding `types`.
        public mutating func decodeValues(ofObjCTypes types: String) throws -> [TypedValue] {
            try cursor.next(types).values
        }

        /// The next group as one integer.
        public mutating func decodeInteger<T: FixedWidthInteger>(_: T.Type = T.self) throws -> T {
            try TypedstreamUnarchiver.integer(cursor.nextSingle(), T.self)
        }

        /// The next `@` group, decoded through the unarchiver (identity kept).
        public mutating func decodeObject() throws -> AnyObject? {
            try unarchiver.object(for: cursor.nextFirst("@"))
        }
    }
}

/// A position in a list of groups.
struct GroupCursor {
    let groups: [TypedGroup]
    let what: String
    var index = 0

    var isAtEnd: Bool { index >= groups.count }

    mutating func next(_ types: String) throws -> TypedGroup {
        guard index < groups.count else {
            throw TypedstreamDecodingError(
                .groupMismatch, "\(what) has no more groups (asked for \(types))", group: index)
        }
        let group = groups[index]
        guard group.encoding == types else {
            throw TypedstreamDecodingError(
                .groupMismatch, "\(what) group \(index) is \(group.encoding), not \(types)", group: index)
        }
        index += 1
        return group
    }

    /// The first value of the next group, which must have exactly the encoding `types` and a value.
    mutating func nextFirst(_ types: String) throws -> TypedValue {
        guard let value = try next(types).first else {
            throw TypedstreamDecodingError(.groupMismatch, "\(what) group \(index - 1) holds no value", group: index - 1)
        }
        return value
    }

    mutating func nextSingle() throws -> TypedValue {
        guard index < groups.count, groups[index].count == 1 else {
            throw TypedstreamDecodingError(.groupMismatch, "\(what) group \(index) is not a single value", group: index)
        }
        index += 1
        return groups[index - 1][0]
    }
}
