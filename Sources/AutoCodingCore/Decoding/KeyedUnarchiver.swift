import AutoCodingFast
import Foundation

/// Reads keyed archives with NSCoder-shaped calls: for ``ArchiveCoding`` classes, and for reading archives
/// key by key.
///
/// At the top level the keys are `$top`'s (`root` …); inside ``ArchiveCoding/init(coder:)`` they are the
/// object's fields. With ``requiresSecureCoding``, every object decoded is checked against the classes the
/// call allows, on every reference (Apple checks only the first decode of a shared object), and a mismatch is
/// a thrown error naming the class found and the classes allowed, never a trap.
public final class KeyedUnarchiver {
    /// What to do with a class that maps to no Swift type in ``decodeObject(forKey:)``.
    public enum UnknownClassPolicy: Sendable {
        /// Return it as an ``ArchivedObject`` (lossless: it re-encodes unchanged).
        case keepAsArchivedObject
        /// Throw a `DecodingError`.
        case fail
    }

    let context: DecodingContext
    let node: DecodingContext.Node
    let path: CodingPathNode

    /// Whether object decoding must name the allowed classes (`decodeObject(of:forKey:)`,
    /// ``decodeObject(ofClasses:forKey:)``). Default: false.
    public var requiresSecureCoding = false

    /// What ``decodeObject(forKey:)`` does with unknown classes. Default: keep them as ``ArchivedObject``.
    public var unknownClassPolicy: UnknownClassPolicy {
        get { context.unknownClassPolicy }
        set { context.unknownClassPolicy = newValue }
    }

    /// Opens an archive for reading its `$top` entries.
    public convenience init(forReadingFrom data: Data, decoder: KeyedArchiveDecoder = .init()) throws {
        try self.init(bytes: [UInt8](data), decoder: decoder)
    }

    /// Opens an archive for reading its `$top` entries.
    public init(bytes: [UInt8], decoder: KeyedArchiveDecoder = .init()) throws {
        let table: ArchiveRecordTable
        do {
            table = try ArchiveRecordTable(lazy: bytes, options: decoder.options)
        } catch {
            throw DecodingError.archiveCorrupted("The data is not a valid keyed archive: \(error)", at: .root, underlying: error)
        }
        context = DecodingContext(decoder: decoder, table: table)
        node = DecodingContext.Node(object: table.topDictionary, uid: nil)
        path = .root
    }

    init(context: DecodingContext, node: DecodingContext.Node, path: CodingPathNode) {
        self.context = context
        self.node = node
        self.path = path
    }

    /// Registers `object` as the instance decoded from this unarchiver's entry before its fields are read
    /// (``TwoPhaseArchiveCoding``), so that references back to the entry get it. The first registration wins.
    func beginFilling(_ object: AnyObject) {
        guard let uid = node.uid, context.instances[uid] == nil else { return }
        context.remember(object, as: uid)
    }

    /// Decodes objects archived under `name` as `type` in this unarchiver (Apple's `setClass(_:forClassName:)`).
    public func setClass(_ type: any ArchiveCoding.Type, forClassName name: String) {
        context.codingClasses[name] = type
    }

    /// Decodes objects archived under `name` as the `Decodable` `type` in this unarchiver.
    public func setClass(_ type: any Decodable.Type, forClassName name: String) {
        context.classes[name] = type
    }

    // MARK: One-call entry points

    /// Decodes the root object as `type` through the Codable bridge (`nil` when the root is `$null`).
    public static func unarchivedObject<T: Decodable>(ofType type: T.Type, from data: Data) throws -> T? {
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        return try unarchiver.decodeObject(of: type, forKey: ArchiveKey.root)
    }

    /// Decodes the root object as the ``ArchiveCoding`` class `type`.
    public static func unarchivedObject<T: ArchiveCoding>(ofType type: T.Type, from data: Data) throws -> T? {
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        return try unarchiver.decodeObject(of: type, forKey: ArchiveKey.root)
    }

    /// Decodes the root object with secure decoding: every object in it must be of one of `classes` (Swift
    /// types, mapped to their archived names: `String` is NSString, `Int` NSNumber, `[T]` NSArray …).
    public static func unarchivedObject(ofClasses classes: [Any.Type], from data: Data) throws -> Any? {
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = true
        return try unarchiver.decodeObject(ofClasses: classes, forKey: ArchiveKey.root)
    }

    /// An unarchiver positioned on the root object (for reading it with `init(coder:)`).
    func rootObjectCoder() throws -> KeyedUnarchiver {
        guard let root = try context.rootEntry() else {
            throw DecodingError.valueNotFound(
                AnyObject.self, .init(codingPath: [], debugDescription: "The archive's $top has no root entry"))
        }
        let rootNode = try context.resolve(root)
        guard !rootNode.isNull, context.kind(rootNode) == .dictionary else {
            throw DecodingError.archiveTypeMismatch(AnyObject.self, at: .root, found: context.describe(rootNode))
        }
        return KeyedUnarchiver(context: context, node: rootNode, path: .root)
    }

    // MARK: Keys

    /// Whether the current object (or `$top`) has a value for `key`.
    public func containsValue(forKey key: String) -> Bool { context.field(key, of: node) != nil }

    private func entry(_ key: String) throws -> DecodingContext.Node? {
        try context.field(key, of: node).map(context.resolve)
    }

    private func keyPath(_ key: String) -> CodingPathNode { path.appending(ArchiveCodingKey(key)) }

    // MARK: Scalars (0, false or nil when the key is missing, as Apple's calls answer)

    /// The boolean for `key`, or false when missing.
    public func decodeBool(forKey key: String) throws -> Bool {
        guard let n = try entry(key) else { return false }
        return try FoundationValues.bool(n, context, keyPath(key))
    }

    /// The integer for `key`, or 0 when missing.
    public func decodeInteger(forKey key: String) throws -> Int { try decodeFixedWidth(Int.self, key) }
    /// The integer for `key`, or 0 when missing.
    public func decodeInt32(forKey key: String) throws -> Int32 { try decodeFixedWidth(Int32.self, key) }
    /// The integer for `key`, or 0 when missing.
    public func decodeInt64(forKey key: String) throws -> Int64 { try decodeFixedWidth(Int64.self, key) }

    private func decodeFixedWidth<I: FixedWidthInteger>(_ type: I.Type, _ key: String) throws -> I {
        guard let n = try entry(key) else { return 0 }
        return try FoundationValues.integer(I.self, n, context, keyPath(key))
    }

    /// The number for `key`, or 0 when missing.
    public func decodeDouble(forKey key: String) throws -> Double {
        guard let n = try entry(key) else { return 0 }
        return try FoundationValues.double(n, context, keyPath(key))
    }

    /// The number for `key`, or 0 when missing.
    public func decodeFloat(forKey key: String) throws -> Float { FloatBits.float(try decodeDouble(forKey: key)) }

    /// The string for `key`, or nil when missing or `$null`.
    public func decodeString(forKey key: String) throws -> String? {
        guard let n = try entry(key), !n.isNull else { return nil }
        try checkSecure(n, allowing: ["NSString"], key)
        return try FoundationValues.string(n, context, keyPath(key))
    }

    /// The bytes for `key` (data stored in place or an NSData), or nil.
    public func decodeBytes(forKey key: String) throws -> [UInt8]? {
        guard let n = try entry(key), !n.isNull else { return nil }
        return [UInt8](try FoundationValues.data(n, context, keyPath(key)))
    }

    // MARK: Objects

    /// Decodes the object for `key` as `type` through the Codable bridge; nil when missing or `$null`.
    /// Decoding is type-directed: only what `type` asks for is read. With ``requiresSecureCoding`` the object's
    /// class must also be the one `type` archives as.
    public func decodeObject<T: Decodable>(of type: T.Type, forKey key: String) throws -> T? {
        guard let n = try entry(key), !n.isNull else { return nil }
        return try context.entryPoint {
            try checkSecure(n, allowing: Set(Self.archivedNames(type)), key)
            return try context.decode(type, node: n, path: keyPath(key))
        }
    }

    /// Decodes the ``ArchiveCoding`` object for `key`; nil when missing or `$null`. With
    /// ``requiresSecureCoding`` the object's class must be `type`'s.
    public func decodeObject<T: ArchiveCoding>(of type: T.Type, forKey key: String) throws -> T? {
        guard let n = try entry(key), !n.isNull else { return nil }
        let name = ArchiveNaming.archiveClass(for: type).name
        try checkSecure(n, allowing: [name], key)
        let decoded = try context.entryPoint { try context.decodeCoding(type, node: n, path: keyPath(key)) }
        guard let object = decoded as? T else {
            throw DecodingError.archiveTypeMismatch(T.self, at: keyPath(key), found: "\(Swift.type(of: decoded))")
        }
        return object
    }

    /// Decodes the object for `key` into the Swift value its class maps to (see ``UnknownClassPolicy``).
    /// Refused with ``requiresSecureCoding``: name the classes with ``decodeObject(ofClasses:forKey:)``.
    ///
    /// A list, set or dictionary that several entries refer to decodes once, as Apple's unarchiver makes one
    /// object of it: every reference, in this call or a later one, gets that value. (A typed decode, which may read
    /// one entry as two types, decodes a copy for each reference within its expansion budget.)
    public func decodeObject(forKey key: String) throws -> Any? {
        guard let n = try entry(key) else { return nil }
        if requiresSecureCoding {
            throw DecodingError.archiveCorrupted(
                "secure decoding: decodeObject(forKey: \"\(key)\") names no allowed classes", at: keyPath(key))
        }
        return try context.entryPoint { try context.decodeAny(n, path: keyPath(key)) }
    }

    /// Decodes the object for `key`; it and every object inside it must be of one of `classes` (checked on
    /// every reference, including objects already decoded through another key).
    /// Classes listed that code themselves (`@AutoCoding` and ``ArchiveCoding`` classes, `Decodable` types
    /// named by ``ArchiveCodable``) decode as themselves, without a separate registration.
    public func decodeObject(ofClasses classes: [Any.Type], forKey key: String) throws -> Any? {
        let saved = context.classes
        defer { context.classes = saved }
        for type in classes {
            guard let decodable = type as? any Decodable.Type,
                type is any AutoCodingObject.Type || type is any ArchiveCoding.Type || type is any ArchiveCodable.Type
            else { continue }
            let name = context.archiveName(of: type)
            if context.classes[name] == nil, context.codingClasses[name] == nil { context.classes[name] = decodable }
        }
        return try decodeObject(ofClassNames: Set(classes.flatMap { Self.archivedNames($0) + [context.archiveName(of: $0)] }),
                                forKey: key)
    }

    /// Decodes the object for `key`; it and every object inside it must be of one of the archived class names.
    public func decodeObject(ofClassNames names: Set<String>, forKey key: String) throws -> Any? {
        guard let n = try entry(key) else { return nil }
        let saved = context.allowedClassNames
        context.allowedClassNames = names
        defer { context.allowedClassNames = saved }
        return try context.entryPoint { try context.decodeAny(n, path: keyPath(key)) }
    }

    private func checkSecure(_ node: DecodingContext.Node, allowing names: Set<String>, _ key: String) throws {
        guard requiresSecureCoding || context.allowedClassNames != nil else { return }
        let saved = context.allowedClassNames
        context.allowedClassNames = names.union(saved ?? [])
        defer { context.allowedClassNames = saved }
        try context.checkAllowed(node, path: keyPath(key))
    }

    /// The archived class names a Swift type stands for in an allowed-classes list.
    static func archivedNames(_ type: Any.Type) -> [String] {
        switch type {
        case is String.Type: return ["NSString", "NSMutableString"]
        case is Bool.Type, is Int.Type, is Int64.Type, is Int32.Type, is Int16.Type, is Int8.Type, is UInt.Type,
            is UInt64.Type, is UInt32.Type, is UInt16.Type, is UInt8.Type, is Double.Type, is Float.Type:
            return ["NSNumber"]
        case is Data.Type: return ["NSData", "NSMutableData"]
        case is Date.Type: return ["NSDate"]
        case is URL.Type: return ["NSURL"]
        case is UUID.Type: return ["NSUUID"]
        case is Decimal.Type: return ["NSDecimalNumber", "NSDecimalNumberPlaceholder"]
        case is NSNull.Type: return ["NSNull"]
        case is any _ArchiveListDecodable.Type: return ["NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet"]
        case is any _ArchiveDictionaryDecodable.Type: return ["NSDictionary", "NSMutableDictionary"]
        default: return [ArchiveNaming.archiveClass(for: type).name]
        }
    }
}
