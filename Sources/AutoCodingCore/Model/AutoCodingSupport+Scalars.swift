import Foundation

// The scalar properties' reads: `@AutoCoding`'s generated `AutoCodingSupport.decode(&property, from:keys:in:)`
// resolves to these overloads for the types below (a concrete overload is preferred to the generic one), so a
// field of these types is read without the generic type dispatch per read. They read and throw exactly what the
// generic overloads do.
extension AutoCodingSupport {
    /// Reads a `String` property: the generic overload's values and errors, without its type dispatch.
    public static func decode(_ property: inout String, from reader: AutoCodingReader, keys: [String], in owner: Any.Type) throws {
        try reader.readScalar(&property, keys: keys, in: owner, FoundationValues.string)
    }

    /// Reads a `String?` property: `$null` and `NSNull` read as nil.
    public static func decode(_ property: inout String?, from reader: AutoCodingReader, keys: [String], in owner: Any.Type) throws {
        try reader.readScalar(&property, keys: keys, in: owner, FoundationValues.string)
    }

    /// Reads a `[String]` property: the generic overload's values and errors, without its type dispatch per element.
    public static func decode(_ property: inout [String], from reader: AutoCodingReader, keys: [String], in owner: Any.Type) throws {
        try reader.readStrings(&property, keys: keys, in: owner)
    }

    /// Reads a `[String]?` property: `$null` and `NSNull` read as nil.
    public static func decode(_ property: inout [String]?, from reader: AutoCodingReader, keys: [String], in owner: Any.Type) throws {
        try reader.readStrings(&property, keys: keys, in: owner)
    }

    /// Reads a `Int` property: the generic overload's values and errors, without its type dispatch.
    public static func decode(_ property: inout Int, from reader: AutoCodingReader, keys: [String], in owner: Any.Type) throws {
        try reader.readScalar(&property, keys: keys, in: owner, { try FoundationValues.integer(Int.self, $0, $1, $2) })
    }

    /// Reads a `Int?` property: `$null` and `NSNull` read as nil.
    public static func decode(_ property: inout Int?, from reader: AutoCodingReader, keys: [String], in owner: Any.Type) throws {
        try reader.readScalar(&property, keys: keys, in: owner, { try FoundationValues.integer(Int.self, $0, $1, $2) })
    }

    /// Reads a `Int8` property: the generic overload's values and errors, without its type dispatch.
    public static func decode(_ property: inout Int8, from reader: AutoCodingReader, keys: [String], in owner: Any.Type) throws {
        try reader.readScalar(&property, keys: keys, in: owner, { try FoundationValues.integer(Int8.self, $0, $1, $2) })
    }

    /// Reads a `Int8?` property: `$null` and `NSNull` read as nil.
    public static func decode(_ property: inout Int8?, from reader: AutoCodingReader, keys: [String], in owner: Any.Type) throws {
        try reader.readScalar(&property, keys: keys, in: owner, { try FoundationValues.integer(Int8.self, $0, $1, $2) })
    }

    /// Reads a `Int16` property: the generic overload's values and errors, without its type dispatch.
    public static func decode(_ property: inout Int16, from reader: AutoCodingReader, keys: [String], in owner: Any.Type) throws {
        try reader.readScalar(&property, keys: keys, in: owner, { try FoundationValues.integer(Int16.self, $0, $1, $2) })
    }

    /// Reads a `Int16?` property: `$null` and `NSNull` read as nil.
    public static func decode(_ property: inout Int16?, from reader: AutoCodingReader, keys: [String], in owner: Any.Type) throws {
        try reader.readScalar(&property, keys: keys, in: owner, { try FoundationValues.integer(Int16.self, $0, $1, $2) })
    }

    /// Reads a `Int32` property: the generic overload's values and errors, without its type dispatch.
    public static func decode(_ property: inout Int32, from reader: AutoCodingReader, keys: [String], in owner: Any.Type) throws {
        try reader.readScalar(&property, keys: keys, in: owner, { try FoundationValues.integer(Int32.self, $0, $1, $2) })
    }

    /// Reads a `Int32?` property: `$null` and `NSNull` read as nil.
    public static func decode(_ property: inout Int32?, from reader: AutoCodingReader, keys: [String], in owner: Any.Type) throws {
        try reader.readScalar(&property, keys: keys, in: owner, { try FoundationValues.integer(Int32.self, $0, $1, $2) })
    }

    /// Reads a `Int64` property: the generic overload's values and errors, without its type dispatch.
    public static func decode(_ property: inout Int64, from reader: AutoCodingReader, keys: [String], in owner: Any.Type) throws {
        try reader.readScalar(&property, keys: keys, in: owner, { try FoundationValues.integer(Int64.self, $0, $1, $2) })
    }

    /// Reads a `Int64?` property: `$null` and `NSNull` read as nil.
    public static func decode(_ property: inout Int64?, from reader: AutoCodingReader, keys: [String], in owner: Any.Type) throws {
        try reader.readScalar(&property, keys: keys, in: owner, { try FoundationValues.integer(Int64.self, $0, $1, $2) })
    }

    /// Reads a `UInt` property: the generic overload's values and errors, without its type dispatch.
    public static func decode(_ property: inout UInt, from reader: AutoCodingReader, keys: [String], in owner: Any.Type) throws {
        try reader.readScalar(&property, keys: keys, in: owner, { try FoundationValues.integer(UInt.self, $0, $1, $2) })
    }

    /// Reads a `UInt?` property: `$null` and `NSNull` read as nil.
    public static func decode(_ property: inout UInt?, from reader: AutoCodingReader, keys: [String], in owner: Any.Type) throws {
        try reader.readScalar(&property, keys: keys, in: owner, { try FoundationValues.integer(UInt.self, $0, $1, $2) })
    }

    /// Reads a `UInt8` property: the generic overload's values and errors, without its type dispatch.
    public static func decode(_ property: inout UInt8, from reader: AutoCodingReader, keys: [String], in owner: Any.Type) throws {
        try reader.readScalar(&property, keys: keys, in: owner, { try FoundationValues.integer(UInt8.self, $0, $1, $2) })
    }

    /// Reads a `UInt8?` property: `$null` and `NSNull` read as nil.
    public static func decode(_ property: inout UInt8?, from reader: AutoCodingReader, keys: [String], in owner: Any.Type) throws {
        try reader.readScalar(&property, keys: keys, in: owner, { try FoundationValues.integer(UInt8.self, $0, $1, $2) })
    }

    /// Reads a `UInt16` property: the generic overload's values and errors, without its type dispatch.
    public static func decode(_ property: inout UInt16, from reader: AutoCodingReader, keys: [String], in owner: Any.Type) throws {
        try reader.readScalar(&property, keys: keys, in: owner, { try FoundationValues.integer(UInt16.self, $0, $1, $2) })
    }

    /// Reads a `UInt16?` property: `$null` and `NSNull` read as nil.
    public static func decode(_ property: inout UInt16?, from reader: AutoCodingReader, keys: [String], in owner: Any.Type) throws {
        try reader.readScalar(&property, keys: keys, in: owner, { try FoundationValues.integer(UInt16.self, $0, $1, $2) })
    }

    /// Reads a `UInt32` property: the generic overload's values and errors, without its type dispatch.
    public static func decode(_ property: inout UInt32, from reader: AutoCodingReader, keys: [String], in owner: Any.Type) throws {
        try reader.readScalar(&property, keys: keys, in: owner, { try FoundationValues.integer(UInt32.self, $0, $1, $2) })
    }

    /// Reads a `UInt32?` property: `$null` and `NSNull` read as nil.
    public static func decode(_ property: inout UInt32?, from reader: AutoCodingReader, keys: [String], in owner: Any.Type) throws {
        try reader.readScalar(&property, keys: keys, in: owner, { try FoundationValues.integer(UInt32.self, $0, $1, $2) })
    }

    /// Reads a `UInt64` property: the generic overload's values and errors, without its type dispatch.
    public static func decode(_ property: inout UInt64, from reader: AutoCodingReader, keys: [String], in owner: Any.Type) throws {
        try reader.readScalar(&property, keys: keys, in: owner, { try FoundationValues.integer(UInt64.self, $0, $1, $2) })
    }

    /// Reads a `UInt64?` property: `$null` and `NSNull` read as nil.
    public static func decode(_ property: inout UInt64?, from reader: AutoCodingReader, keys: [String], in owner: Any.Type) throws {
        try reader.readScalar(&property, keys: keys, in: owner, { try FoundationValues.integer(UInt64.self, $0, $1, $2) })
    }

    /// Reads a `Double` property: the generic overload's values and errors, without its type dispatch.
    public static func decode(_ property: inout Double, from reader: AutoCodingReader, keys: [String], in owner: Any.Type) throws {
        try reader.readScalar(&property, keys: keys, in: owner, FoundationValues.double)
    }

    /// Reads a `Double?` property: `$null` and `NSNull` read as nil.
    public static func decode(_ property: inout Double?, from reader: AutoCodingReader, keys: [String], in owner: Any.Type) throws {
        try reader.readScalar(&property, keys: keys, in: owner, FoundationValues.double)
    }

    /// Reads a `Float` property: the generic overload's values and errors, without its type dispatch.
    public static func decode(_ property: inout Float, from reader: AutoCodingReader, keys: [String], in owner: Any.Type) throws {
        try reader.readScalar(&property, keys: keys, in: owner, { FloatBits.float(try FoundationValues.double($0, $1, $2)) })
    }

    /// Reads a `Float?` property: `$null` and `NSNull` read as nil.
    public static func decode(_ property: inout Float?, from reader: AutoCodingReader, keys: [String], in owner: Any.Type) throws {
        try reader.readScalar(&property, keys: keys, in: owner, { FloatBits.float(try FoundationValues.double($0, $1, $2)) })
    }

    /// Reads a `Bool` property: the generic overload's values and errors, without its type dispatch.
    public static func decode(_ property: inout Bool, from reader: AutoCodingReader, keys: [String], in owner: Any.Type) throws {
        try reader.readScalar(&property, keys: keys, in: owner, FoundationValues.bool)
    }

    /// Reads a `Bool?` property: `$null` and `NSNull` read as nil.
    public static func decode(_ property: inout Bool?, from reader: AutoCodingReader, keys: [String], in owner: Any.Type) throws {
        try reader.readScalar(&property, keys: keys, in: owner, FoundationValues.bool)
    }

    /// Reads a `Date` property: the generic overload's values and errors, without its type dispatch.
    public static func decode(_ property: inout Date, from reader: AutoCodingReader, keys: [String], in owner: Any.Type) throws {
        try reader.readScalar(&property, keys: keys, in: owner, FoundationValues.date)
    }

    /// Reads a `Date?` property: `$null` and `NSNull` read as nil.
    public static func decode(_ property: inout Date?, from reader: AutoCodingReader, keys: [String], in owner: Any.Type) throws {
        try reader.readScalar(&property, keys: keys, in: owner, FoundationValues.date)
    }

    /// Reads a `Data` property: the generic overload's values and errors, without its type dispatch.
    public static func decode(_ property: inout Data, from reader: AutoCodingReader, keys: [String], in owner: Any.Type) throws {
        try reader.readScalar(&property, keys: keys, in: owner, FoundationValues.data)
    }

    /// Reads a `Data?` property: `$null` and `NSNull` read as nil.
    public static func decode(_ property: inout Data?, from reader: AutoCodingReader, keys: [String], in owner: Any.Type) throws {
        try reader.readScalar(&property, keys: keys, in: owner, FoundationValues.data)
    }

}
