/// A typedstream (the format of `NSArchiver`, `NXTypedStream` and iMessage's `attributedBody`) as a flat,
/// validated table of events, in stream order.
///
/// The table is the stream's own layer and is lossless: every value carries its type encoding, so any stream
/// decodes without knowing its classes, and ``typedstreamBytes(byteOrder:)`` writes the same events back.
/// Objects, classes and C strings share one table of reference numbers, assigned in the order their
/// ``TypedstreamEvent/beginObject``, ``TypedstreamEvent/classInfo(name:version:)`` and
/// ``TypedstreamEvent/cString(_:)`` events appear; ``TypedstreamEvent/reference(_:kind:)`` names an earlier one.
///
/// String payloads (shared strings, unshared strings, byte arrays) are ``TypedstreamString`` extents of
/// ``storage``; read them with ``bytes(of:)``.
public struct Typedstream: Sendable {
    /// The byte order the signature declares: `typedstream` is big-endian, `streamtyped` little-endian.
    public enum ByteOrder: String, Sendable, Hashable, CaseIterable {
        /// Signature `typedstream` (NeXT 68k, PowerPC).
        case big
        /// Signature `streamtyped` (Intel, Apple silicon).
        case little
    }

    /// The streamer version of the header. Only version 4 is read.
    public var streamerVersion: Int
    /// The byte order of every multi-byte integer and real.
    public var byteOrder: ByteOrder
    /// The system version of the header: 1000 for Mac OS X and later, 930 for NeXTSTEP 3.
    public var systemVersion: Int64
    /// The events, in stream order.
    public var events: [TypedstreamEvent]
    /// The bytes that ``TypedstreamString`` extents point into (for a read stream, its input).
    public private(set) var storage: [UInt8]

    /// The streamer version this package reads and writes.
    public static let currentStreamerVersion = 4

    /// Creates an empty stream to which events and strings can be appended.
    public init(byteOrder: ByteOrder = .little, systemVersion: Int64 = 1000) {
        self.streamerVersion = Self.currentStreamerVersion
        self.byteOrder = byteOrder
        self.systemVersion = systemVersion
        self.events = []
        self.storage = []
    }

    init(
        streamerVersion: Int,
        byteOrder: ByteOrder,
        systemVersion: Int64,
        events: [TypedstreamEvent],
        storage: [UInt8]
    ) {
        self.streamerVersion = streamerVersion
        self.byteOrder = byteOrder
        self.systemVersion = systemVersion
        self.events = events
        self.storage = storage
    }

    /// The bytes of a string payload of this stream.
    public func bytes(of string: TypedstreamString) -> ArraySlice<UInt8> {
        storage[string.range]
    }

    /// Stores `bytes` and returns the extent to put in an event.
    public mutating func string<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> TypedstreamString {
        let start = storage.count
        storage.append(contentsOf: bytes)
        return TypedstreamString(start: start, count: storage.count - start)
    }

    /// Stores the UTF-8 of `text` and returns the extent to put in an event.
    public mutating func string(_ text: String) -> TypedstreamString {
        string(text.utf8)
    }
}

/// An extent of a ``Typedstream``'s ``Typedstream/storage``: the bytes of a string, a byte array or a type
/// encoding. Compare contents with ``Typedstream/bytes(of:)``, not extents.
public struct TypedstreamString: Hashable, Sendable {
    let start: UInt32
    let count: UInt32

    init(start: Int, count: Int) {
        self.start = UInt32(truncatingIfNeeded: start)
        self.count = UInt32(truncatingIfNeeded: count)
    }

    /// The extent as a range of storage indices.
    public var range: Range<Int> { Int(start)..<(Int(start) + Int(count)) }
}

/// What a reference number refers to; the context of the reference decides it, the stream does not store it.
public enum TypedstreamReferenceKind: UInt8, Sendable, Hashable {
    /// An object (`@`).
    case object
    /// A class in a class chain (`#`, or an object's class).
    case `class`
    /// A C string (`*`).
    case cString
}

/// One event of a typedstream. Value events carry the type code they were read as, so a writer needs no
/// other context.
public enum TypedstreamEvent: Sendable, Hashable {
    /// A group of values begins; the payload is its type-encoding string (a shared string), such as `@`,
    /// `iI` or `{_NSRect={_NSPoint=ff}{_NSSize=ff}}`.
    case beginGroup(TypedstreamString)
    /// The group of values ends (no bytes).
    case endGroup
    /// A signed integer read as `c` (one raw byte), `s`, `i`, `l` or `q` (tagged integers).
    case signed(Int64, type: UInt8)
    /// An unsigned integer read as `C` or `B` (one raw byte), `S`, `I`, `L` or `Q` (tagged integers).
    case unsigned(UInt64, type: UInt8)
    /// A `f` value.
    case float(Float)
    /// A `d` value.
    case double(Double)
    /// `nil`: a nil object, class (the end of a class chain), C string, shared or unshared string.
    case `nil`
    /// A `!` value: nothing is stored.
    case ignored
    /// A C string (`*`) stored literally; it takes the next reference number.
    case cString(TypedstreamString)
    /// A reference to an earlier object, class or C string by its number.
    case reference(Int32, kind: TypedstreamReferenceKind)
    /// A `%` atom (a shared string, or nil).
    case atom(TypedstreamString?)
    /// A `:` selector (a shared string, or nil).
    case selector(TypedstreamString?)
    /// A `+` value: an unshared byte string.
    case string(TypedstreamString)
    /// One class of a class chain, stored literally; it takes the next reference number.
    case classInfo(name: TypedstreamString, version: Int64)
    /// An object stored literally begins; it takes the next reference number. Its class chain follows, then
    /// its groups of values, then ``endObject``.
    case beginObject
    /// The end-of-object marker.
    case endObject
    /// An array of `c` or `C` (`[Nc]`), stored as raw bytes.
    case byteArray(TypedstreamString, signed: Bool)
    /// An array of another element type begins; the payload is the array's type encoding (`[4@]`). Its elements
    /// follow, then ``endArray``.
    case beginArray(TypedstreamString, count: Int)
    /// The array ends (no bytes).
    case endArray
    /// A struct begins; the payload is its type encoding (`{_NSPoint=ff}`). Its fields follow, then ``endStruct``.
    case beginStruct(TypedstreamString)
    /// The struct ends (no bytes).
    case endStruct
}
