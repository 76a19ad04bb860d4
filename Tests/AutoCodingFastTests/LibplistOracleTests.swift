import Foundation
import Testing
import _AutoCodingTestSupport

@testable import AutoCodingFast

/// Differential tests: the native reader against libplist (the oracle) on every committed fixture, and both
/// writers (native binary, libplist XML) round-tripped through the readers.
@Suite("libplist oracle")
struct LibplistOracleTests {
    static let native = ArchiveReadingOptions()
    static let libplist: ArchiveReadingOptions = {
        var options = ArchiveReadingOptions()
        options.backend = .libplist
        return options
    }()

    // MARK: Both backends read the same values

    @Test(arguments: Fixtures.all)
    func nativeAndLibplistBackendsReadIdenticalValues(fixture: String) throws {
        let bytes = try Fixtures.bytes(fixture)
        let ours = try ArchiveValue(propertyList: bytes, options: Self.native)
        let theirs = try ArchiveValue(propertyList: bytes, options: Self.libplist)
        #expect(ours.firstDifference(from: theirs) == nil, "\(fixture): native vs libplist")
    }

    @Test(arguments: Fixtures.keyed)
    func keyedFixturesReadAsKeyedArchivesWithEitherBackend(fixture: String) throws {
        let bytes = try Fixtures.bytes(fixture)
        let ours = try KeyedArchive(bytes: bytes, options: Self.native)
        let theirs = try KeyedArchive(bytes: bytes, options: Self.libplist)
        #expect(ours.objects.first == .string("$null"))
        #expect(ours.propertyList.firstDifference(from: theirs.propertyList) == nil)
    }

    @Test(arguments: Fixtures.plain)
    func plainFixturesAreNotKeyedArchives(fixture: String) throws {
        let bytes = try Fixtures.bytes(fixture)
        let error = #expect(throws: ArchiveError.self) { try KeyedArchive(bytes: bytes) }
        #expect(error?.code == .notKeyedArchive)
    }

    // MARK: Writers round-trip

    @Test(arguments: Fixtures.all)
    func nativeWriterOutputReadsBackIdenticallyWithBothBackends(fixture: String) throws {
        let value = try Fixtures.value(fixture)
        let written = value.binaryPropertyList()
        let ours = try ArchiveValue(propertyList: written, options: Self.native)
        let theirs = try ArchiveValue(propertyList: written, options: Self.libplist)
        #expect(ours.firstDifference(from: value) == nil, "\(fixture): native writer -> native reader")
        #expect(theirs.firstDifference(from: value) == nil, "\(fixture): native writer -> libplist")
    }

    @Test(arguments: Fixtures.all)
    func xmlOutputReadsBackIdenticallyUpToWholeSecondDates(fixture: String) throws {
        let value = try Fixtures.value(fixture)
        let xml = try value.xmlPropertyList()
        #expect(ArchiveFormat.detect(xml) == .xmlPlist)
        let reread = try ArchiveValue(propertyList: xml)
        #expect(reread.firstDifference(from: value.withWholeSecondDates) == nil, "\(fixture): XML round trip")
    }

    @Test(arguments: Fixtures.all)
    func libplistBinaryWriterOutputReadsNativelyAsTheSameValue(fixture: String) throws {
        let value = try Fixtures.value(fixture)
        let written = try LibplistBridge.binaryData(value)
        let reread = try ArchiveValue(propertyList: written)
        #expect(reread.firstDifference(from: value) == nil, "\(fixture): libplist writer -> native reader")
    }

    // MARK: Mutated fixtures

    /// Every truncation and many one-byte changes of each binary fixture: the native reader never crashes, and
    /// whenever it accepts the bytes, the libplist backend (which only sees validated bytes) reads the same
    /// value or refuses with `libplistFailure` (see ``libplistBackendNeverMisreadsWhatLibplistCannotRepresent(object:)``);
    /// it never returns a different value.
    @Test(arguments: Fixtures.all.filter { $0.hasSuffix(".bplist") || $0.hasSuffix(".archive") })
    func mutatedBinaryFixturesNeverCrashAndBackendsAgreeWhenAccepted(fixture: String) throws {
        let original = try Fixtures.bytes(fixture)
        var variants: [(String, [UInt8])] = []
        for length in 0..<original.count { variants.append(("prefix \(length)", Array(original.prefix(length)))) }
        for position in original.indices {
            for replacement: UInt8 in [0x00, 0x01, 0x0F, 0x7F, 0x80, 0xFF, original[position] ^ 0x10] {
                guard replacement != original[position] else { continue }
                var mutated = original
                mutated[position] = replacement
                variants.append(("byte \(position) = 0x\(String(replacement, radix: 16))", mutated))
            }
        }
        var accepted = 0
        var disagreements: [String] = []
        for (label, bytes) in variants {
            guard let ours = try? ArchiveValue(propertyList: bytes, options: Self.native) else { continue }
            accepted += 1
            do throws(ArchiveError) {
                let theirs = try ArchiveValue(propertyList: bytes, options: Self.libplist)
                if let difference = ours.firstDifference(from: theirs) {
                    disagreements.append("\(label): \(difference)")
                }
            } catch  where error.code == .libplistFailure {
                continue  // a refusal, not a disagreement
            } catch {
                disagreements.append("\(label): native reads it, libplist backend throws \(error)")
            }
        }
        #expect(accepted > 0, "some one-byte changes (inside string payloads, say) stay valid")
        #expect(
            disagreements.isEmpty,
            "\(fixture): \(disagreements.count) disagreements: \(disagreements.prefix(5).joined(separator: "; "))"
        )
    }

    // MARK: Hand-built objects

    /// Single objects in encodings that plistlib and CoreFoundation never write, but that are valid: both
    /// backends must read them alike.
    @Test(
        arguments: [
            [0x10, 0x7F],  // 1-byte integer
            [0x11, 0x80, 0x00],  // 2-byte integer with the top bit set (unsigned)
            [0x12, 0xFF, 0xFF, 0xFF, 0xFF],  // 4-byte integer with the top bit set (unsigned)
            [0x13, 0x80, 0, 0, 0, 0, 0, 0, 0],  // Int64.min
            [0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],  // UInt64.max
            [0x22, 0xC0, 0x00, 0x00, 0x00],  // 4-byte real -2.0
            [0x23, 0x80, 0, 0, 0, 0, 0, 0, 0],  // -0.0
            [0x23, 0x7F, 0xF8, 0, 0, 0, 0, 0, 0],  // NaN
            [0x33, 0xC1, 0xCD, 0x27, 0xE4, 0x40, 0, 0, 0],  // date -978307200 (1970)
            [0x33, 0x41, 0xC4, 0xDB, 0x0F, 0xE0, 0x40, 0, 0],  // date with a fraction
            [0x82, 0x01, 0x02, 0x03],  // 3-byte UID
            [0x83, 0xFF, 0xFF, 0xFF, 0xFF],  // UInt32.max UID
            [0x5F, 0x11, 0x00, 0x03, 0x61, 0x62, 0x63],  // "abc" with a needlessly wide 2-byte length
            [0x63, 0x00, 0x61, 0x00, 0x00, 0x00, 0xE9],  // UTF-16 "a\0é": U+0000 inside a UTF-16 string
            [0x40],  // empty data
            [0x50],  // empty ASCII string
            [0xA0],  // empty array
            [0xD0],  // empty dictionary
        ] as [[UInt8]]
    )
    func handBuiltObjectsReadIdenticallyWithBothBackends(object: [UInt8]) throws {
        let bytes = Self.singleObjectPlist(object)
        let ours = try ArchiveValue(propertyList: bytes, options: Self.native)
        let theirs = try ArchiveValue(propertyList: bytes, options: Self.libplist)
        #expect(ours.firstDifference(from: theirs) == nil)
    }

    // MARK: libplist limitations

    /// Valid objects that libplist 2.2 misreads: it reads a sign-extended negative 16-byte integer as unsigned,
    /// rejects an empty UTF-16 string, and cuts an ASCII string at U+0000. The native reader reads them; the
    /// libplist backend must give the same value or refuse with `libplistFailure` naming the object, and never
    /// return libplist's different value.
    @Test(
        arguments: [
            ([0x14] + [UInt8](repeating: 0xFF, count: 16), ArchiveValue.integer(-1)),  // sign-extended 16-byte -1
            ([0x60], .string("")),  // empty UTF-16 string
            ([0x6F, 0x10, 0x00], .string("")),  // empty UTF-16 string with an explicit length integer
            ([0x53, 0x61, 0x00, 0x62], .string("a\u{0}b")),  // ASCII "a\0b"
        ] as [([UInt8], ArchiveValue)]
    )
    func libplistBackendNeverMisreadsWhatLibplistCannotRepresent(object: [UInt8], expected: ArchiveValue) throws {
        let bytes = Self.singleObjectPlist(object)
        let ours = try ArchiveValue(propertyList: bytes, options: Self.native)
        #expect(ours.firstDifference(from: expected) == nil)
        do throws(ArchiveError) {
            let theirs = try ArchiveValue(propertyList: bytes, options: Self.libplist)
            #expect(theirs.firstDifference(from: expected) == nil)
        } catch {
            #expect(error.code == .libplistFailure)
            #expect(error.reason.contains("object 0"), "\(error.reason)")
        }
    }

    @Test func negativeZeroSurvivesTheXMLWriter() throws {
        let xml = try ArchiveValue.real(-0.0).xmlPropertyList()
        let reread = try ArchiveValue(propertyList: xml)
        #expect(reread.firstDifference(from: .real(-0.0)) == nil, "\(String(decoding: xml, as: UTF8.self))")
    }

    /// A binary plist whose only object is `object`.
    static func singleObjectPlist(_ object: [UInt8]) -> [UInt8] {
        let tableOffset = 8 + object.count
        return Array("bplist00".utf8) + object + [UInt8(8)]
            + [0, 0, 0, 0, 0, 0, 1, 1]  // unused, offset width 1, ref width 1
            + [0, 0, 0, 0, 0, 0, 0, 1]  // one object
            + [0, 0, 0, 0, 0, 0, 0, 0]  // top object 0
            + [0, 0, 0, 0, 0, 0, 0, UInt8(tableOffset)]  // offset table right after the object
    }
}
