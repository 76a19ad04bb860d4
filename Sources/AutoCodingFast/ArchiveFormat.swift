/// The container formats this package recognizes from their first bytes.
public enum ArchiveFormat: String, Sendable, Hashable, CaseIterable {
    /// A binary property list (`bplist00`).
    case binaryPlist
    /// An XML property list (`<?xml` or `<plist`, after an optional byte-order mark and white space).
    case xmlPlist

    /// Recognizes the format from the leading bytes, or returns nil. Over a buffer, for the readers of this
    /// package; not public, as no public signature takes a raw pointer.
    package static func detect(_ bytes: UnsafeRawBufferPointer) -> ArchiveFormat? {
        if bytes.starts(with: BPlistTrailer.magic) { return .binaryPlist }
        var i = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF] as [UInt8]) { i = 3 }
        while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
        let rest = UnsafeRawBufferPointer(rebasing: bytes[i...])
        if rest.starts(with: Array("<?xml".utf8)) || rest.starts(with: Array("<plist".utf8))
            || rest.starts(with: Array("<!DOCTYPE plist".utf8))
        {
            return .xmlPlist
        }
        return nil
    }

    /// Recognizes the format from the leading bytes, or returns nil.
    public static func detect(_ bytes: [UInt8]) -> ArchiveFormat? {
        bytes.withUnsafeBytes { detect($0) }
    }
}
