import AutoCodingFast
import Foundation

/// Decoding without a static type: for ``KeyedUnarchiver/decodeObject(forKey:)`` and secure decoding of
/// class lists.
extension DecodingContext {
    /// Decodes what is at `node` into the Swift value its class maps to: `String`, `Int`/`Double`/`Bool`,
    /// `Data`, `Date`, `URL`, `UUID`, `[Any]`, `[AnyHashable: Any]`, `NSNull`, a registered ``ArchiveCoding``
    /// or `Decodable` type, or (for other classes, by ``unknownClassPolicy``) an ``ArchivedObject``.
    func decodeAny(_ node: Node, path: CodingPathNode) throws -> Any? {
        if node.isNull { return nil }
        if allowedClassNames != nil { try checkAllowed(node, path: path) }
        let record = record(of: node)
        switch record.kind {
        case .asciiString, .utf16String: return string(record, object: node.object)
        case .trueValue: return true
        case .falseValue: return false
        case .integer:
            switch table.integer(record) {
            case .integer(let v): return Int(exactly: v) ?? v
            case .unsignedInteger(let v): return v
            default: return nil
            }
        case .real: return table.double(record)
        case .data: return try FoundationValues.data(node, self, path)
        case .date: return try FoundationValues.date(node, self, path)
        case .array:
            return try nested(path) {
                try listElements(node, path: path).enumerated().map { i, element in
                    try decodeAny(resolve(element), path: path.appending(index: i)) as Any
                }
            }
        case .dictionary:
            return try decodeInstanceAny(node, path: path)
        default:
            throw DecodingError.archiveCorrupted("unexpected \(record.kind) entry", at: path)
        }
    }

    private func decodeInstanceAny(_ node: Node, path: CodingPathNode) throws -> Any? {
        guard let name = try className(of: node) else {
            throw DecodingError.archiveCorrupted("a dictionary entry without $class", at: path)
        }
        if let uid = node.uid, let existing = instances[uid] { return existing }
        if let codingType = codingClasses[name] { return try decodeCoding(codingType, node: node, path: path) }
        if let type = classes[name] ?? registry.type(forClassName: name) {
            return try decode(type, node: node, path: path)
        }
        switch name {
        case "NSString", "NSMutableString": return try FoundationValues.string(node, self, path)
        case "NSData", "NSMutableData": return try FoundationValues.data(node, self, path)
        case "NSDate": return try FoundationValues.date(node, self, path)
        case "NSURL": return try FoundationValues.url(node, self, path)
        case "NSUUID": return try FoundationValues.uuid(node, self, path)
        case "NSNull": return NSNull()
        case _ where DecimalCoding.classNames.contains(name): return try FoundationValues.decimal(node, self, path)
        case "NSValue":
            if let value = try FoundationValues.nsValue(node, self, path) { return value }
            return try keepUnknown(name, node: node, path: path)
        case "_NSKeyedCoderOldStyleArray":
            return try oldStyleArray(node, path: path)
        case "NSAttributedString", "NSMutableAttributedString":
            return try nested(path) { try attributedString(node, mutable: name == "NSMutableAttributedString", path: path) }
        case _ where FoundationClass.listNames.contains(name):
            return try sharedContainer(node) {
                try nested(path) {
                    try listElements(node, path: path).enumerated().map { i, element in
                        try decodeAny(resolve(element), path: path.appending(index: i)) as Any
                    }
                }
            }
        case _ where FoundationClass.dictionaryNames.contains(name):
            return try sharedContainer(node) { try nested(path) { try decodeDictionaryAny(node, path: path) } }
        default:
            return try keepUnknown(name, node: node, path: path)
        }
    }

    /// An object of a class with no Swift mapping, by ``unknownClassPolicy``.
    private func keepUnknown(_ name: String, node: Node, path: CodingPathNode) throws -> ArchivedObject {
        switch unknownClassPolicy {
        case .fail:
            throw DecodingError.archiveCorrupted("no Swift type is registered for the class \(name)", at: path)
        case .keepAsArchivedObject:
            guard let uid = node.uid, let object = try resolver(at: path).resolve(ArchiveUID(uid)).object else {
                throw DecodingError.archiveCorrupted("cannot keep the \(name) object stored in place", at: path)
            }
            graphValuesHandedOut.append(.object(object))
            return object
        }
    }

    /// A C array inside an `NSValue`: `NS.count` values under `$0`, `$1` …
    private func oldStyleArray(_ node: Node, path: CodingPathNode) throws -> [Any] {
        let count = try field("NS.count", of: node).map { try FoundationValues.integer(Int.self, resolve($0), self, path) } ?? 0
        var values: [Any] = []
        // Stop at the first missing key: a lying NS.count cannot make this loop long.
        while values.count < count, let element = field("$\(values.count)", of: node) {
            values.append(try decodeAny(resolve(element), path: path.appending(index: values.count)) as Any)
        }
        guard values.count == count else {
            throw DecodingError.archiveCorrupted("_NSKeyedCoderOldStyleArray has \(values.count) of \(count) values", at: path)
        }
        return values
    }

    /// `NSString`, `NSAttributes` (one dictionary, or a list of them) and `NSAttributeInfo` (the run table).
    private func attributedString(_ node: Node, mutable: Bool, path: CodingPathNode) throws -> ArchiveAttributedString {
        guard let stringRef = field("NSString", of: node) else {
            throw DecodingError.archiveCorrupted("NSAttributedString without NSString", at: path)
        }
        let string = try FoundationValues.string(resolve(stringRef), self, path)
        let length = string.utf16.count
        var dictionaries: [[String: Any]] = []
        if let attributesRef = field("NSAttributes", of: node) {
            let attributes = try decodeAny(resolve(attributesRef), path: path.appending(ArchiveCodingKey("NSAttributes")))
            let list = (attributes as? [Any]) ?? [attributes as Any]
            for entry in list {
                guard let dictionary = entry as? [AnyHashable: Any] else {
                    throw DecodingError.archiveCorrupted("NSAttributes holds something other than dictionaries", at: path)
                }
                var attributes: [String: Any] = [:]
                for (key, value) in dictionary { attributes["\(key)"] = value }
                dictionaries.append(attributes)
            }
        }
        var runs: [ArchiveAttributedString.Run] = []
        if let infoRef = field("NSAttributeInfo", of: node) {
            let info = [UInt8](try FoundationValues.data(resolve(infoRef), self, path))
            guard let table = AttributeInfo.decode(info) else {
                throw DecodingError.archiveCorrupted("NSAttributeInfo is not a run table", at: path)
            }
            var start = 0
            for (runLength, index) in table {
                guard index < dictionaries.count, runLength <= length - start else {
                    throw DecodingError.archiveCorrupted("NSAttributeInfo names a run outside the text or attributes", at: path)
                }
                runs.append(.init(range: start..<start + runLength, attributes: dictionaries[index]))
                start += runLength
            }
        } else if let only = dictionaries.first {
            runs = [.init(range: 0..<length, attributes: only)]
        }
        return ArchiveAttributedString(string: string, runs: runs, isMutable: mutable)
    }

    private func decodeDictionaryAny(_ node: Node, path: CodingPathNode) throws -> [AnyHashable: Any] {
        guard let keysRef = field(FoundationKey.keys, of: node), let objectsRef = field(FoundationKey.objects, of: node)
        else { throw DecodingError.archiveCorrupted("NSDictionary without NS.keys and NS.objects", at: path) }
        let keys = try listElements(resolve(keysRef), path: path)
        let objects = try listElements(resolve(objectsRef), path: path)
        guard keys.count == objects.count else {
            throw DecodingError.archiveCorrupted(
                "NS.keys has \(keys.count) entries but NS.objects has \(objects.count)", at: path)
        }
        var result: [AnyHashable: Any] = [:]
        for (i, (key, object)) in zip(keys, objects).enumerated() {
            let keyPath = path.appending(index: i)
            guard let k = try decodeAny(resolve(key), path: keyPath) as? AnyHashable else {
                throw DecodingError.archiveCorrupted("a dictionary key is not hashable", at: keyPath)
            }
            guard result[k] == nil else { throw DecodingError.duplicateDictionaryKey(k, at: keyPath) }
            result[k] = try decodeAny(resolve(object), path: keyPath)
        }
        return result
    }

    /// Decodes an ``ArchiveCoding`` object once per UID, then applies its `awakeAfter(using:)` substitution.
    /// A ``TwoPhaseArchiveCoding`` object registers itself between its two phases (``beginFilling(_:)``), so a
    /// reference back to it finds it in ``instances`` before the cycle check.
    func decodeCoding<T: ArchiveCoding>(_ type: T.Type, node: Node, path: CodingPathNode) throws -> Any {
        if let uid = node.uid {
            if let existing = instances[uid] { return existing }
            if let start = inProgress.firstIndex(where: { $0.uid == uid }) {
                let cycle = inProgress[start...].map { "\($0.type) (UID \($0.uid))" } + ["\(T.self) (UID \(uid))"]
                throw DecodingError.archiveCorrupted(
                    "reference cycle \(cycle.joined(separator: " → ")) cannot be decoded through init(coder:), which "
                        + "hands out the object only when it returns; make a class on the cycle TwoPhaseArchiveCoding "
                        + "(init(), then decode(with:))", at: path)
            }
            inProgress.append((uid, T.self))
        }
        defer { if node.uid != nil { inProgress.removeLast() } }
        let coder = KeyedUnarchiver(context: self, node: node, path: path)
        let concrete: AnyClass = try checkedClass(T.self, node: node, path: path)
        let object: any ArchiveCoding
        do {
            if ObjectIdentifier(concrete) == ObjectIdentifier(T.self) {
                object = try nested(path) { try T(coder: coder) }
            } else {
                guard let codingType = concrete as? any ArchiveCoding.Type else {
                    throw DecodingError.archiveTypeMismatch(
                        T.self, at: path, found: "\(concrete), not an ArchiveCoding class")
                }
                object = try nested(path) { try codingType.init(coder: coder) }
            }
        } catch {
            // A two-phase object that failed to fill is not handed to later references (a caller may go on).
            if let uid = node.uid { instances[uid] = nil }
            throw error
        }
        let result = try object.awakeAfter(using: coder)
        if let uid = node.uid { remember(result as AnyObject, as: uid) }
        return result
    }
}

/// The lists, sets and dictionaries ``DecodingContext/decodeAny(_:path:)`` decoded, by UID: a shared `NSArray` is
/// one object to Apple's unarchiver, and here one value, decoded once however many entries refer to it. (Typed
/// decodes do not share them: one entry may be read as two types.) What a call of a public entry point added is
/// forgotten when the call throws, as its instances are (``DecodingContext/entryPoint(_:)``).
struct SharedContainers {
    private var values: [UInt32: Any] = [:]
    private var addedInCall: [UInt32] = []

    mutating func startCall() { addedInCall.removeAll(keepingCapacity: true) }

    mutating func forgetCall() {
        for uid in addedInCall { values[uid] = nil }
    }

    subscript(uid: UInt32) -> Any? { values[uid] }

    mutating func add(_ value: Any, for uid: UInt32, inCall: Bool) {
        values[uid] = value
        if inCall { addedInCall.append(uid) }
    }
}

extension DecodingContext {
    /// The container instance at `node` as ``decodeAny(_:path:)`` decodes it: the value decoded for its UID
    /// before, else `decode()`'s, remembered. Not while secure decoding checks classes: the classes allowed change
    /// from call to call, and each reference is checked with its call's.
    func sharedContainer(_ node: Node, _ decode: () throws -> Any) throws -> Any {
        guard allowedClassNames == nil, let uid = node.uid else { return try decode() }
        if let shared = sharedContainers[uid] { return shared }
        let value = try decode()
        sharedContainers.add(value, for: uid, inCall: inEntryPoint)
        return value
    }
}
