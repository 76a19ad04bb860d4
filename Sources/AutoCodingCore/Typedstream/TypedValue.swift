import AutoCodingFast

/// A class of a typedstream class chain: its name and the version its archiver wrote.
public struct TypedClass: Hashable, Sendable {
    /// The class name, such as `NSMutableString` or NeXT's `List`.
    public var name: String
    /// The class version (`+[NSObject version]` at archiving time).
    public var version: Int64

    /// Creates a class entry.
    public init(_ name: String, version: Int64) {
        self.name = name
        self.version = version
    }
}

/// A group of values written by one `encodeValuesOfObjCTypes:` call (or one `encodeObject:` for `@`),
/// with the type encoding that describes them. The group is a collection of its values.
public struct TypedGroup {
    /// The type-encoding string of the group, such as `@`, `iI` or `{_NSRange=II}`.
    public var encoding: String
    // The values. Most groups hold one (an object, an integer; three groups in four of the typedstream corpus): it
    // is stored in place, without an array of its own. Those arrays were the largest share of what a graph read
    // from a stream allocated (25,000 of 65,000 allocations for the corpus).
    // `@usableFromInline`, as the collection's members are `@inlinable`: iterating a group from another module
    // then makes no call per value (400,000 groups in 11.8 ms instead of 18.6; their arrays took 5.9 ms before).
    @usableFromInline var storage: Storage

    @usableFromInline enum Storage {
        case one(TypedValue)
        case many([TypedValue])
    }

    /// Creates a group.
    public init(encoding: String, values: [TypedValue]) {
        self.encoding = encoding
        storage = values.count == 1 ? .one(values[0]) : .many(values)
    }

    /// Creates a group of one value.
    public init(encoding: String, value: TypedValue) {
        self.encoding = encoding
        storage = .one(value)
    }

    /// One value per top-level type of ``encoding``. A group of one value makes this array when it is read:
    /// iterate or subscript the group itself to read its values without one.
    @inlinable public var values: [TypedValue] {
        get {
            switch storage {
            case .one(let value): [value]
            case .many(let values): values
            }
        }
        set { storage = newValue.count == 1 ? .one(newValue[0]) : .many(newValue) }
    }

    /// Appends the values that may hold objects to `pending`.
    func appendNested(to pending: inout [TypedValue]) {
        switch storage {
        case .one(let value): if value.mayHoldObjects { pending.append(value) }
        case .many(let values): for value in values where value.mayHoldObjects { pending.append(value) }
        }
    }
}

extension TypedGroup: RandomAccessCollection {
    /// The position of the first value: 0.
    @inlinable public var startIndex: Int { 0 }

    /// The number of values.
    @inlinable public var endIndex: Int {
        switch storage {
        case .one: 1
        case .many(let values): values.count
        }
    }

    /// An iterator over the values, without the switch on the storage that reading by index makes per value.
    public struct Iterator: IteratorProtocol {
        @usableFromInline var single: TypedValue?
        @usableFromInline let many: [TypedValue]
        @usableFromInline var position = 0

        @inlinable init(single: TypedValue?, many: [TypedValue]) {
            self.single = single
            self.many = many
        }

        /// The next value, or nil after the last.
        @inlinable public mutating func next() -> TypedValue? {
            if position < many.count {
                position += 1
                return many[position - 1]
            }
            let value = single
            single = nil
            return value
        }
    }

    /// An iterator over the values, in order.
    @inlinable public func makeIterator() -> Iterator {
        switch storage {
        case .one(let value): Iterator(single: value, many: [])
        case .many(let values): Iterator(single: nil, many: values)
        }
    }

    /// The value at `position`.
    @inlinable public subscript(position: Int) -> TypedValue {
        switch storage {
        case .one(let value):
            precondition(position == 0, "Index out of range")
            return value
        case .many(let values): return values[position]
        }
    }
}

/// An object of a typedstream graph, of any class, kept losslessly: its class chain with versions and its
/// groups of typed values in order. Identity is the object's: a shared or cyclic reference in the stream is
/// the same instance here.
public final class TypedObject {
    /// The class chain, most derived first (`NSMutableString`, `NSString`, `NSObject`).
    public var classes: [TypedClass]
    /// The groups of values the object's `encodeWithCoder:` wrote, in order.
    // Checked, although the check costs 2.7 % of a `TypedGraph` build: it is a public property, and without the
    // check a caller's overlapping accesses would be undefined behaviour instead of a trap.
    public var groups: [TypedGroup]

    /// Creates an object.
    public init(classes: [TypedClass], groups: [TypedGroup] = []) {
        self.classes = classes
        self.groups = groups
    }

    /// Releases the groups without recursion, as ``ArchivedObject`` does: a stream of objects each holding a
    /// reference to the one before (8 bytes per object) would otherwise be freed one stack frame per link,
    /// and 20,000 links overflow a thread's stack.
    deinit {
        // Only objects, arrays and structs can hold objects: an object of scalars allocates nothing here, and the
        // objects this one releases last find their groups already taken, as do the objects of a graph whose
        // cycles were broken. Those return at once: taking their empty groups was a third of their deinit.
        if groups.isEmpty { return }
        var pending: [TypedValue] = []
        Self.takeNested(&groups, into: &pending)
        while var value = pending.popLast() {
            if var object = value.object {
                // Drop the value's reference before asking whether this is the last one, else the object's
                // release, and its deinit, would run inside this one.
                value = .nil
                guard isKnownUniquelyReferenced(&object) else { continue }
                Self.takeNested(&object.groups, into: &pending)
                continue
            }
            switch value {
            case .array(let elements, _), .structure(let elements, _):
                for element in elements where element.mayHoldObjects { pending.append(element) }
            default: break
            }
        }
    }

    /// Moves the values of `groups` that may hold objects to `pending`, and empties `groups`.
    private static func takeNested(_ groups: inout [TypedGroup], into pending: inout [TypedValue]) {
        for group in groups { group.appendNested(to: &pending) }
        groups = []
    }

    /// The most derived class name, or an empty string for an object without a class.
    public var className: String { classes.first?.name ?? "" }

    /// The version the chain records for `name`, or nil when the chain has no such class.
    public func version(of name: String) -> Int64? {
        classes.first { $0.name == name }?.version
    }
}

/// A C string of a typedstream graph. Archivers share C strings by address, not content (NeXTSTEP nibs hold
/// two literal empty strings), so a C string has identity: the writer refers back to the same instance and
/// writes another instance with equal bytes literally again.
public final class TypedCString: Sendable {
    /// The bytes, without a terminating zero.
    public let bytes: [UInt8]

    /// Creates a C string.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Creates a C string of UTF-8 text.
    public convenience init(_ text: String) { self.init(Array(text.utf8)) }

    /// The bytes as text (UTF-8, invalid bytes replaced).
    public var text: String { String(decoding: bytes, as: UTF8.self) }
}

/// One value of a typedstream graph, as its type encoding describes it.
public enum TypedValue {
    /// A signed integer read as `c`, `s`, `i`, `l` or `q` (the code is kept for writing back).
    case signed(Int64, type: UInt8)
    /// An unsigned integer read as `C`, `B`, `S`, `I`, `L` or `Q`.
    case unsigned(UInt64, type: UInt8)
    /// A `f` value.
    case float(Float)
    /// A `d` value.
    case double(Double)
    /// A nil object, class, C string or string.
    case `nil`
    /// A `!` value (nothing is stored).
    case ignored
    /// A C string (`*`); the same instance wherever the stream refers to it.
    case cString(TypedCString)
    /// A `%` atom.
    case atom([UInt8]?)
    /// A `:` selector.
    case selector([UInt8]?)
    /// A `+` byte string.
    case string([UInt8])
    /// A `#` class value: its chain, most derived first.
    case `class`([TypedClass])
    /// An object (`@`); the same instance wherever the stream refers to it.
    case object(TypedObject)
    /// An array of `c` or `C`.
    case bytes([UInt8], signed: Bool)
    /// An array of another element type, with its encoding (`[4@]`).
    case array([TypedValue], encoding: String)
    /// A struct, with its encoding (`{_NSPoint=ff}`).
    case structure([TypedValue], encoding: String)

    /// Whether the value is an object, or an array or struct that may contain one.
    var mayHoldObjects: Bool {
        switch self {
        case .object, .array, .structure: true
        default: false
        }
    }

    /// The object, when the value is one.
    public var object: TypedObject? {
        if case .object(let object) = self { return object }
        return nil
    }

    /// The value as a signed integer, when it is an integer of any width that fits.
    public var integer: Int64? {
        switch self {
        case .signed(let v, _): v
        case .unsigned(let v, _): Int64(exactly: v)
        default: nil
        }
    }

    /// The value as a double, when it is a real or an integer.
    public var real: Double? {
        switch self {
        case .float(let v): Double(v)
        case .double(let v): v
        case .signed(let v, _): Double(v)
        case .unsigned(let v, _): Double(v)
        default: nil
        }
    }
}
