import AutoCodingFast

/// Class names, read once per class descriptor, and class checks (NSSecureCoding's "of class"): whether an
/// archived object may be decoded as the type asked for, and which class to instantiate, decided once per class
/// descriptor and type; and secure decoding's check that every entry is of an allowed class.
extension DecodingContext {
    /// The class name of the instance at `node`, or nil when it is not an instance.
    func className(of node: Node) throws -> String? {
        guard !node.isNull, let classRef = classField(of: node) else { return nil }
        let descriptor = try resolve(classRef)
        if let name = classNames[descriptor.object] { return name }
        guard let nameObject = field(ArchiveKey.className, of: descriptor) else { return nil }
        let nameRecord = try record(nameObject)
        guard nameRecord.kind == .asciiString || nameRecord.kind == .utf16String else { return nil }
        let name = table.string(nameRecord)
        classNames[descriptor.object] = name
        return name
    }

    /// Whether the object at `node` is an `NSNull` instance (damage found on the way reads as "no").
    func isNSNull(_ node: Node) -> Bool { (try? className(of: node)) == "NSNull" }

    /// A short description of what is at `node`, for type-mismatch messages.
    func describe(_ node: Node) -> String {
        if node.isNull { return "$null" }
        if let name = try? className(of: node) { return "an instance of \(name)" }
        return "a \(kind(node))"
    }

    /// Checks that the object at `node` was archived as `expected` (by its name, a name registered for it, or a
    /// class chain that contains it), or as a class registered (or found by its module-qualified name) that is a
    /// subclass of it, and returns the class to instantiate. Anything else is a `DecodingError.typeMismatch`
    /// naming the path, the class found and the class expected. Decided once per class descriptor and type.
    func checkedClass(_ expected: AnyClass, node: Node, path: CodingPathNode) throws -> AnyClass {
        guard let classRef = classField(of: node) else {
            throw DecodingError.archiveTypeMismatch(expected, at: path, found: "\(describe(node)) without a class")
        }
        let descriptor = try resolve(classRef).object
        let id = ObjectIdentifier(expected)
        for check in recentClassChecks where check.descriptor == descriptor && check.expected == id {
            return check.result
        }
        if !classChecks.isEmpty, let known = classChecks[descriptor], known.expected == id { return known.result }
        let result: AnyClass = try computeClass(expected, node: node, path: path)
        let check = ClassCheck(descriptor: descriptor, expected: id, result: result)
        if recentClassChecks.count < 8 { recentClassChecks.append(check) } else { classChecks[descriptor] = check }
        return check.result
    }

    private func computeClass(_ expected: AnyClass, node: Node, path: CodingPathNode) throws -> AnyClass {
        guard let name = try className(of: node) else {
            throw DecodingError.archiveTypeMismatch(expected, at: path, found: "\(describe(node)) without a class name")
        }
        let chain: [String]
        do { chain = try table.classChain(ofInstance: node.object) } catch { throw Self.corrupted(error) }
        func found() -> String {
            chain.count > 1 ? "an instance of \(name) (class chain \(chain.joined(separator: ", ")))" : "an instance of \(name)"
        }
        // A class registered for the name (setClass(_:forClassName:), the registry) is a substitute: it must be
        // `expected` or a subclass of it.
        if let registered = (codingClasses[name] as Any.Type?) ?? classes[name] {
            guard let registeredClass = registered as? AnyClass, Self.isClass(registeredClass, kindOf: expected) else {
                throw DecodingError.archiveTypeMismatch(
                    expected, at: path, found: "\(found()), registered as \(registered), which is not a \(expected)")
            }
            return registeredClass
        }
        let own = ArchiveNaming.archiveClass(for: expected).name
        let names = [own, registry.className(for: expected)].compactMap { $0 }
        if names.contains(name) { return expected }
        // An archived subclass that is not registered decodes as `expected`: the archive's chain says it is one.
        if chain.contains(where: names.contains) { return expected }
        throw DecodingError.archiveTypeMismatch(
            expected, at: path, found: "\(found()), which is not a kind of \(names.joined(separator: " or "))")
    }

    /// The class name `type` is archived under: the registry's name for it, else its own.
    func archiveName(of type: Any.Type) -> String {
        registry.className(for: type) ?? ArchiveNaming.archiveClass(for: type).name
    }

    /// Whether `type` is `base` or one of its subclasses.
    static func isClass(_ type: AnyClass, kindOf base: AnyClass) -> Bool {
        var current: AnyClass? = type
        while let c = current {
            if ObjectIdentifier(c) == ObjectIdentifier(base) { return true }
            current = _getSuperclass(c)
        }
        return false
    }

    /// The class names an entry counts as for secure decoding: its class chain, or the Foundation class of a
    /// plain entry (`NSString`, `NSNumber`, `NSData`, `NSDate`).
    func archivedClassNames(of node: Node) throws -> [String] {
        if node.isNull { return [] }
        switch kind(node) {
        case .asciiString, .utf16String: return ["NSString"]
        case .integer, .real, .trueValue, .falseValue: return ["NSNumber"]
        case .data: return ["NSData"]
        case .date: return ["NSDate"]
        case .array: return ["NSArray"]
        case .dictionary:
            guard let name = try className(of: node) else { return ["NSDictionary"] }
            if node.uid != nil {
                let chain: [String]
                do { chain = try table.classChain(ofInstance: node.object) } catch { throw Self.corrupted(error) }
                if !chain.isEmpty { return chain }
            }
            return [name]
        default: return []
        }
    }

    /// Secure decoding: the entry at `node` must be of an allowed class. Runs on every reference, including
    /// objects already decoded through another key, and on scalars stored in place.
    func checkAllowed(_ node: Node, path: CodingPathNode) throws {
        guard let allowed = allowedClassNames, !node.isNull else { return }
        let names = try archivedClassNames(of: node)
        guard !names.contains(where: allowed.contains) else { return }
        throw DecodingError.archiveCorrupted(
            "secure decoding: found \(names.first ?? "an unknown entry") where only \(allowed.sorted().joined(separator: ", ")) "
                + "\(allowed.count == 1 ? "is" : "are") allowed",
            at: path)
    }
}
