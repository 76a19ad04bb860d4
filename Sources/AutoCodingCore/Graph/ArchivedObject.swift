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
    ///
    /// The values are taken out of their storage rather than copied, so an object whose fields hold no object
    /// released here (the usual case: a graph releases its objects one by one) allocates nothing.
    deinit {
        // The objects released last, and those of a graph whose cycles were broken, have no fields left.
        if fields.isEmpty { return }
        var current = fields.values.elements
        fields = [:]
        // Values still to release, one array per object or container reached, so that a chain costs heap, not
        // stack.
        var waiting: [[ArchivedValue]] = []
        while true {
            while var value = current.popLast() {
                if var object = value.object {
                    // `value` holds the object too. Drop it before asking whether this is the last reference
                    // (outside a `switch`, whose subject would be a copy keeping it alive), else the object's
                    // release, and its deinit, would run inside this one.
                    value = .null
                    guard isKnownUniquelyReferenced(&object) else { continue }
                    waiting.append(current)
                    current = object.fields.values.elements
                    object.fields = [:]
                    continue
                }
                switch value {
                case .array(let elements):
                    waiting.append(current)
                    current = elements
                case .dictionary(let entries):
                    waiting.append(current)
                    current = entries.values.elements
                default:
                    continue
                }
            }
            guard let next = waiting.popLast() else { return }
            current = next
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
///
/// Not `indirect`: its arrays and dictionaries already keep their elements on the heap, and a box per value
/// was an allocation per field of every object read.
public enum ArchivedValue {
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
