/// The one way bytes and files become binary-plist storage, for every reader that opens archives.
extension ArchiveBytes {
    /// A binary property list from untrusted bytes: binary is held as it is (no copy), XML is parsed by libplist and rewritten
    /// by the native writer, so that both formats are read through the same validated table.
    package static func binaryPlist(from bytes: [UInt8], options: ArchiveReadingOptions) throws(ArchiveError)
        -> ArchiveBytes
    {
        switch bytes.withUnsafeBytes({ ArchiveFormat.detect($0) }) {
        case .binaryPlist:
            return ArchiveBytes(holding: bytes)
        case .xmlPlist:
            return ArchiveBytes(holding: try ArchiveValue(propertyList: bytes, options: options).binaryPropertyList())
        case nil:
            throw ArchiveError(.notPropertyList, "the data starts with neither bplist00 nor an XML plist header")
        }
    }

    /// The file at `path` as a binary property list: the mapping itself when `map` is true and the file is
    /// binary, else a copy (XML converted).
    package static func binaryPlist(contentsOf path: String, map: (Int) -> Bool, options: ArchiveReadingOptions)
        throws(ArchiveError) -> ArchiveBytes
    {
        let mapped = try ArchiveBytes(mapping: path, maxBytes: options.maxInputBytes)
        if map(mapped.raw.count) && ArchiveFormat.detect(mapped.raw) == .binaryPlist { return mapped }
        return try binaryPlist(from: Array(mapped.raw), options: options)
    }
}
