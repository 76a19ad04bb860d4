import AutoCodingFast

/// A path that does not parse or does not resolve, with the step (or byte offset) at fault.
///
/// In the shape of `ArchiveError`: the ``code`` is stable and alone decides equality and hashing; the
/// ``reason`` says what is wrong in words; ``step`` or ``offset`` locate it.
public struct ArchivePathError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public let code: Code
    /// What is wrong, in words.
    public let reason: String
    /// The path's text.
    public let path: String
    /// The 1-based number of the step at fault (`$top` itself is step 0), or nil for a syntax error.
    public let step: Int?
    /// For a syntax error, the byte offset in `path` where parsing stopped.
    public let offset: Int?
    /// The archive error that stopped the walk, when the archive itself is damaged at the step.
    public let archiveError: ArchiveError?

    package init(
        _ code: Code, path: String, step: Int?, reason: String, offset: Int? = nil, archiveError: ArchiveError? = nil
    ) {
        self.code = code
        self.reason = reason
        self.path = path
        self.step = step
        self.offset = offset
        self.archiveError = archiveError
    }

    /// `stepNotApplicable: $top.root[7]: step 2: [7]: index 7 is beyond the 3 elements …`, or
    /// `invalidSyntax: $top.root[x: at byte 10: expected ']'`.
    public var description: String { "\(code): \(message)" }

    /// The description without the code: the path, the step or byte offset, and the reason (the command-line
    /// tool prints this form).
    package var message: String {
        if let offset { return "\(path): at byte \(offset): \(reason)" }
        return "\(path): step \(step ?? 0): \(reason)"
    }

    /// Errors compare by code only.
    public static func == (lhs: ArchivePathError, rhs: ArchivePathError) -> Bool { lhs.code == rhs.code }

    /// Errors hash by code only.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

extension ArchivePathError {
    /// A stable error code. New codes can be added without breaking callers that compare with known ones.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Base: String, Hashable, Sendable {
            case invalidSyntax, stepNotApplicable, limitExceeded, invalidArchive
        }
        fileprivate let base: Base
        fileprivate init(_ base: Base) { self.base = base }

        /// The text is not a path (``ArchivePathError/offset`` says where parsing stopped).
        public static let invalidSyntax = Code(.invalidSyntax)
        /// A step does not apply to what it reaches: a missing key, an index out of range, a step into a
        /// scalar or `$null`, or a path that stops at `$top`. The lazy and the eager walk agree on it.
        public static let stepNotApplicable = Code(.stepNotApplicable)
        /// `[*]` steps reach more values than the fan-out budget
        /// (``ArchivePath/fanOutBudget(forInputBytes:)``).
        public static let limitExceeded = Code(.limitExceeded)
        /// The archive is damaged where the step reads it (``ArchivePathError/archiveError`` says how).
        public static let invalidArchive = Code(.invalidArchive)

        /// The code's name, such as `stepNotApplicable`.
        public var description: String { base.rawValue }
    }
}
