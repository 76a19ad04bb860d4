/// A reference to an entry of a keyed archive's `$objects` table.
///
/// UID 0 always refers to the `$null` marker, so it means `nil`. UIDs are at most 32 bits wide in any archive
/// this package accepts.
public struct ArchiveUID: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The index into `$objects`.
    public var rawValue: UInt32

    /// Creates a UID from its index into `$objects`.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Creates a UID from its index into `$objects`.
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }

    /// The UID of the `$null` entry: a reference to nothing.
    public static let null = ArchiveUID(0)

    /// Whether this UID refers to `$null`.
    public var isNull: Bool { rawValue == 0 }

    /// The UID as an array index.
    @inlinable public var index: Int { Int(rawValue) }

    /// Orders UIDs by their index.
    public static func < (lhs: ArchiveUID, rhs: ArchiveUID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `#` followed by the index, as the CLI prints back-references.
    public var description: String { "#\(rawValue)" }
}
