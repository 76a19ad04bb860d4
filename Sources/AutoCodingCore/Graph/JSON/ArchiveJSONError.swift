/// An error thrown when JSON text is malformed or is not the graph/property-list form ``ArchiveGraph`` prints.
///
/// In the shape of `ArchiveError`: the ``code`` is stable and alone decides equality and hashing; the
/// ``reason`` says what is wrong in words; ``offset`` locates it in the text.
public struct ArchiveJSONError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public let code: Code
    /// What is wrong, in words.
    public let reason: String
    /// The byte offset in the JSON text where the problem was found, when known.
    public internal(set) var offset: Int?

    package init(_ code: Code, _ reason: String, offset: Int? = nil) {
        self.code = code
        self.reason = reason
        self.offset = offset
    }

    /// `invalidSyntax: JSON at byte 12: unexpected character ']', expected a value`.
    public var description: String { "\(code): \(message)" }

    /// The description without the code: the reason, prefixed by the byte offset when known (the
    /// command-line tool prints this form).
    package var message: String {
        offset.map { "JSON at byte \($0): \(reason)" } ?? "JSON: \(reason)"
    }

    /// Errors compare by code only.
    public static func == (lhs: ArchiveJSONError, rhs: ArchiveJSONError) -> Bool { lhs.code == rhs.code }

    /// Errors hash by code only.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

extension ArchiveJSONError {
    /// A stable error code. New codes can be added without breaking callers that compare with known ones.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Base: String, Hashable, Sendable {
            case invalidSyntax, invalidForm, undefinedReference, duplicateUID, depthLimitExceeded
        }
        fileprivate let base: Base
        fileprivate init(_ base: Base) { self.base = base }

        /// The text is not JSON (RFC 8259): an unexpected character or end, a bad number, string or escape,
        /// text that is not UTF-8.
        public static let invalidSyntax = Code(.invalidSyntax)
        /// The text is JSON but not the form ``ArchiveGraph/json(prettyPrinted:)`` prints: a missing or
        /// unexpected key, a duplicate key, an unknown marker, a marker with the wrong kind of value.
        public static let invalidForm = Code(.invalidForm)
        /// `{"$ref": n}` names no value with `"$uid": n`, or names a shared scalar before its definition.
        public static let undefinedReference = Code(.undefinedReference)
        /// Two values have the same `"$uid"`.
        public static let duplicateUID = Code(.duplicateUID)
        /// Values nest deeper than any readable archive does (twice `ArchiveReadingOptions.depthLimit`'s default).
        public static let depthLimitExceeded = Code(.depthLimitExceeded)

        /// The code's name, such as `undefinedReference`.
        public var description: String { base.rawValue }
    }
}
