/// An error of the typedstream object layer (``TypedstreamUnarchiver``, ``IMessageText``, and the
/// ``TypedstreamDecodable`` types that read their own groups): a group other than the one asked for, a value of
/// another type, a layout a decoder does not accept.
///
/// In the shape of `ArchiveError`: the ``code`` is stable and alone decides equality and hashing; the
/// ``reason`` names the object and group at fault in words; ``group`` locates it as data. A stream that is not
/// a valid typedstream at all throws `ArchiveError` instead, when it is read.
public struct TypedstreamDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public let code: Code
    /// What was asked for and what the stream holds, naming the object and group.
    public let reason: String
    /// The 0-based number of the group at fault among the object's (or the stream's top-level) groups, when
    /// the failure is about one.
    public let group: Int?

    /// Creates an error; decoders of custom classes throw it (usually with
    /// ``Code-swift.struct/unexpectedLayout``) for layouts they do not accept.
    public init(_ code: Code, _ reason: String, group: Int? = nil) {
        self.code = code
        self.reason = reason
        self.group = group
    }

    /// `groupMismatch: NSString group 1 is i, not @`.
    public var description: String { "\(code): \(reason)" }

    /// Errors compare by code only.
    public static func == (lhs: TypedstreamDecodingError, rhs: TypedstreamDecodingError) -> Bool {
        lhs.code == rhs.code
    }

    /// Errors hash by code only.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

extension TypedstreamDecodingError {
    /// A stable error code. New codes can be added without breaking callers that compare with known ones.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Base: String, Hashable, Sendable {
            case groupMismatch, typeMismatch, unexpectedLayout, limitExceeded
        }
        fileprivate let base: Base
        fileprivate init(_ base: Base) { self.base = base }

        /// The next group has another type encoding than the one asked for, holds more than one value where
        /// one was asked for, or there is no next group.
        public static let groupMismatch = Code(.groupMismatch)
        /// A value has another type than the one asked for: not a real, not an object, or an integer that
        /// does not fit the requested width.
        public static let typeMismatch = Code(.typeMismatch)
        /// The groups are well typed but not in the layout the decoder expects (an `attributedBody` whose root
        /// is not an `NSAttributedString`, a custom class's own check).
        public static let unexpectedLayout = Code(.unexpectedLayout)
        /// Mapping the values would pass their output budget (shared objects repeated at every reference).
        public static let limitExceeded = Code(.limitExceeded)

        /// The code's name, such as `groupMismatch`.
        public var description: String { base.rawValue }
    }
}
