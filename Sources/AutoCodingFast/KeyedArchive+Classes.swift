/// A class as a keyed archive names it: the class name and its chain of superclasses.
public struct ArchiveClass: Hashable, Sendable, CustomStringConvertible {
    /// The `$classname`, such as `NSMutableArray` or `App.Person`.
    public var name: String
    /// The `$classes` chain, most derived first (`["NSMutableArray", "NSArray", "NSObject"]`). Empty when the
    /// archive omits it, as Apple does for some Swift classes.
    public var chain: [String]

    /// Creates a class description.
    public init(name: String, chain: [String] = []) {
        self.name = name
        self.chain = chain
    }

    /// The name.
    public var description: String { name }

    /// The class descriptor dictionary as archives store it.
    public var descriptor: ArchiveValue {
        var entries: [(String, ArchiveValue)] = [(ArchiveKey.className, .string(name))]
        if !chain.isEmpty { entries.append((ArchiveKey.classes, .array(chain.map { .string($0) }))) }
        return .dictionary(.init(uniqueKeysWithValues: entries))
    }

    /// Reads a class descriptor, or returns nil when `value` is not one.
    public init?(descriptor value: ArchiveValue) {
        guard case .string(let name)? = value[ArchiveKey.className] else { return nil }
        self.name = name
        switch value[ArchiveKey.classes] {
        case .array(let names)?: chain = names.compactMap(\.stringValue)
        default: chain = []
        }
    }
}

extension KeyedArchive {
    /// The class of the object at `uid`, or nil when it is not a class instance (a string, a number, `$null` ...).
    public func archiveClass(of uid: ArchiveUID) -> ArchiveClass? {
        guard case .uid(let classUID)? = self[uid]?[ArchiveKey.class], let descriptor = self[classUID] else {
            return nil
        }
        return ArchiveClass(descriptor: descriptor)
    }

    /// Whether the object at `uid` is a class descriptor rather than an instance or a value.
    public func isClassDescriptor(_ uid: ArchiveUID) -> Bool {
        self[uid]?[ArchiveKey.className] != nil
    }
}
