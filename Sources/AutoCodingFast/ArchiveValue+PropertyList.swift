/// Reading and writing whole property lists.
extension ArchiveValue {
    /// Reads a binary or XML property list from untrusted bytes.
    ///
    /// Binary input is validated in one linear pass before any value is built (see ``ArchiveReadingOptions``);
    /// with the libplist backend, libplist sees the bytes only after that validation. XML always goes
    /// through libplist, after size and nesting checks; `CF$UID` dictionaries become ``uid(_:)`` values.
    public init(propertyList bytes: [UInt8], options: ArchiveReadingOptions = .init()) throws(ArchiveError) {
        self = try bytes.withArchiveBytes { (raw) throws(ArchiveError) in try ArchiveValue.read(raw, options: options) }
    }

    static func read(_ bytes: UnsafeRawBufferPointer, options: ArchiveReadingOptions) throws(ArchiveError)
        -> ArchiveValue
    {
        guard bytes.count <= options.maxInputBytes else {
            throw ArchiveError(
                .limitExceeded, "input of \(bytes.count) bytes exceeds maxInputBytes \(options.maxInputBytes)")
        }
        switch ArchiveFormat.detect(bytes) {
        case .binaryPlist:
            let index = try BPlistIndex(validating: bytes, options: options)
            switch options.backend {
            case .native:
                try index.checkExpandedSize(in: bytes, limit: options.maxExpandedNodeCount, forLibplist: false)
                return try index.topValue(in: bytes)
            case .libplist:
                try index.checkExpandedSize(in: bytes, limit: options.maxExpandedNodeCount)
                return try LibplistBridge.parseBinary(bytes)
            }
        case .xmlPlist:
            return try LibplistBridge.parseXML(bytes, options: options)
        case nil:
            throw ArchiveError(.notPropertyList, "the data starts with neither bplist00 nor an XML plist header")
        }
    }

    /// This value as a binary property list, written in one sizing pass and one fill of a preallocated buffer,
    /// with strings, numbers, dates, data and UIDs uniqued as CoreFoundation does.
    ///
    /// Writes any depth without using the call stack; a value nested deeper than a reader's
    /// ``ArchiveReadingOptions/depthLimit`` does not read back. For values built from untrusted input, use
    /// ``binaryPropertyList(readableWith:)``, which refuses them.
    public func binaryPropertyList() -> [UInt8] {
        BPlistWriter.write(self)
    }

    /// This value as a binary property list, refusing what a reader with `options` would refuse: containers
    /// nested deeper than ``ArchiveReadingOptions/depthLimit`` throw
    /// ``ArchiveError/Code-swift.struct/depthLimitExceeded`` naming the limit.
    public func binaryPropertyList(readableWith options: ArchiveReadingOptions) throws(ArchiveError) -> [UInt8] {
        try BPlistWriter.write(self, depthLimit: options.containerDepthLimit)
    }

    /// This value as an XML property list (through libplist), with UIDs as `CF$UID` dictionaries. Refuses,
    /// as the default reader does, containers nested deeper than ``ArchiveReadingOptions/depthLimit``.
    public func xmlPropertyList() throws(ArchiveError) -> [UInt8] {
        try xmlPropertyList(readableWith: ArchiveReadingOptions())
    }

    /// This value as an XML property list, refusing containers nested deeper than `options` allow (and
    /// than libplist's writer takes) with ``ArchiveError/Code-swift.struct/depthLimitExceeded``.
    public func xmlPropertyList(readableWith options: ArchiveReadingOptions) throws(ArchiveError) -> [UInt8] {
        try checkNesting(within: options.containerDepthLimit)
        return try LibplistBridge.xmlData(self)
    }
}
