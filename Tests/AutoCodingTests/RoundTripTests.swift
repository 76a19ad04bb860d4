import AutoCoding
import AutoCodingFast
import Foundation
import Testing
import _AutoCodingTestSupport

@Suite("Codable bridge round trips")
struct RoundTripTests {
    @Test func everyMappedTypeRoundTrips() throws {
        let value = Everything()
        let bytes = try KeyedArchiveEncoder().encodeBytes(value)
        let back = try KeyedArchiveDecoder().decode(Everything.self, from: bytes)
        #expect(back == value)
    }

    @Test func xmlOutputRoundTrips() throws {
        var encoder = KeyedArchiveEncoder()
        encoder.outputFormat = .xml
        let bytes = try encoder.encodeBytes(Everything())
        #expect(ArchiveFormat.detect(bytes) == .xmlPlist)
        #expect(try KeyedArchiveDecoder().decode(Everything.self, from: bytes) == Everything())
    }

    @Test(arguments: [[String: Int](), ["one": 1]])
    func dictionariesRoundTrip(_ value: [String: Int]) throws {
        let bytes = try KeyedArchiveEncoder().encodeBytes(value)
        #expect(try KeyedArchiveDecoder().decode([String: Int].self, from: bytes) == value)
    }

    @Test func sharedInstancesDecodeToOneInstance() throws {
        let shared = Person(name: "Shared", age: 30)
        let people = [Person(name: "A", age: 1, friends: [shared]), Person(name: "B", age: 2, friends: [shared]), shared]
        let bytes = try KeyedArchiveEncoder().encodeBytes(people)
        let back = try KeyedArchiveDecoder().decode([Person].self, from: bytes)
        #expect(back.count == 3)
        #expect(back[0].friends[0] === back[1].friends[0])
        #expect(back[0].friends[0] === back[2])
        #expect(back[2].name == "Shared")
        #expect(back[0].email == "a@example.com")
        #expect(back[0].address == people[0].address)
    }

    @Test func sharedInstanceIsArchivedOnce() throws {
        let shared = Person(name: "Shared", age: 30)
        let archive = try KeyedArchiveEncoder().encodeArchive([shared, shared, shared])
        let names = archive.objects.filter { $0 == .string("Shared") }
        #expect(names.count == 1)
    }

    @Test func cycleEncodesAndIsReportedOnDecode() throws {
        let a = Person(name: "A", age: 1)
        let b = Person(name: "B", age: 2, friends: [a])
        a.friends = [b]
        let bytes = try KeyedArchiveEncoder().encodeBytes(a)
        let error = #expect(throws: DecodingError.self) { try KeyedArchiveDecoder().decode(Person.self, from: bytes) }
        guard case .dataCorrupted(let context)? = error else {
            Issue.record("expected dataCorrupted, got \(String(describing: error))")
            return
        }
        #expect(context.debugDescription.contains("reference cycle"))
        #expect(context.debugDescription.contains("Person"))
    }

    @Test func longChainsEncodeWithoutRecursion() throws {
        var head = Person(name: "0", age: 0)
        for i in 1..<20_000 { head = Person(name: "\(i)", age: i % 90, friends: [head]) }
        let archive = try KeyedArchiveEncoder().encodeArchive(head)
        #expect(archive.objects.count > 20_000)
        let error = #expect(throws: DecodingError.self) {
            try KeyedArchiveDecoder().decode(Person.self, from: archive.binaryPlist())
        }
        #expect(String(describing: error).contains("values nest deeper than options.decodingDepthLimit 256"))
    }

    /// Each level of typed decoding runs `init(from:)` on the caller's stack: about 4.5 KiB per level in a
    /// debug build (measured: a 512 KiB thread decodes 96 levels and overflows at 128; 1 MiB decodes 224 and
    /// overflows at 256). The default limit must fit a 2 MiB thread; a stack overflow here crashes the run.
    @Test func decodingToTheDefaultDepthLimitFitsATwoMebibyteStack() throws {
        var head = Person(name: "0", age: 0)
        for i in 1..<400 { head = Person(name: "\(i)", age: i % 90, friends: [head]) }
        let bytes = try KeyedArchiveEncoder().encodeBytes(head)
        final class Outcome: @unchecked Sendable { var text = "" }
        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            do {
                _ = try KeyedArchiveDecoder().decode(Person.self, from: bytes)
                outcome.text = "decoded"
            } catch {
                outcome.text = String(describing: error)
            }
            done.signal()
        }
        // AddressSanitizer's frames are several times larger (redzones): there the check is the error, on 16 MiB.
        thread.stackSize = ActiveSanitizer.name == nil ? 2 << 20 : 16 << 20
        thread.start()
        done.wait()
        #expect(outcome.text.contains("values nest deeper than options.decodingDepthLimit 256"), "\(outcome.text.prefix(200))")
    }

    @Test func decodingDepthLimitIsTheOptionsValue() throws {
        var head = Person(name: "0", age: 0)
        for i in 1..<6 { head = Person(name: "\(i)", age: i, friends: [head]) }
        let bytes = try KeyedArchiveEncoder().encodeBytes(head)
        var decoder = KeyedArchiveDecoder()
        #expect(decoder.options.decodingDepthLimit == 256)
        #expect(try decoder.decode(Person.self, from: bytes).name == "5")
        decoder.options.decodingDepthLimit = 4
        let error = #expect(throws: DecodingError.self) { try decoder.decode(Person.self, from: bytes) }
        #expect(String(describing: error).contains("values nest deeper than options.decodingDepthLimit 4"))
    }

    @Test func wrongTypeIsATypeMismatchWithItsPath() throws {
        let bytes = try KeyedArchiveEncoder().encodeBytes(["a": "not a number"])
        let error = #expect(throws: DecodingError.self) { try KeyedArchiveDecoder().decode([String: Int].self, from: bytes) }
        guard case .typeMismatch(_, let context)? = error else {
            Issue.record("expected typeMismatch, got \(String(describing: error))")
            return
        }
        #expect(context.codingPath.count == 1)
    }

    @Test func classNamesAreModuleQualified() throws {
        let archive = try KeyedArchiveEncoder().encodeArchive(Person(name: "A", age: 1))
        let root = try #require(archive.rootUID)
        #expect(archive.archiveClass(of: root)?.name == "AutoCodingTests.Person")
        #expect(archive.archiveClass(of: root)?.chain == ["AutoCodingTests.Person", "NSObject"])
    }
}
