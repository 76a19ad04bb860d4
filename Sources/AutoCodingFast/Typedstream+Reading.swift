extension Typedstream {
    /// Reads and validates a whole typedstream in one linear pass.
    ///
    /// Accepts streamer version 4 in either byte order and any system version; reads groups of values until
    /// the end of the data. Throws ``ArchiveError`` with code ``ArchiveError/Code/notTypedstream`` (no
    /// signature), ``ArchiveError/Code/unsupportedVersion``, ``ArchiveError/Code/truncated``,
    /// ``ArchiveError/Code/invalidReference``, ``ArchiveError/Code/invalidTag``,
    /// ``ArchiveError/Code/invalidTypeEncoding``, ``ArchiveError/Code/invalidObject``,
    /// ``ArchiveError/Code/depthLimitExceeded`` or ``ArchiveError/Code/limitExceeded``, naming the offset at fault.
    public init(bytes: [UInt8], options: ArchiveReadingOptions = ArchiveReadingOptions()) throws(ArchiveError) {
        let reader = TypedstreamReader(bytes: bytes, options: options)
        self = try reader.read()
    }

    /// Reads and validates `bytes` as ``init(bytes:options:)`` does, handing the events to `sink` in stream order,
    /// a batch at a time, instead of keeping them: for a reader that builds its own structure from them
    /// (`TypedGraph`), which then holds no events array. The stream returned has the header and the storage, and
    /// no events. An error `sink` throws ends the read.
    package static func read(
        bytes: [UInt8], options: ArchiveReadingOptions,
        into sink: (UnsafeBufferPointer<TypedstreamEvent>) throws(ArchiveError) -> Void
    ) throws(ArchiveError) -> Typedstream {
        try TypedstreamReader(bytes: bytes, options: options).read(into: sink)
    }

    /// Whether `bytes` start with a typedstream signature (`\u{4}\u{B}streamtyped` or `\u{4}\u{B}typedstream`,
    /// or the same with another streamer version), so that callers can choose this reader over the
    /// property-list one.
    public static func hasSignature(_ bytes: some Collection<UInt8>) -> Bool {
        TypedstreamReader.hasSignature(bytes)
    }
}
