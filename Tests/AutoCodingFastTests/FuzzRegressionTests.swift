import Testing

@testable import AutoCodingFast

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Every crasher the fuzz targets (FuzzTesting/, scripts/fuzz.sh) found, minimized, as a named case, with
/// the invariant the target checked.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    // MARK: xml target

    /// xml target, crash-57e69faa: an XML date in year 0197 read fine, but libplist wrote it back as
    /// `<date>197-01-02T00:00:00Z</date>` (`strftime`'s `%Y` does not pad), which our reader (like
    /// CoreFoundation) refuses. The XML writer now pads years below 1000 to four digits.
    @Test func anXMLDateBeforeYear1000SurvivesAnXMLWriteAndRead() throws {
        let crasher = Array(
            """
            <?xml versiol="1.0" encodrng="Ukey"?>
            <!DOCTYPE pPLIST 1.0/4}2</inty>
            \t<date>0197-01-02T00:00:00Z</date>
            plist version="2.0"
            </plist>]

            """.utf8)
        let value = try ArchiveValue(propertyList: crasher)
        let xml = try value.xmlPropertyList()
        #expect(String(decoding: xml, as: UTF8.self).contains("<date>0197-01-02T00:00:00Z</date>"))
        #expect(try ArchiveValue(propertyList: xml) == value)
    }

    @Test(arguments: [
        -63_145_526_400.0,  // 0000-01-01T00:00:00Z, the earliest four-digit year
        -62_135_596_800,  // 0001-01-01
        -31_588_531_201,  // 0999-12-31T23:59:59Z
        252_423_993_599,  // 9999-12-31T23:59:59Z, the latest
    ])
    func writesAndReadsXMLDatesAtTheEdgesOfFourDigitYears(seconds: Double) throws {
        let value = ArchiveValue.array([.date(Date(timeIntervalSinceReferenceDate: seconds))])
        let xml = try value.xmlPropertyList()
        let back = try ArchiveValue(propertyList: xml)
        #expect(back == value, "\(String(decoding: xml, as: UTF8.self))")
    }

    /// The XML form has no year outside 0000...9999 (libplist would write `-1-12-31…` or `10000-…`, which no
    /// reader takes): writing such a date is an error instead of a file that does not read back.
    @Test(arguments: [-63_145_526_401.0, 252_423_993_600, .nan, .infinity, -1e300])
    func refusesToWriteAnXMLDateOutsideFourDigitYears(seconds: Double) throws {
        let value = ArchiveValue.array([.date(Date(timeIntervalSinceReferenceDate: seconds))])
        let error = #expect(throws: ArchiveError.self) { try value.xmlPropertyList() }
        #expect(error?.code == .unexpectedType)
        // The binary form holds any double.
        // (Not in `#expect(throws: Never.self)`: with a typed-throws call inside, that closure crashes in Swift 6.3.1.)
        let binary = try ArchiveValue(propertyList: value.binaryPropertyList())
        #expect(binary.arrayValue?.count == 1)
    }
}

extension FuzzRegressionTests {
    /// roundtrip target, crash-b0107a32: a graph holding the plain dictionary `{"CF$UID": -39297643394498305}`
    /// wrote XML that did not read back ("CF$UID dictionary holds …, outside 0...4294967295"), since XML spells a
    /// UID as exactly that dictionary; with an integer in range it read back as a UID, silently. The XML writer now
    /// refuses such a dictionary; the binary form, which has a UID type, still holds it.
    @Test(arguments: [ArchiveValue.integer(-39_297_643_394_498_305), .integer(5), .unsignedInteger(1 << 63)])
    func aDictionaryThatXMLWouldReadAsAUIDIsRefusedByTheXMLWriter(_ number: ArchiveValue) throws {
        let value = ArchiveValue.array([.dictionary(["CF$UID": number])])
        let error = #expect(throws: ArchiveError.self) { try value.xmlPropertyList() }
        #expect(error?.reason.contains("CF$UID") == true, "\(error?.reason ?? "")")
        #expect(try ArchiveValue(propertyList: value.binaryPropertyList()) == value)
        // Other CF$UID dictionaries (another value type, or more keys) are plain dictionaries both ways.
        for other in [ArchiveValue.dictionary(["CF$UID": .string("5")]), .dictionary(["CF$UID": .integer(5), "b": .bool(true)])] {
            #expect(try ArchiveValue(propertyList: other.xmlPropertyList()) == other)
        }
    }
}
