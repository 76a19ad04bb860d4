import AutoCodingFast

/// What `@AutoCoding`'s generated decoding reads properties from. Not meant to be used directly.
///
/// Over this package's decoder it reads the archive's table directly: one key lookup per property, scalars
/// without a coding-path node, and no `KeyedDecodingContainer` box (whose generic calls cost a runtime metadata
/// lookup per property). Over any other `Decoder` it is a `KeyedDecodingContainer<AutoCodingKey>`.
public struct AutoCodingReader {
    /// What the reader reads from.
    private enum Source {
        /// This package's decoder: its context (which keeps every class's key slots until the decode ends).
        case archive(DecodingContext)
        /// Another decoder's keyed container, boxed: `KeyedDecodingContainer` is resilient, so held inline it
        /// gave the reader a layout known only at run time, and every field read looked its offsets up and
        /// copied it through value witnesses.
        case fallback(FallbackContainer<KeyedDecodingContainer<AutoCodingKey>>)
    }

    private let source: Source
    /// The same context, and the key slots of the object's class, unretained for the field reads: `source` owns
    /// the context for the reader's life, and the context the slots, and reading them as guaranteed references
    /// costs no retain and release per field (bound from optionals by `guard let`, each was copied: two retains
    /// and releases per field read).
    private let context: Unmanaged<DecodingContext>?
    private let slots: Unmanaged<ArchiveKeySlots>?
    /// The object's node and its path (over this package's decoder).
    private let node: DecodingContext.Node
    private let codingPathNode: CodingPathNode

    /// A reader of the object `decoder` is positioned on.
    public init(_ decoder: any Decoder) throws {
        // Each branch initializes the reader whole, in place: assigning its properties one by one built it in a
        // temporary that was then copied and destroyed, twice per object decoded.
        if let archive = _ArchiveDecoder.opened(decoder) {
            try archive.checkKeyedObject()
            let slots = archive.context.keySlots(of: archive.node)
            self.init(
                source: .archive(archive.context), context: .passUnretained(archive.context),
                slots: slots.map { .passUnretained($0) }, node: archive.node, codingPathNode: archive.codingPathNode)
        } else {
            self.init(
                source: .fallback(FallbackContainer(try decoder.container(keyedBy: AutoCodingKey.self))),
                context: nil, slots: nil, node: .null, codingPathNode: .root)
        }
    }

    private init(
        source: Source, context: Unmanaged<DecodingContext>?, slots: Unmanaged<ArchiveKeySlots>?,
        node: DecodingContext.Node, codingPathNode: CodingPathNode
    ) {
        self.source = source
        self.context = context
        self.slots = slots
        self.node = node
        self.codingPathNode = codingPathNode
    }

    /// Another decoder's container, when the reader reads through one.
    private var container: KeyedDecodingContainer<AutoCodingKey>? {
        if case .fallback(let fallback) = source { return fallback.container }
        return nil
    }

    /// The bplist object stored under `key` in the object, found through the class's key slots.
    @inline(__always)
    private func field(_ key: String, in context: DecodingContext) -> Int? {
        guard let slots else { return context.field(key, of: node) }
        return slots._withUnsafeGuaranteedRef { context.field(key, of: node, slots: $0) }
    }

    /// Reads the first of `keys` present into `property`; leaves it unchanged when none is.
    func read<T: Decodable>(_ property: inout T, keys: [String], in owner: Any.Type) throws {
        guard let context else {
            guard let container, let key = keys.lazy.map(AutoCodingKey.init).first(where: container.contains) else { return }
            try Self.describing(owner, key.stringValue) { property = try container.decode(T.self, forKey: key) }
            return
        }
        try context._withUnsafeGuaranteedRef { context in
            for key in keys {
                guard let object = field(key, in: context) else { continue }
                try Self.describing(owner, key) {
                    property = try context.decodeChild(T.self, at: object, key: ArchiveCodingKey(key), below: codingPathNode)
                }
                return
            }
        }
    }

    /// Reads an optional property: absent keys leave it unchanged, `$null` and `NSNull` read as nil (except
    /// into an `ArchivedValue?`, which reads them as the archived value, and into a `T??`, which reads them as
    /// `.some(nil)`).
    func read<T: Decodable>(_ property: inout T?, keys: [String], in owner: Any.Type) throws {
        guard let context else {
            guard let container, let key = keys.lazy.map(AutoCodingKey.init).first(where: container.contains) else { return }
            try Self.describing(owner, key.stringValue) {
                property = try container.decodeNil(forKey: key) ? nil : container.decode(T.self, forKey: key)
            }
            return
        }
        try context._withUnsafeGuaranteedRef { context in
            for key in keys {
                guard let object = field(key, in: context) else { continue }
                let field = try context.resolve(object)
                // An optional ArchivedValue keeps `$null` as `.null`, and a double optional (`T??`) as `.some(nil)`:
                // nil is for an absent key, so both re-encode as read.
                if T.self != ArchivedValue.self, try field.isNull || context.className(of: field) == "NSNull" {
                    property = (T.self as? any ExpressibleByNilLiteral.Type).flatMap { $0.init(nilLiteral: ()) as? T }
                    return
                }
                try Self.describing(owner, key) {
                    property = try context.decodeChild(
                        T.self, node: field, key: ArchiveCodingKey(key), below: codingPathNode)
                }
                return
            }
        }
    }

    /// Reads a property of a scalar type with `read`, as ``read(_:keys:in:)`` reads it through the decoder's
    /// generic dispatch (``DecodingContext/decodeChild(_:at:key:below:)``) but without asking for the type's
    /// decode kind: the same values, the same errors. Secure decoding, whose class checks run per value, and
    /// other decoders than this package's take the generic way.
    @inline(__always)
    func readScalar<T: Decodable>(
        _ property: inout T, keys: [String], in owner: Any.Type, _ read: FoundationValues.ScalarRead<T>
    ) throws {
        try readField(&property, keys: keys, in: owner) { try scalar(read, $0, $1, $2, owner) }
    }

    /// Reads an optional property of a scalar type with `read` (see ``readScalar(_:keys:in:_:)``): `$null` and
    /// `NSNull` read as nil.
    @inline(__always)
    func readScalar<T: Decodable>(
        _ property: inout T?, keys: [String], in owner: Any.Type, _ read: FoundationValues.ScalarRead<T>
    ) throws {
        try readField(&property, keys: keys, in: owner) { try scalar(read, $0, $1, $2, owner) }
    }

    /// Reads a `[String]` property (``FoundationValues/strings(_:_:key:_:)``) with the values and errors of
    /// ``read(_:keys:in:)``, as ``readScalar(_:keys:in:_:)`` reads a scalar.
    func readStrings(_ property: inout [String], keys: [String], in owner: Any.Type) throws {
        try readField(&property, keys: keys, in: owner) { try strings($0, $1, $2, owner) }
    }

    /// Reads an optional `[String]` property (see ``readStrings(_:keys:in:)``): `$null` and `NSNull` read as nil.
    func readStrings(_ property: inout [String]?, keys: [String], in owner: Any.Type) throws {
        try readField(&property, keys: keys, in: owner) { try strings($0, $1, $2, owner) }
    }

    /// Reads the first of `keys` present with `value` (given the field's node and key), as ``read(_:keys:in:)``
    /// reads it; secure decoding, whose class checks run per value, and other decoders than this package's take
    /// ``read(_:keys:in:)`` itself.
    @inline(__always)
    private func readField<T: Decodable>(
        _ property: inout T, keys: [String], in owner: Any.Type,
        _ value: (DecodingContext.Node, String, DecodingContext) throws -> T
    ) throws {
        guard let context, context._withUnsafeGuaranteedRef({ $0.allowedClassNames == nil }) else {
            return try read(&property, keys: keys, in: owner)
        }
        try context._withUnsafeGuaranteedRef { context in
            for key in keys {
                guard let object = field(key, in: context) else { continue }
                property = try value(context.resolve(object), key, context)
                return
            }
        }
    }

    /// ``readField(_:keys:in:_:)`` of an optional property: `$null` and `NSNull` read as nil.
    @inline(__always)
    private func readField<T: Decodable>(
        _ property: inout T?, keys: [String], in owner: Any.Type,
        _ value: (DecodingContext.Node, String, DecodingContext) throws -> T
    ) throws {
        guard let context, context._withUnsafeGuaranteedRef({ $0.allowedClassNames == nil }) else {
            return try read(&property, keys: keys, in: owner)
        }
        try context._withUnsafeGuaranteedRef { context in
            for key in keys {
                guard let object = field(key, in: context) else { continue }
                let field = try context.resolve(object)
                if try field.isNull || context.className(of: field) == "NSNull" {
                    property = nil
                } else {
                    property = try value(field, key, context)
                }
                return
            }
        }
    }

    /// The strings of the list at `node`, naming the key and the owner of an error as ``scalar(_:_:_:_:_:)`` does.
    private func strings(_ node: DecodingContext.Node, _ key: String, _ context: DecodingContext,
                         _ owner: Any.Type) throws -> [String]
    {
        do {
            return try FoundationValues.strings(node, context, key: key, codingPathNode)
        } catch let error as DecodingError {
            throw AutoCodingSupport.describe(
                error.prefixingKey(ArchiveCodingKey(key), below: codingPathNode), owner: owner, key: key)
        }
    }

    /// Reads the scalar at `node`, naming the key (in the path) and the owner (in the description) of an error.
    @inline(__always)
    private func scalar<T>(_ read: FoundationValues.ScalarRead<T>, _ node: DecodingContext.Node, _ key: String,
                           _ context: DecodingContext, _ owner: Any.Type) throws -> T
    {
        do {
            return try read(node, context, codingPathNode)
        } catch let error as DecodingError {
            throw AutoCodingSupport.describe(
                error.prefixingKey(ArchiveCodingKey(key), below: codingPathNode), owner: owner, key: key)
        }
    }

    /// Reads a property that has no default value: one of `keys` must be present.
    func readRequired<T: Decodable>(_ type: T.Type, keys: [String], in owner: Any.Type) throws -> T {
        var value: T?
        try read(&value, keys: keys, in: owner)
        guard let value else {
            let path = context != nil ? codingPathNode.path : container?.codingPath ?? []
            throw DecodingError.keyNotFound(
                AutoCodingKey(keys[0]), .init(codingPath: path, debugDescription: "\(owner).\(keys[0]) is missing"))
        }
        return value
    }

    /// Runs `body`, naming the owner and the key in a decoding error it throws.
    @inline(__always)
    private static func describing(_ owner: Any.Type, _ key: String, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as DecodingError {
            throw AutoCodingSupport.describe(error, owner: owner, key: key)
        }
    }
}
