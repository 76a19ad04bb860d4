import AutoCodingFast

extension BPlistTrailer {
    /// The trailer of a binary plist a test made, read and validated by the reader's own parser (default
    /// options): the writer's tests check the widths and counts it chose.
    package init(_ bytes: [UInt8]) throws {
        self = try bytes.withUnsafeBytes { buffer throws(ArchiveError) in
            try BPlistTrailer(parsing: buffer, options: ArchiveReadingOptions())
        }
    }
}
