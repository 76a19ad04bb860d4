import OrderedCollections

extension KeyedArchive {
    /// Reads a keyed archive from a binary or XML property list in untrusted bytes.
    ///
    /// Throws ``ArchiveError/Code-swift.struct/notKeyedArchive`` when the bytes are a valid property list that
    /// is not a keyed archive, and another code naming the offset, object or UID at fault otherwise.
    public init(bytes: [UInt8], options: ArchiveReadingOptions = .init()) throws(ArchiveError) {
        try self.init(propertyList: ArchiveValue(propertyList: bytes, options: options), options: options)
    }

    /// Validates a property-list value as a keyed archive and takes its parts, with the header rule every
    /// reader applies (`KeyedArchiveHeader`).
    public init(propertyList value: ArchiveValue, options: ArchiveReadingOptions = .init()) throws(ArchiveError) {
        guard case .dictionary(let root) = value else {
            throw KeyedArchiveHeader<ArchiveValue>.rootIsNotADictionary(value.typeName)
        }
        let header = try KeyedArchiveHeader<ArchiveValue>(
            entry: { root[$0] },
            describe: { value in
                switch value {
                case .string(let string): .init(kind: .string, name: value.typeName, string: string)
                case .integer(let integer): .init(kind: .integer, name: value.typeName, integer: integer)
                case .unsignedInteger: .init(kind: .integer, name: value.typeName)
                case .array: .init(kind: .array, name: value.typeName)
                case .dictionary: .init(kind: .dictionary, name: value.typeName)
                default: .init(kind: .other, name: value.typeName)
                }
            },
            options: options)
        guard case .array(let objects) = header.objects, case .dictionary(let topValues) = header.top else {
            throw ArchiveError.unexpectedType("$top or $objects changed type")
        }
        self.init(archiver: header.archiver, version: header.version, top: topValues, objects: objects)
        try validate()
    }

    /// Checks what a decoder relies on: every UID inside the objects below the object count, and every
    /// instance's `$class` naming a class descriptor.
    public func validate() throws(ArchiveError) {
        for (key, entry) in top {
            if case .uid(let uid) = entry, uid.index >= objects.count {
                throw ArchiveError(.invalidUID, "$top[\"\(key)\"] is UID \(uid.rawValue) ≥ object count \(objects.count)")
            }
            if entry.isContainer { throw KeyedArchiveHeader<ArchiveValue>.topEntryIsAContainer(key) }
        }
        try validateObjects()
    }

    private func validateObjects() throws(ArchiveError) {
        let count = objects.count
        for (index, object) in objects.enumerated() {
            try Self.checkUIDs(in: object, object: index, count: count)
            guard case .dictionary(let fields) = object else { continue }
            // The `$class` rule of `RecordSource+Classes.swift`, over values; its errors.
            if let name = fields[ArchiveKey.className] {
                guard case .string = name else { throw ClassDescriptorRule.classNameIsNotAString(uid: index, name.typeName) }
                try Self.checkClassChain(fields, uid: index)
                continue
            }
            guard let classRef = fields[ArchiveKey.class] else { throw ClassDescriptorRule.missingClass(uid: index) }
            guard case .uid(let classUID) = classRef else {
                throw ClassDescriptorRule.classIsNotAUID(uid: index, classRef.typeName)
            }
            // The descriptor's own `$classes` is checked with its entry.
            guard case .dictionary(let descriptor) = objects[classUID.index], case .string? = descriptor[ArchiveKey.className]
            else { throw ClassDescriptorRule.notADescriptor(uid: index, classUID: classUID.index) }
        }
    }

    /// A descriptor's `$classes`, when present, is an array of strings.
    private static func checkClassChain(_ fields: OrderedDictionary<String, ArchiveValue>, uid: Int) throws(ArchiveError) {
        guard let chain = fields[ArchiveKey.classes] else { return }
        guard case .array(let names) = chain, names.allSatisfy({ $0.stringValue != nil }) else {
            throw ClassDescriptorRule.classesAreNotStrings(uid: uid)
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
}
