import OrderedCollections

extension KeyedArchive {
    /// Reads a keyed archive from a binary or XML property list in untrusted bytes.
    ///
    /// Throws ``ArchiveError/Code-swift.struct/notKeyedArchive`` when the bytes are a valid property list that
    /// is not a keyed archive, and another code naming the offset, object or UID at fault otherwise.
    public init(bytes: [UInt8], options: ArchiveReadingOptions = .init()) throws(ArchiveError) {
        try self.init(propertyList: ArchiveValue(propertyList: bytes, options: options), options: options)
    }

    /// Validates a property-list value as a keyed archive and takes its parts.
    public init(propertyList value: ArchiveValue, options: ArchiveReadingOptions = .init()) throws(ArchiveError) {
        guard case .dictionary(let root) = value else {
            throw ArchiveError(.notKeyedArchive, "the property list's root is a \(value.typeName), not a dictionary")
        }
        guard root[ArchiveKey.objects] != nil || root[ArchiveKey.archiver] != nil || root[ArchiveKey.top] != nil
        else {
            throw ArchiveError(.notKeyedArchive, "the root dictionary has none of $archiver, $objects and $top")
        }
        guard case .string(let archiver)? = root[ArchiveKey.archiver] else {
            throw Self.missingOrWrongType(ArchiveKey.archiver, root, expected: "string")
        }
        guard case .integer(let version)? = root[ArchiveKey.version] else {
            throw Self.missingOrWrongType(ArchiveKey.version, root, expected: "integer")
        }
        if options.requiresKnownVersion && version != Int64(ArchiveKey.formatVersion) {
            throw ArchiveError(.unsupportedVersion, "$version is \(version), not \(ArchiveKey.formatVersion)")
        }
        guard case .array(let objects)? = root[ArchiveKey.objects] else {
            throw Self.missingOrWrongType(ArchiveKey.objects, root, expected: "array")
        }
        guard case .dictionary(let topValues)? = root[ArchiveKey.top] else {
            throw Self.missingOrWrongType(ArchiveKey.top, root, expected: "dictionary")
        }
        self.init(archiver: archiver, version: Int(version), top: topValues, objects: objects)
        try validate()
    }

    /// Checks what a decoder relies on: every UID inside the objects below the object count, and every
    /// instance's `$class` naming a class descriptor.
    public func validate() throws(ArchiveError) {
        for (key, entry) in top {
            if case .uid(let uid) = entry, uid.index >= objects.count {
                throw ArchiveError(.invalidUID, "$top[\"\(key)\"] is UID \(uid.rawValue) ≥ object count \(objects.count)")
            }
            if case .array = entry { throw ArchiveError.unexpectedType("$top[\"\(key)\"] is an array, not a UID or scalar") }
            if case .dictionary = entry {
                throw ArchiveError.unexpectedType("$top[\"\(key)\"] is a dictionary, not a UID or scalar")
            }
        }
        try validateObjects()
    }

    private func validateObjects() throws(ArchiveError) {
        let count = objects.count
        for (index, object) in objects.enumerated() {
            try Self.checkUIDs(in: object, object: index, count: count)
            guard case .dictionary(let fields) = object else { continue }
            if let name = fields[ArchiveKey.className] {
                guard case .string = name else {
                    throw ArchiveError.unexpectedType("object \(index): $classname is a \(name.typeName), not a string")
                }
                if let chain = fields[ArchiveKey.classes] {
                    guard case .array(let names) = chain, names.allSatisfy({ $0.stringValue != nil }) else {
                        throw ArchiveError.unexpectedType("object \(index): $classes is not an array of strings")
                    }
                }
                continue
            }
            guard let classRef = fields[ArchiveKey.class] else {
                throw ArchiveError.missingKey(ArchiveKey.class, in: "object \(index) (UID \(index))")
            }
            guard case .uid(let classUID) = classRef else {
                throw ArchiveError.unexpectedType(
                    "object \(index) (UID \(index)): $class is a \(classRef.typeName), not a UID")
            }
            guard case .dictionary(let descriptor) = objects[classUID.index],
                case .string? = descriptor[ArchiveKey.className]
            else {
                throw ArchiveError(
                    .unexpectedType,
                    "object \(index) (UID \(index)): $class UID \(classUID.rawValue) is not a class descriptor with a $classname")
            }
        }
    }

    /// Every UID nested in `value` must be below `count`. The walk keeps its own stack: a table built by a
    /// caller (or from JSON) may nest deeper than any reader would accept.
    private static func checkUIDs(in value: ArchiveValue, object: Int, count: Int) throws(ArchiveError) {
        func check(_ node: ArchiveValue) throws(ArchiveError) {
            if case .uid(let uid) = node, uid.index >= count {
                throw ArchiveError(.invalidUID, "object \(object) holds UID \(uid.rawValue) ≥ object count \(count)")
            }
        }
        // An instance's fields are nearly always scalars and UIDs: check them in place, and walk (with a
        // stack) only the containers among them.
        guard case .dictionary(let fields) = value else { return try value.forEachNode(check) }
        for field in fields.values {
            if field.isContainer { try field.forEachNode(check) } else { try check(field) }
        }
    }

    private static func missingOrWrongType(
        _ key: String, _ root: OrderedDictionary<String, ArchiveValue>, expected: String
    ) -> ArchiveError {
        guard let found = root[key] else { return ArchiveError.missingKey(key, in: "the archive") }
        return ArchiveError.unexpectedType("\(key) is a \(found.typeName), not a \(expected)")
    }
}
