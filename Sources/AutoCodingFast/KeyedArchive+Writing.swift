extension KeyedArchive {
    /// The archive as a property-list value: `$version`, `$archiver`, `$top`, `$objects`, in the order
    /// Apple's writer usually produces.
    public var propertyList: ArchiveValue {
        .dictionary([
            ArchiveKey.version: .integer(Int64(version)),
            ArchiveKey.archiver: .string(archiver),
            ArchiveKey.top: .dictionary(top),
            ArchiveKey.objects: .array(objects),
        ])
    }

    /// The archive as a binary property list, written by the native writer in linear time with uniqued
    /// scalars and minimal widths.
    public func binaryPlist() -> [UInt8] {
        propertyList.binaryPropertyList()
    }

    /// The archive as a binary property list, refusing what a reader with `options` would refuse (see
    /// ``ArchiveValue/binaryPropertyList(readableWith:)``).
    public func binaryPlist(readableWith options: ArchiveReadingOptions) throws(ArchiveError) -> [UInt8] {
        try propertyList.binaryPropertyList(readableWith: options)
    }

    /// The archive as an XML property list, UIDs written as `CF$UID` dictionaries; containers nested deeper
    /// than the default reader's ``ArchiveReadingOptions/depthLimit`` are refused.
    public func xmlPlist() throws(ArchiveError) -> [UInt8] {
        try propertyList.xmlPropertyList()
    }
}
