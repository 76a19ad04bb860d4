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

    /// An NSDictionary lists `key` twice: an error for typed and dynamic decoding alike, since keeping either
    /// value would silently drop the other.
    static func duplicateDictionaryKey(_ key: Any, at path: CodingPathNode) -> DecodingError {
        archiveCorrupted("the dictionary has the key \(key) twice", at: path)
    }
}

extension DecodingError {
    /// This error with `key` inserted after `parent` in its coding path, for errors raised by scalar reads
    /// that were given only the parent's path.
    func prefixingKey(_ key: any CodingKey, below parent: CodingPathNode) -> DecodingError {
        func repath(_ context: Context) -> Context {
            let parentPath = parent.path
            guard context.codingPath.count == parentPath.count else { return context }
            return Context(codingPath: parentPath + [key], debugDescription: context.debugDescription,
                           underlyingError: context.underlyingError)
        }
        switch self {
        case .typeMismatch(let type, let context): return .typeMismatch(type, repath(context))
        case .valueNotFound(let type, let context): return .valueNotFound(type, repath(context))
        case .keyNotFound(let missing, let context): return .keyNotFound(missing, repath(context))
        case .dataCorrupted(let context): return .dataCorrupted(repath(context))
        @unknown default: return self
        }
    }
}
