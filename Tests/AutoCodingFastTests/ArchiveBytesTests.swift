import Testing

@testable import AutoCodingFast

/// Readers hold the caller's array instead of copying it (``ArchiveBytes/init(holding:)``): what the caller
/// does with their array afterwards must not reach a reader.
@Suite("Archive bytes")
struct ArchiveBytesTests {
    @Test func theReadersPointIntoTheCallersArrayWithoutCopyingIt() throws {
        let bytes = LazyKeyedArchiveTests.items().binaryPlist()
        let storage = try ArchiveBytes.binaryPlist(from: bytes, options: .init())
        bytes.withUnsafeBytes { #expect($0.baseAddress == storage.raw.baseAddress) }
        #expect(!storage.isMapped)
    }

    @Test func writingToTheCallersArrayAfterOpeningChangesNothingRead() throws {
        var bytes = LazyKeyedArchiveTests.items().binaryPlist()
        let lazy = try LazyKeyedArchive(bytes: bytes)
        let view = try KeyedArchiveView(bytes: bytes)
        // The caller overwrites every byte of their array: copy on write gives them new storage.
        for i in bytes.indices { bytes[i] = 0 }
        #expect(try lazy.entry(ArchiveUID(140)) == .string("item 38"))
        #expect(try lazy.field("n", of: ArchiveUID(40)) == .integer(38))
        #expect(try view.keyedArchive() == LazyKeyedArchiveTests.items())
    }

    @Test func aReaderKeepsTheBytesAliveAfterTheCallersArrayIsGone() throws {
        var lazy: LazyKeyedArchive?
        do {
            let bytes = LazyKeyedArchiveTests.items().binaryPlist()
            lazy = try LazyKeyedArchive(bytes: bytes)
        }
        #expect(try lazy?.entry(ArchiveUID(141)) == .string("item 39"))
    }

    /// Records keep payload offsets in 32 bits, so the trailer refuses longer inputs before reading a byte of
    /// them (the buffer below claims 5 GiB over 16 real bytes: nothing past the length may be read).
    @Test func binaryPlistsPast4GiBAreRefusedBeforeAnyByteIsRead() throws {
        var options = ArchiveReadingOptions()
        options.maxInputBytes = Int.max
        let real = [UInt8](repeating: 0, count: 16)
        try real.withUnsafeBytes { bytes in
            let claimed = UnsafeRawBufferPointer(start: bytes.baseAddress, count: 5 << 30)
            let error = try #require(throws: ArchiveError.self) { try BPlistTrailer(parsing: claimed, options: options) }
            #expect(error.code == .limitExceeded)
            #expect(error.reason.contains("exceeds the 4294967295 bytes binary plists are read up to"))
        }
        #expect(MemoryLayout<BPlistIndex.Record>.stride == 12)
    }
}
