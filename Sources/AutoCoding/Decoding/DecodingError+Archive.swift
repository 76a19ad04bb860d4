import AutoCodingFast

extension DecodingError {
    /// The value at `path` has another type than the one asked for.
    static func archiveTypeMismatch(_ expected: Any.Type, at path: CodingPathNode, found: String) -> DecodingError {
        .typeMismatch(
            expected,
            .init(codingPath: path.path, debugDescription: "Expected \(expected) but found \(found) instead."))
    }

    /// The archive's structure is broken at `path`.
    static func archiveCorrupted(_ reason: String, at path: CodingPathNode, underlying: (any Error)? = nil)
        -> DecodingError
    {
        .dataCorrupted(.init(codingPath: path.path, debugDescription: reason, underlyingError: underlying))
    }
}
