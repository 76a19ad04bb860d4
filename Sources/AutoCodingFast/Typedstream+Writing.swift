extension Typedstream {
    /// Writes the events as a typedstream, the way `NSArchiver` does: a shared string is written literally the
    /// first time its bytes appear and as a reference afterwards, integers take their smallest tagged form,
    /// integral reals are written as integers, in the byte order given (the stream's own by default).
    ///
    /// The events must be well formed (as read, or as built by the object layer): references name earlier
    /// numbered events. Reading the output gives a stream equal to this one (in the byte order written).
    public func typedstreamBytes(byteOrder: ByteOrder? = nil) -> [UInt8] {
        var writer = TypedstreamWriter(bigEndian: (byteOrder ?? self.byteOrder) == .big)
        writer.out.reserveCapacity(storage.count + 64)
        writer.out.append(UInt8(truncatingIfNeeded: streamerVersion))
        writer.out.append(11)
        writer.out.append(contentsOf: ((byteOrder ?? self.byteOrder) == .big ? "typedstream" : "streamtyped").utf8)
        writer.writeInteger(systemVersion)
        for event in events {
            switch event {
            case .beginGroup(let types): writer.writeShared(storage[types.range])
            case .endGroup, .endArray, .endStruct, .beginArray, .beginStruct, .ignored: break
            case .signed(let value, let type):
                if type == UInt8(ascii: "c") {
                    writer.out.append(UInt8(truncatingIfNeeded: value))
                } else {
                    writer.writeInteger(value)
                }
            case .unsigned(let value, let type):
                if type == UInt8(ascii: "C") || type == UInt8(ascii: "B") {
                    writer.out.append(UInt8(truncatingIfNeeded: value))
                } else {
                    writer.writeUnsigned(value)
                }
            case .float(let value):
                if let integer = TypedstreamWriter.integral(Double(value), limit: 2_147_483_648) {
                    writer.writeInteger(integer)
                } else {
                    writer.out.append(TypedstreamWriter.tagReal)
                    writer.writeFixed(UInt64(value.bitPattern), width: 4)
                }
            case .double(let value):
                if let integer = TypedstreamWriter.integral(value, limit: 2_147_483_648) {
                    writer.writeInteger(integer)
                } else {
                    writer.out.append(TypedstreamWriter.tagReal)
                    writer.writeFixed(value.bitPattern, width: 8)
                }
            case .nil: writer.out.append(TypedstreamWriter.tagNil)
            case .cString(let s):
                writer.out.append(TypedstreamWriter.tagNew)
                writer.writeShared(storage[s.range])
            case .reference(let number, _):
                writer.writeInteger(Int64(number) + TypedstreamReader.firstReferenceNumber)
            case .atom(let s), .selector(let s):
                if let s { writer.writeShared(storage[s.range]) } else { writer.out.append(TypedstreamWriter.tagNil) }
            case .string(let s): writer.writeUnshared(storage[s.range])
            case .classInfo(let name, let version):
                writer.out.append(TypedstreamWriter.tagNew)
                writer.writeShared(storage[name.range])
                writer.writeInteger(version)
            case .beginObject: writer.out.append(TypedstreamWriter.tagNew)
            case .endObject: writer.out.append(TypedstreamWriter.tagEndOfObject)
            case .byteArray(let s, _): writer.out.append(contentsOf: storage[s.range])
            }
        }
        return writer.out
    }
}

extension Typedstream {
    /// Writes the events as ``typedstreamBytes(byteOrder:)`` does, refusing what a reader with `options`
    /// would refuse: the bytes are read back by the reader of ``init(bytes:options:)`` (the one rule set: depth,
    /// event budget, references), without keeping the events, and its error is thrown, such as
    /// ``ArchiveError/Code-swift.struct/depthLimitExceeded``.
    public func typedstreamBytes(
        byteOrder: ByteOrder? = nil, readableWith options: ArchiveReadingOptions
    ) throws(ArchiveError) -> [UInt8] {
        let bytes = typedstreamBytes(byteOrder: byteOrder)
        _ = try Typedstream.read(bytes: bytes, options: options) { (_) throws(ArchiveError) in }
        return bytes
    }
}

/// The byte-level half of ``Typedstream/typedstreamBytes(byteOrder:)``: tagged integers and the shared-string
/// table.
struct TypedstreamWriter {
    static let tagInteger2 = UInt8(bitPattern: TypedstreamReader.tagInteger2)
    static let tagInteger4 = UInt8(bitPattern: TypedstreamReader.tagInteger4)
    static let tagInteger8 = UInt8(bitPattern: TypedstreamReader.tagInteger8)
    static let tagReal = UInt8(bitPattern: TypedstreamReader.tagReal)
    static let tagNew = UInt8(bitPattern: TypedstreamReader.tagNew)
    static let tagNil = UInt8(bitPattern: TypedstreamReader.tagNil)
    static let tagEndOfObject = UInt8(bitPattern: TypedstreamReader.tagEndOfObject)

    let bigEndian: Bool
    var out: [UInt8] = []
    /// Shared strings written so far, by content, with their number.
    private var shared: [ArraySlice<UInt8>: Int64] = [:]

    init(bigEndian: Bool) { self.bigEndian = bigEndian }

    /// The value as an integer when it is integral and within ±`limit`, as `NSArchiver` writes such reals.
    static func integral(_ value: Double, limit: Double) -> Int64? {
        guard value.rounded(.towardZero) == value, value.magnitude < limit, !(value == 0 && value.sign == .minus)
        else { return nil }
        return Int64(value)
    }

    mutating func writeFixed(_ value: UInt64, width: Int) {
        if bigEndian {
            for i in (0..<width).reversed() { out.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))) }
        } else {
            for i in 0..<width { out.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))) }
        }
    }

    /// The smallest tagged form: one byte outside the tag range, else 2, 4 or 8 bytes after a tag.
    mutating func writeInteger(_ value: Int64) {
        if value >= -128, value <= 127, !(value >= -128 && value <= -111) {
            out.append(UInt8(truncatingIfNeeded: value))
        } else if value >= Int64(Int16.min), value <= Int64(Int16.max) {
            out.append(Self.tagInteger2)
            writeFixed(UInt64(bitPattern: value), width: 2)
        } else if value >= Int64(Int32.min), value <= Int64(Int32.max) {
            out.append(Self.tagInteger4)
            writeFixed(UInt64(bitPattern: value), width: 4)
        } else {
            out.append(Self.tagInteger8)
            writeFixed(UInt64(bitPattern: value), width: 8)
        }
    }

    /// An unsigned value in the smallest form that reads back as the same unsigned value (the reader takes
    /// the stored bytes zero-extended).
    mutating func writeUnsigned(_ value: UInt64) {
        if value <= 127 {
            out.append(UInt8(value))
        } else if value <= 0xFFFF {
            out.append(Self.tagInteger2)
            writeFixed(value, width: 2)
        } else if value <= 0xFFFF_FFFF {
            out.append(Self.tagInteger4)
            writeFixed(value, width: 4)
        } else {
            out.append(Self.tagInteger8)
            writeFixed(value, width: 8)
        }
    }

    mutating func writeUnshared(_ bytes: ArraySlice<UInt8>) {
        writeUnsigned(UInt64(bytes.count))
        out.append(contentsOf: bytes)
    }

    mutating func writeShared(_ bytes: ArraySlice<UInt8>) {
        if let number = shared[bytes] {
            writeInteger(number + TypedstreamReader.firstReferenceNumber)
        } else {
            shared[bytes] = Int64(shared.count)
            out.append(Self.tagNew)
            writeUnshared(bytes)
        }
    }
}
