import Foundation
import OrderedCollections
import Testing

@testable import AutoCodingFast

/// Hand-built corrupt inputs, each mapped to its error code and to the offset, object or UID its reason names.
///
/// Binary plists are written out byte by byte: the `bplist00` header, the objects (with their offsets), the
/// offset table, and the 32-byte trailer (6 unused bytes, offset width, reference width, object count, top
/// object, offset-table offset; the last three are big-endian 8-byte integers).
@Suite("Malformed archives")
struct MalformedArchiveTests {
    // MARK: Helpers

    /// Expects reading `bytes` as a property list to throw `code`, with both backends (the native validator
    /// runs first for both), and the reason to contain every fragment.
    func expectError(
        _ code: ArchiveError.Code,
        reading bytes: [UInt8],
        mentioning fragments: String...,
        options: ArchiveReadingOptions = .init(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for backend in ArchiveReadingOptions.Backend.allCases {
            var options = options
            options.backend = backend
            let error = #expect(throws: ArchiveError.self, "\(backend) backend", sourceLocation: sourceLocation) {
                try ArchiveValue(propertyList: bytes, options: options)
            }
            #expect(
                error?.code == code,
                "\(backend) backend: \(error.map(String.init(describing:)) ?? "")",
                sourceLocation: sourceLocation
            )
            for fragment in fragments {
                #expect(
                    error?.reason.contains(fragment) == true,
                    "\(backend) backend: reason \"\(error?.reason ?? "")\" should mention \"\(fragment)\"",
                    sourceLocation: sourceLocation
                )
            }
        }
    }

    /// Expects reading `value` as a keyed archive to throw `code` with a reason containing every fragment,
    /// both from the value and from its bytes (binary, then XML).
    func expectArchiveError(
        _ code: ArchiveError.Code,
        in value: ArchiveValue,
        mentioning fragments: String...,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let fromValue = #expect(throws: ArchiveError.self, sourceLocation: sourceLocation) {
            try KeyedArchive(propertyList: value)
        }
        let binary = value.binaryPropertyList()
        let fromBinary = #expect(throws: ArchiveError.self, sourceLocation: sourceLocation) {
            try KeyedArchive(bytes: binary)
        }
        let xml = try value.xmlPropertyList()
        let fromXML = #expect(throws: ArchiveError.self, sourceLocation: sourceLocation) {
            try KeyedArchive(bytes: xml)
        }
        for (source, error) in [("value", fromValue), ("binary", fromBinary), ("XML", fromXML)] {
            #expect(
                error?.code == code,
                "\(source): \(error.map(String.init(describing:)) ?? "")",
                sourceLocation: sourceLocation
            )
            for fragment in fragments {
                #expect(
                    error?.reason.contains(fragment) == true,
                    "\(source): reason \"\(error?.reason ?? "")\" should mention \"\(fragment)\"",
                    sourceLocation: sourceLocation
                )
            }
        }
    }

    /// A keyed archive's root dictionary with the given parts; nil parts are left out.
    static func archive(
        archiver: ArchiveValue? = .string("NSKeyedArchiver"),
        version: ArchiveValue? = .integer(100_000),
        top: ArchiveValue? = .dictionary(["root": .uid(ArchiveUID(1))]),
        objects: ArchiveValue?
    ) -> ArchiveValue {
        var root = OrderedDictionary<String, ArchiveValue>()
        if let archiver { root[ArchiveKey.archiver] = archiver }
        if let version { root[ArchiveKey.version] = version }
        if let top { root[ArchiveKey.top] = top }
        if let objects { root[ArchiveKey.objects] = objects }
        return .dictionary(root)
    }

    static let stringDescriptor: ArchiveValue = ArchiveClass(name: "NSString", chain: ["NSString", "NSObject"])
        .descriptor

    // MARK: Not a property list

    @Test(arguments: [
        [] as [UInt8],  // empty input
        Array("hello, world".utf8),  // text
        Array("{\"json\": true}".utf8),  // JSON
        Array("bplist0".utf8),  // 7 bytes of the magic
        Array("bplist01".utf8) + [UInt8](repeating: 0, count: 40),  // unknown version
        [0xFE, 0xFF, 0x00, 0x3C],  // UTF-16 byte-order mark, then "<"
    ])
    func rejectsBytesThatAreNoPropertyList(bytes: [UInt8]) {
        expectError(.notPropertyList, reading: bytes)
    }

    @Test func rejectsAnXMLTagWithoutItsClosingBracket() {
        expectError(
            .notPropertyList,
            reading: Array("<?xml version=\"1.0\"?><plist><array".utf8),
            mentioning: "line 1, column 29"
        )
    }

    /// A closing tag that does not match is found before libplist, which would not say where.
    @Test func namesTheLineAndColumnOfAMismatchedClosingTag() {
        expectError(
            .notPropertyList,
            reading: Array("<plist><array></dict></plist>".utf8),
            mentioning: "closing tag </dict> at line 1, column 15 does not match <array> at line 1, column 8"
        )
        expectError(
            .notPropertyList,
            reading: Array("<?xml version=\"1.0\"?>\n<plist>\n<dict>\n  <key>a</key>\n  <integer>1</intger>\n</dict>\n</plist>".utf8),
            mentioning: "closing tag </intger> at line 5, column 13 does not match <integer> at line 5, column 3"
        )
    }

    @Test func reportsXMLThatLibplistCannotParseAsALibplistFailure() {
        expectError(.libplistFailure, reading: Array("<plist><foo/></plist>".utf8))
        expectError(.libplistFailure, reading: Array("<plist><dict><string>no key</string></dict></plist>".utf8))
    }

    @Test(arguments: [
        "<plist><integer>abc</integer></plist>",
        "<plist><real>x</real></plist>",
        "<plist><date>yesterday</date></plist>",
        "<plist><data>!!!</data></plist>",
    ])
    func rejectsXMLScalarsWhoseTextIsNotTheirType(xml: String) {
        #expect(throws: ArchiveError.self) { try ArchiveValue(propertyList: Array(xml.utf8)) }
    }

    // MARK: Truncation

    @Test func rejectsAFileThatEndsAfterTheHeader() {
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00", and nothing more
        ]
        expectError(.truncated, reading: bytes, mentioning: "trailer", "offset 0")
    }

    @Test func rejectsATruncatedTrailer() {
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
            0x09,  // object 0 @8: true
            0x08,  // offset table @9: object 0 at 8
            0, 0, 0, 0, 0, 0,  // trailer: unused
            1, 1,  // offset width 1, reference width 1
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0,  // offset-table offset: cut after 4 of its 8 bytes
        ]
        expectError(.truncated, reading: bytes, mentioning: "trailer", "offset 6")
    }

    @Test func readsTheUntruncatedFileOfTheTruncationTests() throws {
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
            0x09,  // object 0 @8: true
            0x08,  // offset table @9: object 0 at 8
            0, 0, 0, 0, 0, 0,  // trailer: unused
            1, 1,  // offset width 1, reference width 1
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 9,  // offset table at 9
        ]
        #expect(try ArchiveValue(propertyList: bytes) == .bool(true))
    }

    @Test func rejectsAnObjectWhosePayloadRunsIntoTheOffsetTable() {
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
            0x13, 0x00, 0x00, 0x00,  // object 0 @8: 8-byte integer with only 3 payload bytes before the table
            0x08,  // offset table @12: object 0 at 8
            0, 0, 0, 0, 0, 0,  // trailer: unused
            1, 1,  // offset width 1, reference width 1
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 12,  // offset table at 12
        ]
        expectError(.truncated, reading: bytes, mentioning: "object 0", "offset 8")
    }

    // MARK: Trailer

    @Test(arguments: [0, 9] as [UInt8])
    func rejectsAnOffsetWidthOutsideOneToEight(width: UInt8) {
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
            0x08,  // object 0 @8: false
            0x08,  // offset table @9: object 0 at 8
            0, 0, 0, 0, 0, 0,  // trailer: unused
            width, 1,  // offset width 0 or 9, reference width 1
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 9,  // offset table at 9
        ]
        expectError(.corruptTrailer, reading: bytes, mentioning: "offset width \(width)")
    }

    @Test(arguments: [0, 9] as [UInt8])
    func rejectsAReferenceWidthOutsideOneToEight(width: UInt8) {
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
            0x08,  // object 0 @8: false
            0x08,  // offset table @9: object 0 at 8
            0, 0, 0, 0, 0, 0,  // trailer: unused
            1, width,  // offset width 1, reference width 0 or 9
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 9,  // offset table at 9
        ]
        expectError(.corruptTrailer, reading: bytes, mentioning: "reference width \(width)")
    }

    @Test func rejectsAReferenceWidthTooSmallForTheObjectCount() {
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
            0x08,  // object 0 @8: false
            0x08,  // offset table @9: object 0 at 8
            0, 0, 0, 0, 0, 0,  // trailer: unused
            1, 1,  // offset width 1, reference width 1: names objects 0...255 only
            0, 0, 0, 0, 0, 0, 1, 0,  // 256 objects
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 9,  // offset table at 9
        ]
        expectError(.corruptTrailer, reading: bytes, mentioning: "256 objects", "1-byte references")
    }

    @Test func rejectsAZeroObjectCount() {
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
            0x08,  // object 0 @8: false
            0x08,  // offset table @9
            0, 0, 0, 0, 0, 0,  // trailer: unused
            1, 1,  // offset width 1, reference width 1
            0, 0, 0, 0, 0, 0, 0, 0,  // 0 objects
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 9,  // offset table at 9
        ]
        expectError(.corruptTrailer, reading: bytes, mentioning: "no objects")
    }

    @Test func rejectsATopObjectBeyondTheObjectCount() {
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
            0x08,  // object 0 @8: false
            0x08,  // offset table @9: object 0 at 8
            0, 0, 0, 0, 0, 0,  // trailer: unused
            1, 1,  // offset width 1, reference width 1
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 1,  // top object 1: there is only object 0
            0, 0, 0, 0, 0, 0, 0, 9,  // offset table at 9
        ]
        expectError(.corruptTrailer, reading: bytes, mentioning: "top object 1", "object count 1")
    }

    @Test func rejectsAnOffsetTableThatStartsInsideTheTrailer() {
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
            0x08,  // object 0 @8: false
            0x08,  // offset table @9: object 0 at 8
            0, 0, 0, 0, 0, 0,  // trailer @10: unused
            1, 1,  // offset width 1, reference width 1
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 20,  // offset table at 20: inside the trailer
        ]
        expectError(.corruptTrailer, reading: bytes, mentioning: "offset table at 20")
    }

    @Test func rejectsAnOffsetTableThatStartsInTheHeader() {
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
            0x08,  // object 0 @8: false
            0x08,  // offset table @9: object 0 at 8
            0, 0, 0, 0, 0, 0,  // trailer: unused
            1, 1,  // offset width 1, reference width 1
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 2,  // offset table at 2: inside "bplist00"
        ]
        expectError(.corruptTrailer, reading: bytes, mentioning: "offset table at 2")
    }

    @Test func rejectsAnOffsetTableThatRunsIntoTheTrailer() {
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
            0x08,  // object 0 @8: false
            0x08,  // offset table @9: 1 of the 2 declared entries fits before the trailer
            0, 0, 0, 0, 0, 0,  // trailer @10: unused
            1, 1,  // offset width 1, reference width 1
            0, 0, 0, 0, 0, 0, 0, 2,  // 2 objects
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 9,  // offset table at 9
        ]
        expectError(.truncated, reading: bytes, mentioning: "2 entries", "offset 9")
    }

    @Test func rejectsAnObjectCountAboveTheOption() throws {
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
            0xA1, 0x01,  // object 0 @8: array [object 1]
            0x09,  // object 1 @10: true
            0x08, 0x0A,  // offset table @11: objects at 8, 10
            0, 0, 0, 0, 0, 0,  // trailer: unused
            1, 1,  // offset width 1, reference width 1
            0, 0, 0, 0, 0, 0, 0, 2,  // 2 objects
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 11,  // offset table at 11
        ]
        var options = ArchiveReadingOptions()
        options.maxObjectCount = 1
        expectError(.limitExceeded, reading: bytes, mentioning: "2 objects", options: options)
        options.maxObjectCount = 2
        #expect(try ArchiveValue(propertyList: bytes, options: options) == .array([.bool(true)]))
    }

    @Test func rejectsInputAboveMaxInputBytes() {
        var options = ArchiveReadingOptions()
        options.maxInputBytes = 41
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
            0x09,  // object 0 @8: true
            0x08,  // offset table @9: object 0 at 8
            0, 0, 0, 0, 0, 0,  // trailer: unused
            1, 1,  // offset width 1, reference width 1
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 9,  // offset table at 9 (42 bytes in all)
        ]
        expectError(.limitExceeded, reading: bytes, mentioning: "42 bytes", options: options)
        expectError(
            .limitExceeded,
            reading: Array("<plist><true/></plist>".utf8) + [UInt8](repeating: 0x20, count: 30),
            options: options
        )
    }

    // MARK: Offsets

    @Test func rejectsAnOffsetIntoTheHeader() {
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
            0x08,  // object 0 @8: false
            0x03,  // offset table @9: object 0 at 3, inside "bplist00"
            0, 0, 0, 0, 0, 0,  // trailer: unused
            1, 1,  // offset width 1, reference width 1
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 9,  // offset table at 9
        ]
        expectError(.invalidOffset, reading: bytes, mentioning: "object 0", "offset 3")
    }

    @Test func rejectsAnOffsetIntoTheOffsetTable() {
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
            0x08,  // object 0 @8: false
            0x08,  // object 1 @9: false
            0x08, 0x0A,  // offset table @10: object 0 at 8, object 1 at 10 (the table itself)
            0, 0, 0, 0, 0, 0,  // trailer: unused
            1, 1,  // offset width 1, reference width 1
            0, 0, 0, 0, 0, 0, 0, 2,  // 2 objects
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 10,  // offset table at 10
        ]
        expectError(.invalidOffset, reading: bytes, mentioning: "object 1", "offset 10")
    }

    @Test func rejectsAnOffsetBeyondTheFile() {
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
            0x08,  // object 0 @8: false
            0x00, 0x00, 0x10, 0x00,  // offset table @9: object 0 at 4096 (4-byte entry)
            0, 0, 0, 0, 0, 0,  // trailer: unused
            4, 1,  // offset width 4, reference width 1
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 9,  // offset table at 9
        ]
        expectError(.invalidOffset, reading: bytes, mentioning: "object 0", "offset 4096")
    }

    // MARK: Widths and short strings (the validator reads each width and short tails with their own loads)

    /// A plist of an ASCII string (object 0) and an array holding it (object 1, the top), with `offsetWidth`-byte
    /// offsets and `refWidth`-byte references; the array's marker (0xA1) has its high bit set, right after the
    /// string's last byte.
    static func stringInArray(_ string: [UInt8], offsetWidth: Int, refWidth: Int, reference: UInt64 = 0) -> [UInt8] {
        func bigEndian(_ value: UInt64, _ width: Int) -> [UInt8] {
            (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(width - 1 - $0))) }
        }
        var bytes = Array("bplist00".utf8)
        let stringOffset = bytes.count
        bytes += (string.count < 15 ? [0x50 | UInt8(string.count)] : [0x5F, 0x10, UInt8(string.count)]) + string
        let arrayOffset = bytes.count
        bytes += [0xA1] + bigEndian(reference, refWidth)
        let tableOffset = bytes.count
        bytes += bigEndian(UInt64(stringOffset), offsetWidth) + bigEndian(UInt64(arrayOffset), offsetWidth)
        bytes += [0, 0, 0, 0, 0, 0, UInt8(offsetWidth), UInt8(refWidth)]
        bytes += bigEndian(2, 8) + bigEndian(1, 8) + bigEndian(UInt64(tableOffset), 8)
        return bytes
    }

    @Test(arguments: 1...8)
    func readsEveryOffsetAndReferenceWidth(width: Int) throws {
        for (offsetWidth, refWidth) in [(width, width), (width, 1), (1, width)] {
            let bytes = Self.stringInArray(Array("ab".utf8), offsetWidth: offsetWidth, refWidth: refWidth)
            #expect(try ArchiveValue(propertyList: bytes) == .array([.string("ab")]), "offsets \(offsetWidth), refs \(refWidth)")
            // The largest reference of the width, past the two objects.
            let beyond = refWidth == 8 ? UInt64.max : (1 << UInt64(8 * refWidth)) - 1
            expectError(
                .invalidReference,
                reading: Self.stringInArray(Array("ab".utf8), offsetWidth: offsetWidth, refWidth: refWidth, reference: beyond),
                mentioning: "object 1")
        }
    }

    @Test(arguments: 1...17)
    func checksEveryByteOfAnASCIIStringAndNoByteAfterIt(length: Int) throws {
        let plain = [UInt8](repeating: 0x61, count: length)
        #expect(try ArchiveValue(propertyList: Self.stringInArray(plain, offsetWidth: 1, refWidth: 1))
            == .array([.string(String(repeating: "a", count: length))]))
        for position in 0..<length {
            var bad = plain
            bad[position] = 0xE9
            expectError(
                .invalidObject, reading: Self.stringInArray(bad, offsetWidth: 1, refWidth: 1), mentioning: "above 0x7F")
        }
    }

    // MARK: References

    @Test func rejectsAReferenceBeyondTheObjectTable() {
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
            0xA1, 0x05,  // object 0 @8: array [object 5]; there is 1 object
            0x08,  // offset table @10: object 0 at 8
            0, 0, 0, 0, 0, 0,  // trailer: unused
            1, 1,  // offset width 1, reference width 1
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 10,  // offset table at 10
        ]
        expectError(.invalidReference, reading: bytes, mentioning: "object 0", "object 5")
    }

    @Test func rejectsAnArrayThatContainsItself() {
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
            0xA1, 0x00,  // object 0 @8: array [object 0]
            0x08,  // offset table @10: object 0 at 8
            0, 0, 0, 0, 0, 0,  // trailer: unused
            1, 1,  // offset width 1, reference width 1
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 10,  // offset table at 10
        ]
        expectError(.referenceCycle, reading: bytes, mentioning: "object 0")
    }

    @Test func rejectsTwoArraysThatContainEachOther() {
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
            0xA1, 0x01,  // object 0 @8: array [object 1]
            0xA1, 0x00,  // object 1 @10: array [object 0]
            0x08, 0x0A,  // offset table @12: objects at 8, 10
            0, 0, 0, 0, 0, 0,  // trailer: unused
            1, 1,  // offset width 1, reference width 1
            0, 0, 0, 0, 0, 0, 0, 2,  // 2 objects
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 12,  // offset table at 12
        ]
        expectError(.referenceCycle, reading: bytes, mentioning: "object 0", "object 1")
    }

    @Test func rejectsADictionaryThatContainsItselfAsAValue() {
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
            0xD1, 0x01, 0x00,  // object 0 @8: dictionary {object 1: object 0}
            0x51, 0x6B,  // object 1 @11: "k"
            0x08, 0x0B,  // offset table @13: objects at 8, 11
            0, 0, 0, 0, 0, 0,  // trailer: unused
            1, 1,  // offset width 1, reference width 1
            0, 0, 0, 0, 0, 0, 0, 2,  // 2 objects
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 13,  // offset table at 13
        ]
        expectError(.referenceCycle, reading: bytes, mentioning: "object 0")
    }

    @Test func rejectsACycleThatTheTopObjectDoesNotReach() {
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
            0x09,  // object 0 @8: true (the top object)
            0xA1, 0x01,  // object 1 @9: array [object 1], unreachable from the top
            0x08, 0x09,  // offset table @11: objects at 8, 9
            0, 0, 0, 0, 0, 0,  // trailer: unused
            1, 1,  // offset width 1, reference width 1
            0, 0, 0, 0, 0, 0, 0, 2,  // 2 objects
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 11,  // offset table at 11
        ]
        expectError(.referenceCycle, reading: bytes, mentioning: "object 1")
    }

    // MARK: Depth and expansion

    /// `levels` arrays, each holding the next once (`fanOut` 1) or twice (2); the last is empty. References
    /// and offsets are 4 bytes wide.
    static func nestedArrays(levels: Int, fanOut: Int) -> [UInt8] {
        var bytes: [UInt8] = Array("bplist00".utf8)
        bytes.reserveCapacity(levels * (1 + 4 * fanOut + 4) + 40)
        var offsets: [Int] = []
        offsets.reserveCapacity(levels)
        func append32(_ value: Int) {
            bytes += [
                UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF),
            ]
        }
        for level in 0..<levels {
            offsets.append(bytes.count)
            if level == levels - 1 {
                bytes.append(0xA0)  // the innermost array is empty
            } else {
                bytes.append(0xA0 | UInt8(fanOut))  // array of fanOut references, all to the next level
                for _ in 0..<fanOut { append32(level + 1) }
            }
        }
        let tableOffset = bytes.count
        for offset in offsets { append32(offset) }
        bytes += [0, 0, 0, 0, 0, 0]  // trailer: unused
        bytes += [4, 4]  // offset width 4, reference width 4
        for field in [levels, 0, tableOffset] {  // object count, top object 0, offset-table offset
            bytes += (0..<8).map { UInt8(truncatingIfNeeded: field >> (56 - 8 * $0)) }
        }
        return bytes
    }

    @Test(.timeLimit(.minutes(1)))
    func rejectsAMillionNestedArraysWithoutRecursing() {
        let bytes = Self.nestedArrays(levels: 1_000_000, fanOut: 1)
        expectError(.depthLimitExceeded, reading: bytes, mentioning: "512")
    }

    @Test func acceptsNestingUpToTheDepthLimitAndNoDeeper() throws {
        var options = ArchiveReadingOptions()
        options.depthLimit = 10
        let ten = try ArchiveValue(propertyList: Self.nestedArrays(levels: 10, fanOut: 1), options: options)
        var depth = 0
        var node = ten
        while case .array(let elements) = node {
            depth += 1
            node = elements.first ?? .bool(false)
        }
        #expect(depth == 10)
        expectError(
            .depthLimitExceeded,
            reading: Self.nestedArrays(levels: 11, fanOut: 1),
            mentioning: "10",
            options: options
        )
    }

    @Test(.timeLimit(.minutes(1)))
    func rejectsAMillionNestedXMLArrays() {
        let xml =
            Array("<plist>".utf8) + Array(repeating: Array("<array>".utf8), count: 1_000_000).joined()
            + Array(repeating: Array("</array>".utf8), count: 1_000_000).joined() + Array("</plist>".utf8)
        expectError(.depthLimitExceeded, reading: xml, mentioning: "512")
    }

    /// Whether the first two elements of an array value share one storage buffer (a shared reference read
    /// once) rather than being two copies.
    static func firstTwoElementsShareStorage(_ value: ArchiveValue) -> Bool {
        guard case .array(let elements) = value, elements.count == 2,
            case .array(let a) = elements[0], case .array(let b) = elements[1], !a.isEmpty
        else { return false }
        return a.withUnsafeBufferPointer { $0.baseAddress } == b.withUnsafeBufferPointer { $0.baseAddress }
    }

    /// 30 arrays, each referring twice to the next: a ~270-byte file whose tree, copied out, has 2³¹ nodes.
    /// With the expansion limit lifted, the native reader builds each array once and shares it.
    @Test(.timeLimit(.minutes(1)))
    func readsTheSharedReferenceBombNativelyWithoutCopyingSharedArrays() throws {
        var unlimited = ArchiveReadingOptions()
        unlimited.maxExpandedNodeCount = .max
        unlimited.maxExpandedNodesPerInputByte = .max
        // A reader that copies shared containers would need 2^30 arrays for the 30-level file and exhaust
        // memory, so check the 12-level one first and stop there if it is copied.
        let small = try ArchiveValue(propertyList: Self.nestedArrays(levels: 12, fanOut: 2), options: unlimited)
        try #require(
            Self.firstTwoElementsShareStorage(small),
            "the native reader builds a separate copy of a container for each reference to it"
        )

        let value = try ArchiveValue(propertyList: Self.nestedArrays(levels: 30, fanOut: 2), options: unlimited)
        // Levels 0...27 hold two references to a non-empty array; level 28 holds two empty ones.
        var node = value
        for _ in 0..<28 {
            #expect(Self.firstTwoElementsShareStorage(node))
            guard case .array(let elements) = node else { break }
            node = elements[0]
        }
        #expect(node == .array([.array([]), .array([])]))
    }

    /// With the default options the native reader also refuses the bomb: it could build the tree cheaply, but
    /// anything that walks the tree (a writer, `==`) would pay for 2³¹ nodes.
    @Test func rejectsTheSharedReferenceBombNativelyByDefault() {
        let bytes = Self.nestedArrays(levels: 30, fanOut: 2)
        let error = #expect(throws: ArchiveError.self) { try ArchiveValue(propertyList: bytes) }
        #expect(error?.code == .limitExceeded)
        // The input-sized budget (16 nodes per byte + 65,536) refuses it long before maxExpandedNodeCount.
        #expect(
            error?.reason.contains("\(ArchiveReadingOptions().expandedNodeLimit(forInputBytes: bytes.count)) nodes") == true,
            "\(error?.reason ?? "")"
        )
    }

    @Test func rejectsTheSharedReferenceBombWithTheLibplistBackend() {
        var options = ArchiveReadingOptions()
        options.backend = .libplist
        let bytes = Self.nestedArrays(levels: 30, fanOut: 2)
        let error = #expect(throws: ArchiveError.self) { try ArchiveValue(propertyList: bytes, options: options) }
        #expect(error?.code == .limitExceeded)
        #expect(
            error?.reason.contains("\(options.expandedNodeLimit(forInputBytes: bytes.count)) nodes") == true,
            "\(error?.reason ?? "")")
    }

    @Test func acceptsASmallSharedReferenceFanOutWithTheLibplistBackend() throws {
        // 2^11 - 1 expanded nodes: far below maxExpandedNodeCount, so libplist may copy them.
        var options = ArchiveReadingOptions()
        options.backend = .libplist
        let bytes = Self.nestedArrays(levels: 11, fanOut: 2)
        let theirs = try ArchiveValue(propertyList: bytes, options: options)
        #expect(theirs == (try ArchiveValue(propertyList: bytes)))
        options.maxExpandedNodeCount = 2047
        #expect(try ArchiveValue(propertyList: bytes, options: options) == theirs)
        options.maxExpandedNodeCount = 2046
        let error = #expect(throws: ArchiveError.self) { try ArchiveValue(propertyList: bytes, options: options) }
        #expect(error?.code == .limitExceeded)
    }

    // MARK: Lying counts

    @Test func rejectsAnArrayClaimingTwoToTheThirtyOneElements() {
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
            0xAF, 0x12, 0x80, 0x00, 0x00, 0x00,  // object 0 @8: array, count is the 4-byte int 2^31
            0x08,  // offset table @14: object 0 at 8
            0, 0, 0, 0, 0, 0,  // trailer: unused
            1, 1,  // offset width 1, reference width 1
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 14,  // offset table at 14
        ]
        expectError(.truncated, reading: bytes, mentioning: "object 0", "2147483648")
    }

    @Test func rejectsDataClaimingTwoGibibytes() {
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
            0x4F, 0x13, 0, 0, 0, 0, 0x80, 0, 0, 0,  // object 0 @8: data, length is the 8-byte int 2^31
            0xAB,  // one byte of payload
            0x08,  // offset table @19: object 0 at 8
            0, 0, 0, 0, 0, 0,  // trailer: unused
            1, 1,  // offset width 1, reference width 1
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 19,  // offset table at 19
        ]
        expectError(.truncated, reading: bytes, mentioning: "object 0", "2147483648")
    }

    @Test func rejectsANegativeEightByteLength() {
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
            0x5F, 0x13, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,  // object 0 @8: string, length -1
            0x08,  // offset table @18: object 0 at 8
            0, 0, 0, 0, 0, 0,  // trailer: unused
            1, 1,  // offset width 1, reference width 1
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 18,  // offset table at 18
        ]
        expectError(.truncated, reading: bytes, mentioning: "object 0", "18446744073709551615")
    }

    @Test func rejectsALengthMarkerThatIsNotAnInteger() {
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
            0x4F, 0x23, 0x00,  // object 0 @8: data whose length is given by a real marker
            0x08,  // offset table @11: object 0 at 8
            0, 0, 0, 0, 0, 0,  // trailer: unused
            1, 1,  // offset width 1, reference width 1
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 11,  // offset table at 11
        ]
        expectError(.invalidObject, reading: bytes, mentioning: "object 0", "offset 8", "0x23")
    }

    // MARK: Strings

    @Test func rejectsAnASCIIStringWithAByteAbove0x7F() {
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
            0x52, 0x61, 0xE9,  // object 0 @8: ASCII string of 2 bytes, "a" then 0xE9
            0x08,  // offset table @11: object 0 at 8
            0, 0, 0, 0, 0, 0,  // trailer: unused
            1, 1,  // offset width 1, reference width 1
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 11,  // offset table at 11
        ]
        expectError(.invalidObject, reading: bytes, mentioning: "object 0", "offset 8", "ASCII")
    }

    @Test func rejectsAnUnpairedHighSurrogate() {
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
            0x62, 0xD8, 0x3D, 0x00, 0x61,  // object 0 @8: UTF-16 string of 2 units: U+D83D then "a"
            0x08,  // offset table @13: object 0 at 8
            0, 0, 0, 0, 0, 0,  // trailer: unused
            1, 1,  // offset width 1, reference width 1
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 13,  // offset table at 13
        ]
        expectError(.invalidObject, reading: bytes, mentioning: "object 0", "offset 8", "unit 0")
    }

    @Test func rejectsAHighSurrogateAtTheEndOfAString() {
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
            0x62, 0x00, 0x61, 0xD8, 0x3D,  // object 0 @8: UTF-16 string of 2 units: "a" then U+D83D
            0x08,  // offset table @13: object 0 at 8
            0, 0, 0, 0, 0, 0,  // trailer: unused
            1, 1,  // offset width 1, reference width 1
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 13,  // offset table at 13
        ]
        expectError(.invalidObject, reading: bytes, mentioning: "object 0", "unit 1")
    }

    @Test func rejectsALoneLowSurrogate() {
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
            0x62, 0x00, 0x61, 0xDC, 0x00,  // object 0 @8: UTF-16 string of 2 units: "a" then U+DC00
            0x08,  // offset table @13: object 0 at 8
            0, 0, 0, 0, 0, 0,  // trailer: unused
            1, 1,  // offset width 1, reference width 1
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 13,  // offset table at 13
        ]
        expectError(.invalidObject, reading: bytes, mentioning: "object 0", "offset 8", "unit 1")
    }

    @Test func readsAValidSurrogatePair() throws {
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
            0x62, 0xD8, 0x3D, 0xDE, 0x00,  // object 0 @8: UTF-16 string of 2 units: U+1F600
            0x08,  // offset table @13: object 0 at 8
            0, 0, 0, 0, 0, 0,  // trailer: unused
            1, 1,  // offset width 1, reference width 1
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 13,  // offset table at 13
        ]
        #expect(try ArchiveValue(propertyList: bytes) == .string("😀"))
    }

    // MARK: Scalar markers

    /// A plist whose only object is `object` (at offset 8), with 1-byte widths.
    static func singleObject(_ object: [UInt8]) -> [UInt8] {
        let table = UInt8(8 + object.count)
        return [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
        ] + object + [
            0x08,  // offset table: object 0 at 8
            0, 0, 0, 0, 0, 0,  // trailer: unused
            1, 1,  // offset width 1, reference width 1
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, table,  // offset table right after the object
        ]
    }

    @Test(
        arguments: [
            ([0x10, 0x7F], .integer(127)),  // 1-byte integer
            ([0x11, 0x01, 0x00], .integer(256)),  // 2-byte integer
            ([0x12, 0x00, 0x01, 0x00, 0x00], .integer(65536)),  // 4-byte integer
            ([0x13, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE], .integer(-2)),  // 8-byte integer, negative
            // 16-byte integer, UInt64.max
            ([0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], .unsignedInteger(.max)),
            ([0x14] + [UInt8](repeating: 0xFF, count: 16), .integer(-1)),  // 16-byte, sign-extended -1
            ([0x22, 0x3F, 0xC0, 0x00, 0x00], .real(1.5)),  // 4-byte real
            ([0x23, 0x3F, 0xF8, 0, 0, 0, 0, 0, 0], .real(1.5)),  // 8-byte real
            ([0x33, 0, 0, 0, 0, 0, 0, 0, 0], .date(Date(timeIntervalSinceReferenceDate: 0))),  // date
            ([0x83, 0xFF, 0xFF, 0xFF, 0xFF], .uid(ArchiveUID(.max))),  // 4-byte UID: the widest accepted
            ([0x80, 0x07], .uid(ArchiveUID(7))),  // 1-byte UID
        ] as [([UInt8], ArchiveValue)]
    )
    func readsEveryValidScalarWidth(object: [UInt8], expected: ArchiveValue) throws {
        #expect(try ArchiveValue(propertyList: Self.singleObject(object)) == expected)
    }

    @Test(
        arguments: [
            [0x15] + [UInt8](repeating: 0, count: 32),  // 32-byte integer
            [0x16] + [UInt8](repeating: 0, count: 64),  // 64-byte integer
            [0x1F] + [UInt8](repeating: 0, count: 16),  // 2^15-byte integer
        ] as [[UInt8]]
    )
    func rejectsIntegerWidthsAboveSixteenBytes(object: [UInt8]) {
        expectError(
            .invalidObject,
            reading: Self.singleObject(object),
            mentioning: "object 0",
            "offset 8",
            "integer width"
        )
    }

    @Test func rejectsASixteenByteIntegerOutsideTheSupportedRange() {
        // High half 1: 2^64, above UInt64.max.
        let object: [UInt8] = [0x14, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]
        expectError(.invalidObject, reading: Self.singleObject(object), mentioning: "object 0", "16-byte")
    }

    @Test(
        arguments: [
            [0x20, 0x00],  // 1-byte real
            [0x21, 0x00, 0x00],  // 2-byte real
            [0x24] + [UInt8](repeating: 0, count: 16),  // 16-byte real
        ] as [[UInt8]]
    )
    func rejectsRealWidthsOtherThanFourAndEight(object: [UInt8]) {
        expectError(.invalidObject, reading: Self.singleObject(object), mentioning: "object 0", "real width")
    }

    @Test func rejectsADateMarkerOtherThan0x33() {
        let object: [UInt8] = [0x32, 0, 0, 0, 0]  // date marker with a 4-byte width
        expectError(.invalidObject, reading: Self.singleObject(object), mentioning: "object 0", "0x32")
    }

    @Test func rejectsASetMarker() {
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
            0xC1, 0x01,  // object 0 @8: set of 1: object 1
            0x09,  // object 1 @10: true
            0x08, 0x0A,  // offset table @11: objects at 8, 10
            0, 0, 0, 0, 0, 0,  // trailer: unused
            1, 1,  // offset width 1, reference width 1
            0, 0, 0, 0, 0, 0, 0, 2,  // 2 objects
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 11,  // offset table at 11
        ]
        expectError(.invalidObject, reading: bytes, mentioning: "object 0", "offset 8", "set")
    }

    @Test(arguments: [0x70, 0xF0, 0x90, 0xB0, 0xE0, 0x0C, 0x0F, 0x01] as [UInt8])
    func rejectsUnknownMarkers(marker: UInt8) {
        expectError(
            .invalidObject,
            reading: Self.singleObject([marker]),
            mentioning: "object 0",
            "unknown marker 0x\(String(marker, radix: 16))"
        )
    }

    @Test func rejectsTheNullMarkerAsAValue() {
        expectError(.unexpectedType, reading: Self.singleObject([0x00]), mentioning: "object 0")
    }

    @Test func rejectsAUIDWiderThanThirtyTwoBits() {
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
            0x87, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,  // object 0 @8: 8-byte UID 2^32
            0x08,  // offset table @17: object 0 at 8
            0, 0, 0, 0, 0, 0,  // trailer: unused
            1, 1,  // offset width 1, reference width 1
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 17,  // offset table at 17
        ]
        expectError(.invalidUID, reading: bytes, mentioning: "object 0", "UID 4294967296")
    }

    // MARK: Dictionaries

    @Test func rejectsANonStringDictionaryKey() {
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
            0xD1, 0x01, 0x02,  // object 0 @8: dictionary {object 1: object 2}
            0x10, 0x05,  // object 1 @11: integer 5, used as a key
            0x09,  // object 2 @13: true
            0x08, 0x0B, 0x0D,  // offset table @14: objects at 8, 11, 13
            0, 0, 0, 0, 0, 0,  // trailer: unused
            1, 1,  // offset width 1, reference width 1
            0, 0, 0, 0, 0, 0, 0, 3,  // 3 objects
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 14,  // offset table at 14
        ]
        expectError(.unexpectedType, reading: bytes, mentioning: "object 0", "object 1")
    }

    @Test func rejectsADuplicateDictionaryKey() {
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
            0xD2, 0x01, 0x02, 0x03, 0x03,  // object 0 @8: dictionary {object 1: object 3, object 2: object 3}
            0x51, 0x6B,  // object 1 @13: "k"
            0x51, 0x6B,  // object 2 @15: "k" again, as a separate object
            0x09,  // object 3 @17: true
            0x08, 0x0D, 0x0F, 0x11,  // offset table @18: objects at 8, 13, 15, 17
            0, 0, 0, 0, 0, 0,  // trailer: unused
            1, 1,  // offset width 1, reference width 1
            0, 0, 0, 0, 0, 0, 0, 4,  // 4 objects
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 18,  // offset table at 18
        ]
        expectError(.invalidObject, reading: bytes, mentioning: "\"k\"")
    }

    @Test func rejectsADuplicateDictionaryKeyInXML() {
        let xml = Array("<plist><dict><key>k</key><true/><key>k</key><false/></dict></plist>".utf8)
        // As in a binary plist (above): a repeated key is an error, not a silent replacement.
        let error = #expect(throws: ArchiveError.self) { try ArchiveValue(propertyList: xml) }
        #expect(error?.code == .invalidObject)
    }

    // MARK: Keyed archives

    @Test func rejectsATopUIDBeyondTheObjectTableInAHandBuiltArchive() throws {
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
            0xD4, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x09,  // object 0 @8: root dict, keys 1-4, values 5,6,7,9
            0x59, 0x24, 0x61, 0x72, 0x63, 0x68, 0x69, 0x76, 0x65, 0x72,  // object 1 @17: "$archiver"
            0x58, 0x24, 0x76, 0x65, 0x72, 0x73, 0x69, 0x6F, 0x6E,  // object 2 @27: "$version"
            0x54, 0x24, 0x74, 0x6F, 0x70,  // object 3 @36: "$top"
            0x58, 0x24, 0x6F, 0x62, 0x6A, 0x65, 0x63, 0x74, 0x73,  // object 4 @41: "$objects"
            0x5F, 0x10, 0x0F, 0x4E, 0x53, 0x4B, 0x65, 0x79, 0x65, 0x64,  // object 5 @50: "NSKeyedArchiver" ...
            0x41, 0x72, 0x63, 0x68, 0x69, 0x76, 0x65, 0x72,  // ... (length 15 as a 1-byte integer)
            0x12, 0x00, 0x01, 0x86, 0xA0,  // object 6 @68: integer 100000
            0xD1, 0x08, 0x0A,  // object 7 @73: $top, {object 8: object 10}
            0x54, 0x72, 0x6F, 0x6F, 0x74,  // object 8 @76: "root"
            0xA1, 0x0B,  // object 9 @81: $objects, [object 11]
            0x80, 0x05,  // object 10 @83: UID 5, beyond the 1 entry of $objects
            0x55, 0x24, 0x6E, 0x75, 0x6C, 0x6C,  // object 11 @85: "$null"
            8, 17, 27, 36, 41, 50, 68, 73, 76, 81, 83, 85,  // offset table @91
            0, 0, 0, 0, 0, 0,  // trailer: unused
            1, 1,  // offset width 1, reference width 1
            0, 0, 0, 0, 0, 0, 0, 12,  // 12 objects
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 91,  // offset table at 91
        ]
        // A valid property list ...
        let value = try ArchiveValue(propertyList: bytes)
        #expect(value["$top"] == .dictionary(["root": .uid(ArchiveUID(5))]))
        // ... but not a valid archive.
        let error = #expect(throws: ArchiveError.self) { try KeyedArchive(bytes: bytes) }
        #expect(error?.code == .invalidUID)
        #expect(error?.reason.contains("UID 5") == true, "\(error?.reason ?? "")")
        #expect(error?.reason.contains("root") == true, "\(error?.reason ?? "")")
    }

    @Test func rejectsAUIDBeyondTheObjectTableInsideAnObject() throws {
        let value = Self.archive(
            objects: .array([
                .string("$null"),
                .dictionary(["$class": .uid(ArchiveUID(2)), "NS.objects": .array([.uid(ArchiveUID(9))])]),
                Self.stringDescriptor,
            ])
        )
        try expectArchiveError(.invalidUID, in: value, mentioning: "object 1", "UID 9", "3")
    }

    @Test func rejectsAnArchiveWithoutObjects() throws {
        try expectArchiveError(.missingKey, in: Self.archive(objects: nil), mentioning: "$objects")
    }

    @Test func rejectsAnArchiveWithoutTop() throws {
        try expectArchiveError(
            .missingKey,
            in: Self.archive(top: nil, objects: .array([.string("$null")])),
            mentioning: "$top"
        )
    }

    @Test func rejectsAnArchiveWithoutArchiver() throws {
        try expectArchiveError(
            .missingKey,
            in: Self.archive(archiver: nil, objects: .array([.string("$null")])),
            mentioning: "$archiver"
        )
    }

    @Test func rejectsAnArchiveWithoutVersion() throws {
        try expectArchiveError(
            .missingKey,
            in: Self.archive(version: nil, objects: .array([.string("$null")])),
            mentioning: "$version"
        )
    }

    @Test func rejectsAnUnknownVersionUnlessAllowed() throws {
        let value = Self.archive(version: .integer(99_999), objects: .array([.string("$null"), .string("x")]))
        try expectArchiveError(.unsupportedVersion, in: value, mentioning: "99999")
        var options = ArchiveReadingOptions()
        options.requiresKnownVersion = false
        #expect(try KeyedArchive(propertyList: value, options: options).version == 99_999)
    }

    @Test func rejectsWronglyTypedTopLevelParts() throws {
        let objects: ArchiveValue = .array([.string("$null"), .string("x")])
        try expectArchiveError(
            .unexpectedType,
            in: Self.archive(archiver: .integer(1), objects: objects),
            mentioning: "$archiver"
        )
        try expectArchiveError(
            .unexpectedType,
            in: Self.archive(version: .string("100000"), objects: objects),
            mentioning: "$version"
        )
        try expectArchiveError(
            .unexpectedType,
            in: Self.archive(objects: .dictionary(["0": .string("$null")])),
            mentioning: "$objects"
        )
        try expectArchiveError(
            .unexpectedType,
            in: Self.archive(top: .array([.uid(ArchiveUID(1))]), objects: objects),
            mentioning: "$top"
        )
    }

    @Test func rejectsAnObjectWithoutClass() throws {
        let value = Self.archive(objects: .array([.string("$null"), .dictionary(["name": .uid(ArchiveUID(0))])]))
        try expectArchiveError(.missingKey, in: value, mentioning: "$class", "object 1")
    }

    @Test func rejectsAClassReferenceToSomethingOtherThanADescriptor() throws {
        let value = Self.archive(
            objects: .array([
                .string("$null"),
                .dictionary(["$class": .uid(ArchiveUID(2))]),
                .string("NSString"),  // not a {$classname, $classes} dictionary
            ])
        )
        try expectArchiveError(.unexpectedType, in: value, mentioning: "object 1", "UID 2")
    }

    @Test func rejectsAClassThatIsNotAUID() throws {
        let value = Self.archive(objects: .array([.string("$null"), .dictionary(["$class": .integer(2)])]))
        try expectArchiveError(.unexpectedType, in: value, mentioning: "object 1", "$class")
    }

    @Test func rejectsMalformedClassDescriptors() throws {
        let badName = Self.archive(objects: .array([.string("$null"), .dictionary(["$classname": .integer(1)])]))
        try expectArchiveError(.unexpectedType, in: badName, mentioning: "object 1", "$classname")
        let badChain = Self.archive(
            objects: .array([
                .string("$null"), .dictionary(["$classname": .string("A"), "$classes": .array([.integer(1)])]),
            ])
        )
        try expectArchiveError(.unexpectedType, in: badChain, mentioning: "object 1", "$classes")
    }

    @Test(arguments: [
        ("root", ArchiveValue.array([.uid(ArchiveUID(1))])),
        ("root", ArchiveValue.dictionary(["CF$UID": .string("1")])),
    ])
    func rejectsATopValueThatIsAContainer(key: String, entry: ArchiveValue) throws {
        let value = Self.archive(top: .dictionary([key: entry]), objects: .array([.string("$null"), .string("x")]))
        let error = #expect(throws: ArchiveError.self) { try KeyedArchive(propertyList: value) }
        #expect(error?.code == .unexpectedType)
        #expect(error?.reason.contains("$top[\"root\"]") == true, "\(error?.reason ?? "")")
    }

    @Test func rejectsPropertyListsThatAreNotKeyedArchives() throws {
        for value: ArchiveValue in [.array([]), .string("x"), .dictionary(["a": .bool(true)]), .dictionary([:])] {
            let error = #expect(throws: ArchiveError.self) { try KeyedArchive(propertyList: value) }
            #expect(error?.code == .notKeyedArchive)
        }
    }

    // MARK: XML UIDs

    @Test(arguments: ["4294967296", "-1", "18446744073709551615"])
    func rejectsAnXMLUIDOutsideThirtyTwoBits(integer: String) {
        let xml = Array("<plist><dict><key>CF$UID</key><integer>\(integer)</integer></dict></plist>".utf8)
        expectError(.invalidUID, reading: xml, mentioning: integer)
    }

    @Test func readsAnXMLDictionaryWithCFUIDAndAnotherKeyAsADictionary() throws {
        let xml = Array("<plist><dict><key>CF$UID</key><integer>1</integer><key>x</key><true/></dict></plist>".utf8)
        let value = try ArchiveValue(propertyList: xml)
        #expect(value == .dictionary(["CF$UID": .integer(1), "x": .bool(true)]))
    }
}

// MARK: - Trailer arithmetic under raised limits (issue 17)

extension MalformedArchiveTests {
    @Test func rejectsAnOffsetTableSizeThatOverflows() {
        var options = ArchiveReadingOptions()
        options.maxObjectCount = .max  // a caller's raised limit may not make the trailer's arithmetic trap
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
            0x09,  // object 0 @8: true
            0x08,  // offset table @9: object 0 at 8
            0, 0, 0, 0, 0, 0,  // trailer: unused
            8, 8,  // offset width 8, reference width 8
            0x40, 0, 0, 0, 0, 0, 0, 0,  // 2⁶² objects: 2⁶² × 8 bytes of offset table overflows
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 9,  // offset table at 9
        ]
        let error = #expect(throws: ArchiveError.self) { try ArchiveValue(propertyList: bytes, options: options) }
        #expect(error?.code == .truncated)
        #expect(error?.reason.contains("offset table of 4611686018427387904 entries") == true, "\(error.map { "\($0)" } ?? "")")
        options.maxObjectCount = -1  // nonsense, but a thrown error rather than a trap
        let negative = #expect(throws: ArchiveError.self) { try ArchiveValue(propertyList: bytes, options: options) }
        #expect(negative?.code == .limitExceeded)
    }
}
