/// A range of a string or collection, archived as an `NSValue` (`NS.special` 4, `NS.rangeval.*`).
public struct ArchiveRange: Hashable, Sendable, Codable {
    /// The start.
    public var location: Int
    /// The number of elements.
    public var length: Int
    /// Creates a range.
    public init(location: Int, length: Int) {
        self.location = location
        self.length = length
    }
}

/// A point, archived as an `NSValue` (`NS.special` 1, `NS.pointval` `"{x, y}"`).
public struct ArchivePoint: Hashable, Sendable, Codable {
    /// The coordinates.
    public var x, y: Double
    /// Creates a point.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// A size, archived as an `NSValue` (`NS.special` 2, `NS.sizeval` `"{w, h}"`).
public struct ArchiveSize: Hashable, Sendable, Codable {
    /// The extent.
    public var width, height: Double
    /// Creates a size.
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }
}

/// A rectangle, archived as an `NSValue` (`NS.special` 3, `NS.rectval` `"{{x, y}, {w, h}}"`).
public struct ArchiveRect: Hashable, Sendable, Codable {
    /// The corner.
    public var origin: ArchivePoint
    /// The extent.
    public var size: ArchiveSize
    /// Creates a rectangle.
    public init(origin: ArchivePoint, size: ArchiveSize) {
        self.origin = origin
        self.size = size
    }
    /// Creates a rectangle from its corner and extent.
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.init(origin: ArchivePoint(x: x, y: y), size: ArchiveSize(width: width, height: height))
    }
}

/// Edge insets, archived as an `NSValue` (`NS.special` 12, `NS.edgeval.*`).
public struct ArchiveEdgeInsets: Hashable, Sendable, Codable {
    /// The insets.
    public var top, left, bottom, right: Double
    /// Creates insets.
    public init(top: Double, left: Double, bottom: Double, right: Double) {
        self.top = top
        self.left = left
        self.bottom = bottom
        self.right = right
    }
}

/// The `NS.special` codes and the string form Foundation uses for geometry (`NSStringFromRect`).
enum NSValueCoding {
    static let special = "NS.special"
    static let point = 1, size = 2, rect = 3, range = 4, edgeInsets = 12

    /// `"{1.5, 2}"`-style text for numbers, as `NSStringFromPoint` writes them (17 significant digits).
    static func format(_ numbers: Double...) -> String {
        "{" + numbers.map(formatNumber).joined(separator: ", ") + "}"
    }

    /// Integral values without a fraction (`2`, not `2.0`), like `%g`; otherwise Swift's shortest round-trip
    /// spelling. Negative zero is written `-0` (as `%g` does), because `Int64(-0.0)` is plain `0` and the sign
    /// would be lost on the way back; ``parse(_:count:)`` reads `-0` as `-0.0`.
    static func formatNumber(_ d: Double) -> String {
        if d == 0 { return d.sign == .minus ? "-0" : "0" }
        if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
        return String(d)
    }

    /// The numbers in `"{{1, 2}, {3, 4}}"` or `"{1, 2}"`, in order, or nil when the text is not of that form.
    /// `Double("-0")` is `-0.0`, so a negative zero written by ``formatNumber(_:)`` keeps its sign.
    static func parse(_ text: String, count: Int) -> [Double]? {
        let parts = text.split(whereSeparator: { "{}, ".contains($0) })
        guard parts.count == count else { return nil }
        let numbers = parts.compactMap { Double($0) }
        return numbers.count == count ? numbers : nil
    }
}
