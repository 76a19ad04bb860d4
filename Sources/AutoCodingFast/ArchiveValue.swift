#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OrderedCollections

/// One property-list value, as stored in a binary or XML plist, plus the keyed-archive UID.
///
/// Dictionaries keep the order their keys had in the file, so a read–write round trip keeps it too.
/// Integers above `Int64.max` (16-byte integers in a binary plist) are ``unsignedInteger(_:)``; every other
/// integer is ``integer(_:)``.
public enum ArchiveValue: Hashable, Sendable {
    /// A boolean.
    case bool(Bool)
    /// A signed integer.
    case integer(Int64)
    /// An integer above `Int64.max`.
    case unsignedInteger(UInt64)
    /// A floating-point number (4-byte reals are widened).
    case real(Double)
    /// A date.
    case date(Date)
    /// Raw bytes.
    case data([UInt8])
    /// A string.
    case string(String)
    /// A keyed-archive reference into `$objects`.
    case uid(ArchiveUID)
    /// An ordered list of values.
    case array([ArchiveValue])
    /// A dictionary with string keys, in file order.
    case dictionary(OrderedDictionary<String, ArchiveValue>)
}

extension ArchiveValue {
    /// Makes an integer value, using ``unsignedInteger(_:)`` only when the value does not fit `Int64`.
    @inlinable
    public static func integer<T: BinaryInteger>(exactly value: T) -> ArchiveValue? {
        if let signed = Int64(exactly: value) { return .integer(signed) }
        if let unsigned = UInt64(exactly: value) { return .unsignedInteger(unsigned) }
        return nil
    }

    /// The string, if this is a string value.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The UID, if this is a UID value.
    public var uidValue: ArchiveUID? {
        if case .uid(let u) = self { return u }
        return nil
    }

    /// The integer as `Int64`, if this is an integer that fits.
    public var int64Value: Int64? {
        switch self {
        case .integer(let v): return v
        case .unsignedInteger(let v): return Int64(exactly: v)
        default: return nil
        }
    }

    /// The elements, if this is an array.
    public var arrayValue: [ArchiveValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The entries, if this is a dictionary.
    public var dictionaryValue: OrderedDictionary<String, ArchiveValue>? {
        if case .dictionary(let d) = self { return d }
        return nil
    }

    /// The value for `key`, if this is a dictionary that has it.
    public subscript(key: String) -> ArchiveValue? {
        if case .dictionary(let d) = self { return d[key] }
        return nil
    }

    /// A short name of the value's type, used in error messages (`string`, `dictionary` ...).
    public var typeName: String {
        switch self {
        case .bool: "bool"
        case .integer, .unsignedInteger: "integer"
        case .real: "real"
        case .date: "date"
        case .data: "data"
        case .string: "string"
        case .uid: "UID"
        case .array: "array"
        case .dictionary: "dictionary"
        }
    }
}
