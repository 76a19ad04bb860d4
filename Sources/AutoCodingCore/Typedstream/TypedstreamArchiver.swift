import AutoCodingFast

/// A Swift type that archives itself into a typedstream, as an `NSCoding` class's `encodeWithCoder:` does
/// under `NSArchiver`.
public protocol TypedstreamEncodable: AnyObject {
    /// The class chain to write, most derived first, with versions (`classForArchiver` and its superclasses).
    var typedstreamClasses: [TypedClass] { get }
    /// Writes the object's groups.
    func encode(typedstreamCoder coder: TypedstreamArchiver.ObjectCoder)
    /// `replacementObjectForArchiver:`: the object archived in this one's place (default: itself).
    func replacementObject(for archiver: TypedstreamArchiver) -> AnyObject
}

extension TypedstreamEncodable {
    /// Returns `self`.
    public func replacementObject(for archiver: TypedstreamArchiver) -> AnyObject { self }
}

/// Writes a typedstream in sequence, in the shape of `NSArchiver`: `encodeValuesOfObjCTypes:`,
/// `encodeObject:`, `encodeConditionalObject:`, then ``archivedBytes(byteOrder:)``.
///
/// An object encoded twice is written once and referred to afterwards (cycles included). A conditional
/// object is written only if some unconditional encode writes it too; otherwise it is nil, as in `NSArchiver`.
/// ``TypedObject``s (from a read graph) are written back unchanged; Swift strings, numbers, data, arrays and
/// dictionaries become their Foundation classes.
public final class TypedstreamArchiver {
    private var groups: [TypedGroup] = []
    /// Nodes made for Swift objects, by identity, so a shared object is one node.
    private var nodes: [ObjectIdentifier: TypedObject] = [:]
    /// Objects encoded unconditionally (as nodes).
    private var unconditional: Set<ObjectIdentifier> = []
    /// Conditional references: the placeholder node and the node it stands for.
    private var conditional: [(placeholder: TypedObject, target: TypedObject)] = []
    /// Objects whose groups are still to be encoded (an explicit queue: no recursion through object graphs).
    private var pending: [(object: any TypedstreamEncodable, node: TypedObject)] = []
    private var classNameMap: [String: String] = [:]

    /// Creates an empty archiver.
    public init() {}

    /// `encodeClassName:intoClassName:`: writes objects of class `name` under `archiveName`.
    public func encodeClassName(_ name: String, intoClassName archiveName: String) {
        classNameMap[name] = archiveName
    }

    /// `encodeValuesOfObjCTypes:`: one group of values with their type encoding.
    public func encodeValues(ofObjCTypes types: String, _ values: [TypedValue]) {
        groups.append(TypedGroup(encoding: types, values: values))
    }

    /// `encodeObject:` (root or top-level): one `@` group.
    public func encodeObject(_ object: AnyObject?) {
        groups.append(TypedGroup(encoding: "@", value: value(for: object, conditional: false)))
    }

    /// `encodeConditionalObject:`: one `@` group, nil unless the object is also encoded unconditionally.
    public func encodeConditionalObject(_ object: AnyObject?) {
        groups.append(TypedGroup(encoding: "@", value: value(for: object, conditional: true)))
    }

    /// The stream's bytes.
    public func archivedBytes(byteOrder: Typedstream.ByteOrder = .little) -> [UInt8] {
        graph(byteOrder: byteOrder).typedstreamBytes()
    }

    /// The stream's bytes, refusing (with the reader's error) what a reader with `options` would refuse, such
    /// as objects nested deeper than `ArchiveReadingOptions.depthLimit`.
    public func archivedBytes(
        byteOrder: Typedstream.ByteOrder = .little, readableWith options: ArchiveReadingOptions
    ) throws(ArchiveError) -> [UInt8] {
        try graph(byteOrder: byteOrder).typedstreamBytes(readableWith: options)
    }

    /// The graph written so far, with every pending object encoded and conditional references resolved.
    public func graph(byteOrder: Typedstream.ByteOrder = .little) -> TypedGraph {
        while let (object, node) = pending.popLast() {
            let coder = ObjectCoder(archiver: self)
            object.encode(typedstreamCoder: coder)
            node.groups = coder.box.groups
        }
        var resolved = TypedGraph(groups: groups, byteOrder: byteOrder)
        if !conditional.isEmpty { resolved.groups = resolveConditionals(resolved.groups) }
        return resolved
    }

    /// The value an object is written as: a node (made once per object), or nil.
    func value(for object: AnyObject?, conditional isConditional: Bool) -> TypedValue {
        guard var object else { return .nil }
        if let encodable = object as? any TypedstreamEncodable { object = encodable.replacementObject(for: self) }
        let node: TypedObject
        if let existing = nodes[ObjectIdentifier(object)] {
            node = existing
        } else if let typed = object as? TypedObject {
            node = typed
        } else if let encodable = object as? any TypedstreamEncodable {
            node = TypedObject(
                classes: encodable.typedstreamClasses.map { cls in
                    TypedClass(classNameMap[cls.name] ?? cls.name, version: cls.version)
                }
            )
            pending.append((encodable, node))
        } else {
            node = TypedstreamFoundationEncoding.node(for: object, archiver: self)
        }
        nodes[ObjectIdentifier(object)] = node
        guard isConditional else {
            unconditional.insert(ObjectIdentifier(node))
            return .object(node)
        }
        let placeholder = TypedObject(classes: [])
        conditional.append((placeholder, node))
        return .object(placeholder)
    }

    /// Replaces each conditional placeholder by its target when that is written unconditionally, else nil.
    private func resolveConditionals(_ groups: [TypedGroup]) -> [TypedGroup] {
        var targets: [ObjectIdentifier: TypedValue] = [:]
        for (placeholder, target) in conditional {
            targets[ObjectIdentifier(placeholder)] =
                unconditional.contains(ObjectIdentifier(target)) ? .object(target) : .nil
        }
        func fix(_ values: [TypedValue]) -> [TypedValue] {
            values.map { value in
                if case .object(let o) = value, let replacement = targets[ObjectIdentifier(o)] { return replacement }
                return value
            }
        }
        for object in TypedGraph.objects(in: groups) {
            object.groups = object.groups.map { TypedGroup(encoding: $0.encoding, values: fix($0.values)) }
        }
        return groups.map { TypedGroup(encoding: $0.encoding, values: fix($0.values)) }
    }

    /// What a ``TypedstreamEncodable`` writes its groups to.
    public struct ObjectCoder {
        final class Box { var groups: [TypedGroup] = [] }
        let box = Box()
        /// The archiver, for nested objects.
        public let archiver: TypedstreamArchiver

        init(archiver: TypedstreamArchiver) { self.archiver = archiver }

        /// One group of values.
        public func encodeValues(ofObjCTypes types: String, _ values: [TypedValue]) {
            box.groups.append(TypedGroup(encoding: types, values: values))
        }

        /// One `@` group.
        public func encodeObject(_ object: AnyObject?) {
            box.groups.append(TypedGroup(encoding: "@", value: archiver.value(for: object, conditional: false)))
        }

        /// One `@` group, nil unless the object is encoded unconditionally somewhere.
        public func encodeConditionalObject(_ object: AnyObject?) {
            box.groups.append(TypedGroup(encoding: "@", value: archiver.value(for: object, conditional: true)))
        }

        /// The value for an object inside a group of several values (such as `@@`).
        public func objectValue(_ object: AnyObject?) -> TypedValue {
            archiver.value(for: object, conditional: false)
        }
    }
}
