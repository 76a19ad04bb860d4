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
}
