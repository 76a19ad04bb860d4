import AutoCodingFast
import OrderedCollections

/// A class instance from a keyed archive: its class (name and chain) and its keyed fields.
///
/// Objects are reference types, so an object referenced from two places is one instance, and cycles are
/// cycles. Any class decodes to one, including classes this package has never heard of; re-encoding gives
/// an equivalent archive.
public final class ArchivedObject {
    /// The class name and chain, as archived.
    public var archiveClass: ArchiveClass
    /// The fields in archive order, keyed exactly as stored (`NS.objects`, `$0`, `name` ...).
    ///
    /// Not `$class`: in an archive that key holds the instance's class reference, so the writer puts the class
    /// there and such a field does not survive encoding (every reader, the graph JSON one included, refuses or
    /// never makes one).
    public var fields: OrderedDictionary<String, ArchivedValue>
    /// The typed model decoded from the same archive entry, when this object was read through an
    /// ``ArchivedValue`` property of a model: encoding writes the model in this object's place, so that the two
    /// stay one object. Weak: the model is owned by whoever decoded it.
    weak var counterpart: AnyObject?

    /// Creates an object of `archiveClass` with `fields`.
    public init(archiveClass: ArchiveClass, fields: OrderedDictionary<String, ArchivedValue> = [:]) {
        self.archiveClass = archiveClass
        self.fields = fields
    }

    /// Creates an object of the named class with `fields`.
    public convenience init(className: String, chain: [String] = [], fields: OrderedDictionary<String, ArchivedValue> = [:]) {
        self.init(archiveClass: ArchiveClass(name: className, chain: chain), fields: fields)
    }

    /// Releases the fields without recursion: the default release of a long chain of objects would recurse
    /// once per link and overflow the stack (a decoded archive can be a million objects long).
    deinit {
        var pending = Array(fields.values)
        fields = [:]
        while var value = pending.popLast() {
            if var object = value.object {
                // The enum is indirect: its box holds the object too. Drop the box before asking whether this is
                // the last reference (outside a `switch`, whose subject would be a copy keeping the box alive),
                // else the object's release, and its deinit, would run inside this one.
                value = .null
                guard isKnownUniquelyReferenced(&object) else { continue }
                pending.append(contentsOf: object.fields.values)
                object.fields = [:]
                continue
            }
            switch value {
            case .array(let elements): pending.append(contentsOf: elements)
            case .dictionary(let entries): pending.append(contentsOf: entries.values)
            default: break
            }
        }
    }

    /// The class name.
    public var className: String { archiveClass.name }

    /// The field stored under `key`.
    public subscript(key: String) -> ArchivedValue? {
        get { fields[key] }
        set { fields[key] = newValue }
    }
}

extension ArchivedObject: CustomStringConvertible {
    /// The class name and the field names, without following references (cycles are safe).
    public var description: String { "<\(className) \(fields.keys.joined(separator: ", "))>" }
}

/// A value in an archived object graph.
///
/// Scalars keep whether they were stored in place (``inline(_:)``, as `encodeInteger:forKey:` writes them) or
/// as their own `$objects` entry referenced by UID (``reference(_:)``, as `encodeObject:forKey:` writes an
/// NSString or NSNumber), so a re-encoded archive has the same shape as the original.
public indirect enum ArchivedValue {
    /// UID 0: `nil`.
    case null
    /// A class instance.
    case object(ArchivedObject)
    /// A scalar `$objects` entry (string, number, data, date) referenced by UID.
    case reference(ArchiveValue)
    /// A scalar stored in place.
    case inline(ArchiveValue)
    /// An array stored in place, such as `NS.objects`; its elements are usually references.
    case array([ArchivedValue])
    /// A dictionary stored in place.
    case dictionary(OrderedDictionary<String, ArchivedValue>)
}

extension ArchivedValue {
    /// The scalar, whether stored in place or referenced.
    public var scalar: ArchiveValue? {
        switch self {
        case .reference(let v), .inline(let v): v
        default: nil
        }
    }

    /// The object, if this is an instance.
    public var object: ArchivedObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The string, if this is a string.
    public var string: String? { scalar?.stringValue }

    /// The integer, if this is an integer that fits `Int`.
    public var int: Int? { scalar?.int64Value.flatMap { Int(exactly: $0) } }

    /// The number as a `Double`, if this is an integer or a real.
    public var double: Double? {
        switch scalar {
        case .real(let d)?: d
        case .integer(let i)?: Double(i)
        case .unsignedInteger(let u)?: Double(u)
        default: nil
        }
    }

    /// The boolean, if this is a boolean.
    public var bool: Bool? {
        if case .bool(let b)? = scalar { return b }
        return nil
    }

    /// The bytes, if this is data.
    public var bytes: [UInt8]? {
        if case .data(let d)? = scalar { return d }
        return nil
    }

    /// The elements, if this is an in-place array.
    public var elements: [ArchivedValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// Whether this is `nil` (UID 0).
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}
