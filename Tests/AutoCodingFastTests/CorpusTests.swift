import Foundation
import Testing
import _AutoCodingTestSupport

@testable import AutoCodingFast

/// The engine over the real-world files of `../shared/corpus` (see its MANIFEST.md): Apple-written keyed
/// archives, plain binary plists from other implementations' test suites, and deliberately broken files.
/// Skipped, and reported as skipped, when the corpus is not beside the package.
@Suite("Shared corpus", .enabled(if: SharedCorpus.isAvailable, SharedCorpus.skipReason))
struct CorpusTests {
    static let libplist: ArchiveReadingOptions = {
        var options = ArchiveReadingOptions()
        options.backend = .libplist
        return options
    }()

    /// The files that must read: all of `apple/` and `plain/`.
    static let readable = SharedCorpus.paths(in: "apple", "plain")

    // MARK: Layout

    @Test func corpusHasTheFilesItsManifestCounts() {
        #expect(SharedCorpus.files(in: "apple").count == 100)
        #expect(SharedCorpus.files(in: "plain").count == 32)
        #expect(SharedCorpus.files(in: "malformed").count == 18)
    }

    // MARK: Valid files

    @Test(arguments: readable)
    func nativeAndLibplistBackendsReadIdenticalValues(path: String) throws {
        let bytes = try SharedCorpus.bytes(path)
        let ours = try ArchiveValue(propertyList: bytes)
        let theirs = try ArchiveValue(propertyList: bytes, options: Self.libplist)
        #expect(ours.firstDifference(from: theirs) == nil, "\(path): native vs libplist")
    }

    @Test(arguments: SharedCorpus.paths(in: "apple"))
    func appleArchivesReadAsKeyedArchives(path: String) throws {
        let archive = try KeyedArchive(bytes: SharedCorpus.bytes(path))
        #expect(archive.version == ArchiveKey.formatVersion)
        #expect(archive.objects.first == .string(ArchiveKey.null))
        #expect(!archive.top.isEmpty)
    }

    @Test(arguments: readable)
    func filesThatLookKeyedReadAsKeyedArchivesWithEitherBackend(path: String) throws {
        let bytes = try SharedCorpus.bytes(path)
        let value = try ArchiveValue(propertyList: bytes)
        guard value.looksKeyed else {
            let error = #expect(throws: ArchiveError.self) { try KeyedArchive(propertyList: value) }
            #expect(error?.code == .notKeyedArchive)
            return
        }
        let ours = try KeyedArchive(bytes: bytes)
        let theirs = try KeyedArchive(bytes: bytes, options: Self.libplist)
        #expect(ours.propertyList.firstDifference(from: theirs.propertyList) == nil)
    }

    @Test(arguments: readable)
    func nativeWriterRoundTripsEveryValue(path: String) throws {
        let value = try ArchiveValue(propertyList: SharedCorpus.bytes(path))
        let written = value.binaryPropertyList()
        let reread = try ArchiveValue(propertyList: written)
        #expect(reread.firstDifference(from: value) == nil, "\(path): native writer round trip")
        #expect(written.count <= max(2 * (try SharedCorpus.bytes(path)).count, 1024), "no blow-up of shared references")
    }

    @Test(arguments: readable)
    func xmlRoundTripsEveryValueUpToWholeSecondDates(path: String) throws {
        let value = try ArchiveValue(propertyList: SharedCorpus.bytes(path))
        let xml = try value.xmlPropertyList()
        let reread = try ArchiveValue(propertyList: xml)
        #expect(reread.firstDifference(from: value.withWholeSecondDates) == nil, "\(path): XML round trip")
    }

    // MARK: Broken files

    /// What each file of `malformed/` gives: the code of the first error (from `ArchiveValue` if the bytes are
    /// not a readable plist, else from `KeyedArchive`), or nil when it is accepted as a keyed archive.
    static let malformedOutcomes: [String: ArchiveError.Code?] = [
        // $archiver "NSArchiver": any archiver name is accepted (SceneKit writes SCNKeyedArchiver).
        "bpylist2_invalid_type_archive.plist": nil,
        "bpylist2_invalid_uid_archive.plist": .invalidUID,
        "bpylist2_invalid_version_archive.plist": .unsupportedVersion,
        "bpylist2_missing_uid_archive.plist": .missingKey,
        "bpylist2_no_class_meta_archive.plist": .unexpectedType,
        "bpylist2_no_class_name_archive.plist": .unexpectedType,
        "bpylist2_no_objects_archive.plist": .missingKey,
        // The only $top key is "rooty": valid, and rootUID falls back to the only entry.
        "bpylist2_no_root_archive.plist": nil,
        "bpylist2_no_top_archive.plist": .missingKey,
        "crabstep_ExtraData.typedstream": .notPropertyList,
        "go-ios_missing_archiver.xml": .missingKey,
        "go-ios_missing_objects.xml": .missingKey,
        "go-ios_missing_top.xml": .missingKey,
        "go-ios_missing_version.xml": .missingKey,
        // $archiver "DummyArchiver": accepted, as above.
        "go-ios_wrong_archiver.xml": nil,
        "go-ios_wrong_version.xml": .unsupportedVersion,
        // Meant as a self-containing dict, but its offset table also runs into the trailer, which is
        // caught first.
        "libplist_recursion.bplist": .truncated,
        // Meant as a cyclic array; its trailer declares 233 objects whose offset table overruns the trailer.
        "rust-plist_binary_circular_array.plist": .truncated,
    ]

    @Test(arguments: SharedCorpus.files(in: "malformed"))
    func malformedFilesAreRejectedWithTheirCode(name: String) throws {
        let bytes = try SharedCorpus.bytes("malformed/\(name)")
        guard let expected = Self.malformedOutcomes[name] else {
            Issue.record("\(name) is not in the table of expected outcomes")
            return
        }
        let outcome: ArchiveError.Code?
        do throws(ArchiveError) {
            _ = try KeyedArchive(bytes: bytes)
            outcome = nil
        } catch {
            outcome = error.code
        }
        #expect(outcome == expected, "\(name)")
    }

    /// Every file in every folder, whatever it is: reading never crashes, with either backend, as a value
    /// or as a keyed archive; it reads or it throws an ``ArchiveError`` (typed throws guarantee the type).
    @Test(
        arguments: SharedCorpus.paths(
            in: "apple",
            "plain",
            "malformed",
            "corelibs",
            "typedstream",
            "typedstream-expected"
        )
    )
    func anyFileReadsOrThrowsWithoutCrashing(path: String) throws {
        let bytes = try SharedCorpus.bytes(path)
        for options in [ArchiveReadingOptions(), Self.libplist] {
            let value: Result<ArchiveValue, ArchiveError> = Result { () throws(ArchiveError) in
                try ArchiveValue(propertyList: bytes, options: options)
            }
            let archive: Result<KeyedArchive, ArchiveError> = Result { () throws(ArchiveError) in
                try KeyedArchive(bytes: bytes, options: options)
            }
            // A keyed archive is in particular a readable value.
            if case .success = archive { #expect((try? value.get()) != nil, "\(path)") }
            if case .failure(let error) = value {
                #expect(!error.reason.isEmpty, "\(path): every error has a reason")
            }
        }
    }
}
