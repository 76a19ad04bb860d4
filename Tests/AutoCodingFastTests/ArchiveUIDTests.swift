import Testing
import _AutoCodingTestSupport

@testable import AutoCodingFast

@Suite("ArchiveUID")
struct ArchiveUIDTests {
    // MARK: Value

    @Test func nullIsZero() {
        #expect(ArchiveUID.null.rawValue == 0)
        #expect(ArchiveUID.null.isNull)
        #expect(!ArchiveUID(1).isNull)
        #expect(ArchiveUID(rawValue: 0) == .null)
    }

    @Test func indexesDescribesAndOrdersByItsRawValue() {
        #expect(ArchiveUID(42).index == 42)
        #expect(ArchiveUID(UInt32.max).index == 4_294_967_295)
        #expect(ArchiveUID(7).description == "#7")
        #expect(ArchiveUID(3) < ArchiveUID(4))
        #expect([ArchiveUID(9), ArchiveUID(2), .null].sorted() == [.null, ArchiveUID(2), ArchiveUID(9)])
        #expect(Set([ArchiveUID(5), ArchiveUID(5), ArchiveUID(6)]).count == 2)
    }

    // MARK: Encoding

    @Test(
        arguments: [
            (0, [0x80, 0x00]),
            (255, [0x80, 0xFF]),
            (256, [0x81, 0x01, 0x00]),
            (65_535, [0x81, 0xFF, 0xFF]),
            (65_536, [0x83, 0x00, 0x01, 0x00, 0x00]),  // no 3-byte form: the next width is 4
            (UInt32.max, [0x83, 0xFF, 0xFF, 0xFF, 0xFF]),
        ] as [(UInt32, [UInt8])]
    )
    func encodesWithTheSmallestWidth(raw: UInt32, expected: [UInt8]) throws {
        let bytes = ArchiveValue.uid(ArchiveUID(raw)).binaryPropertyList()
        // A single-object plist: the object starts right after the 8-byte header.
        #expect(Array(bytes[8..<8 + expected.count]) == expected)
        #expect(try BPlistTrailer(bytes).offsetTableOffset == 8 + expected.count)
        #expect(try ArchiveValue(propertyList: bytes) == .uid(ArchiveUID(raw)))
    }

    @Test func readsAThreeByteUID() throws {
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
            0x82, 0x01, 0x02, 0x03,  // object 0 @8: 3-byte UID 0x010203
            0x08,  // offset table @12: object 0 at 8
            0, 0, 0, 0, 0, 0,  // trailer: unused
            1, 1,  // offset width 1, reference width 1
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 12,  // offset table at 12
        ]
        #expect(try ArchiveValue(propertyList: bytes) == .uid(ArchiveUID(0x01_0203)))
    }

    // MARK: Out of range

    @Test func lookingUpAUIDBeyondTheObjectsGivesNil() {
        let archive = KeyedArchive(top: ["root": .uid(ArchiveUID(1))], objects: [.string("$null"), .string("x")])
        #expect(archive[ArchiveUID(1)] == .string("x"))
        #expect(archive[ArchiveUID(2)] == nil)
        #expect(archive[ArchiveUID(.max)] == nil)
        #expect(archive.archiveClass(of: ArchiveUID(.max)) == nil)
    }

    @Test func validationRejectsAUIDEqualToTheObjectCount() {
        let archive = KeyedArchive(top: ["root": .uid(ArchiveUID(2))], objects: [.string("$null"), .string("x")])
        let error = #expect(throws: ArchiveError.self) { try archive.validate() }
        #expect(error?.code == .invalidUID)
        #expect(error?.reason.contains("UID 2") == true)
        #expect(throws: Never.self) {
            try KeyedArchive(top: ["root": .uid(ArchiveUID(1))], objects: [.string("$null"), .string("x")]).validate()
        }
    }
}
