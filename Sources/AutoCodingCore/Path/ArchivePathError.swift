import AutoCodingFast

/// A path that does not parse or does not resolve, with the step (or byte offset) at fault.
public struct ArchivePathError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The path's text.
    public var path: String
    /// The 1-based number of the step at fault (`$top` itself is step 0), or nil for a syntax error.
    public var step: Int?
    /// What is wrong, in words.
    public var reason: String
    /// For a syntax error, the byte offset in `path` where parsing stopped.
    public var offset: Int?
    /// The archive error that stopped the walk, when the archive itself is damaged at the step.
    public var archiveError: ArchiveError?

    /// Creates an error.
    public init(path: String, step: Int?, reason: String, offset: Int? = nil, archiveError: ArchiveError? = nil) {
        self.path = path
        self.step = step
        self.reason = reason
        self.offset = offset
        self.archiveError = archiveError
    }

    /// `path: step 3 ([7]): index 7 is beyond the 3 elements`, or `path: at byte 5: expected ']'`.
    public var description: String {
        if let offset { return "\(path): at byte \(offset): \(reason)" }
        return "\(path): step \(step ?? 0): \(reason)"
    }
}
