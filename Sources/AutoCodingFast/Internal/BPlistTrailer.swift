/// The 32-byte trailer of a binary property list, validated.
///
/// Every guard on the trailer lives here, so that the rest of the reader can trust its numbers:
/// widths are 1...8, the object count is within the options' limit, the top object exists, and the offset
/// table lies wholly between the 8-byte header and the trailer. `package` so that the tests' support module
/// reads the trailers of the plists the writer makes with this same parser.
package struct BPlistTrailer: Sendable, Hashable {
    package static let size = 32
    package static let magic: [UInt8] = Array("bplist00".utf8)

    /// Width of each offset-table entry.
    package var offsetIntSize: Int
    /// Width of each object reference inside arrays and dictionaries.
    package var objectRefSize: Int
    /// Number of objects (and of offset-table entries).
    package var objectCount: Int
    /// The object number of the root value.
    package var topObject: Int
    /// Where the offset table starts; objects live in `8..<offsetTableOffset`.
    package var offsetTableOffset: Int

    package init(parsing bytes: UnsafeRawBufferPointer, options: ArchiveReadingOptions) throws(ArchiveError) {
        let length = bytes.count
        guard length <= options.maxInputBytes else {
            throw ArchiveError(.limitExceeded, "input of \(length) bytes exceeds maxInputBytes \(options.maxInputBytes)")
        }
        // The record tables keep offsets in 32 bits (``BPlistIndex/Record``).
        guard length <= Int(UInt32.max) else {
            throw ArchiveError(
                .limitExceeded, "input of \(length) bytes exceeds the \(UInt32.max) bytes binary plists are read up to")
        }
        guard length >= 8, BPlistTrailer.magic.withUnsafeBytes({ $0.elementsEqual(bytes.prefix(8)) }) else {
            throw ArchiveError(.notPropertyList, "missing the bplist00 header")
        }
        // Header, one object byte, one offset byte, trailer.
        guard length >= 8 + 1 + 1 + BPlistTrailer.size else {
            throw ArchiveError.truncated("the 32-byte trailer", at: max(0, length - BPlistTrailer.size))
        }
        let t = length - BPlistTrailer.size
        offsetIntSize = Int(bytes[t + 6])
        objectRefSize = Int(bytes[t + 7])
        let count = BPlistBytes.readUInt(bytes, at: t + 8, width: 8)
        let top = BPlistBytes.readUInt(bytes, at: t + 16, width: 8)
        let tableOffset = BPlistBytes.readUInt(bytes, at: t + 24, width: 8)

        guard (1...8).contains(offsetIntSize) else {
            throw ArchiveError(.corruptTrailer, "offset width \(offsetIntSize) is not 1...8")
        }
        guard (1...8).contains(objectRefSize) else {
            throw ArchiveError(.corruptTrailer, "object reference width \(objectRefSize) is not 1...8")
        }
        guard count >= 1 else { throw ArchiveError(.corruptTrailer, "the trailer declares no objects") }
        guard count <= UInt64(clamping: options.maxObjectCount) else {
            throw ArchiveError(
                .limitExceeded, "the trailer declares \(count) objects, above maxObjectCount \(options.maxObjectCount)")
        }
        // A reference must be able to name every object (CoreFoundation applies the same rule).
        guard objectRefSize == 8 || count < (1 as UInt64) << (8 * UInt64(objectRefSize)) else {
            throw ArchiveError(
                .corruptTrailer, "\(count) objects cannot be referenced with \(objectRefSize)-byte references")
        }
        guard top < count else {
            throw ArchiveError(.corruptTrailer, "top object \(top) ≥ object count \(count)")
        }
        guard tableOffset >= 9, tableOffset < UInt64(t) else {
            throw ArchiveError(.corruptTrailer, "offset table at \(tableOffset) is outside 9..<\(t)")
        }
        // Checked: a caller may raise maxObjectCount to anything, and the count is the file's to choose.
        let (tableBytes, overflow) = count.multipliedReportingOverflow(by: UInt64(offsetIntSize))
        guard !overflow, tableBytes <= UInt64(t) - tableOffset else {
            throw ArchiveError.truncated("the offset table of \(count) entries", at: Int(tableOffset))
        }
        objectCount = Int(count)
        topObject = Int(top)
        offsetTableOffset = Int(tableOffset)
    }

    package init(offsetIntSize: Int, objectRefSize: Int, objectCount: Int, topObject: Int, offsetTableOffset: Int) {
        self.offsetIntSize = offsetIntSize
        self.objectRefSize = objectRefSize
        self.objectCount = objectCount
        self.topObject = topObject
        self.offsetTableOffset = offsetTableOffset
    }
}
