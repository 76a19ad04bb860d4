import Foundation
import OrderedCollections
import Testing
import _AutoCodingTestSupport

@testable import AutoCodingFast

@Suite("Lazy keyed archive")
struct LazyKeyedArchiveTests {
    /// `$null`, the `Item` class (UID 1), items at UIDs 2...101 (`n` inline, `name` a UID to a string at
    /// 102...201), and `$top.root` → UID 2. `damage` rewrites one item's entry.
    static func items(damage: (index: Int, entry: ArchiveValue)? = nil) -> KeyedArchive {
        var objects: [ArchiveValue] = [.string(ArchiveKey.null), ArchiveClass(name: "Item", chain: ["Item"]).descriptor]
        for i in 0..<100 {
            objects.append(.dictionary(["$class": .uid(ArchiveUID(1)), "n": .integer(Int64(i)), "name": .uid(ArchiveUID(UInt32(102 + i)))]))
        }
        for i in 0..<100 { objects.append(.string("item \(i)")) }
        if let damage { objects[2 + damage.index] = damage.entry }
        return KeyedArchive(top: ["root": .uid(ArchiveUID(2))], objects: objects)
    }

    /// Writes `bytes` to a new temporary file and returns its path.
    static func file(_ bytes: [UInt8]) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("lazy-\(UUID().uuidString).archive")
        try Data(bytes).write(to: url)
        return url.path
    }

    // MARK: Laziness

    @Test func readingOneFieldTouchesOnlyThatObjectAndItsClass() throws {
        let path = try Self.file(Self.items().binaryPlist())
        defer { try? FileManager.default.removeItem(atPath: path) }
        let archive = try LazyKeyedArchive(contentsOf: path, access: .mapped)
        #expect(archive.isMapped)
        #expect(archive.touchedUIDs.isEmpty)
        #expect(try archive.field("n", of: ArchiveUID(40)) == .integer(38))
        #expect(archive.touchedUIDs == [ArchiveUID(1), ArchiveUID(40)])
        // The top dictionary, `$objects`, the root dictionary and its four values, the item, its keys and
        // values, the class descriptor and its parts: a few dozen records of the 400-odd objects.
        #expect(archive.validatedObjectCount < 30)
        #expect(try archive.field("name", of: ArchiveUID(40)) == .uid(ArchiveUID(140)))
        #expect(try archive.entry(ArchiveUID(140)) == .string("item 38"))
        #expect(archive.touchedUIDs == [ArchiveUID(1), ArchiveUID(40), ArchiveUID(140)])
    }

    /// The writer stores equal strings once, so entries 2 and 3 are one bplist object: reading one of them
    /// touches that entry only.
    @Test func touchedUIDsNameEntriesNotTheirSharedObjects() throws {
        let archive = KeyedArchive(
            top: ["root": .uid(ArchiveUID(1))],
            objects: [.string(ArchiveKey.null), .array([.uid(ArchiveUID(2)), .uid(ArchiveUID(3))]), .string("x"), .string("x")])
        let bytes = archive.binaryPlist()
        let view = try KeyedArchiveView(bytes: bytes)
        #expect(view.objectNumber(ArchiveUID(2), in: view.raw) == view.objectNumber(ArchiveUID(3), in: view.raw))
        let lazy = try LazyKeyedArchive(bytes: bytes)
        #expect(try lazy.entry(ArchiveUID(3)) == .string("x"))
        #expect(lazy.touchedUIDs == [ArchiveUID(3)])
    }

    @Test func smallFilesAreReadWholeByDefault() throws {
        let path = try Self.file(Self.items().binaryPlist())
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try !LazyKeyedArchive(contentsOf: path).isMapped)
        #expect(try LazyKeyedArchive(contentsOf: path, access: .mapped).isMapped)
        #expect(try !LazyKeyedArchive(contentsOf: path, access: .read).isMapped)
    }

    @Test func agreesWithTheEagerViewOnEveryEntry() throws {
        let bytes = Self.items().binaryPlist()
        let view = try KeyedArchiveView(bytes: bytes)
        let lazy = try LazyKeyedArchive(bytes: bytes)
        #expect(lazy.archiver == view.archiver && lazy.version == view.version && lazy.objectCount == view.objectCount)
        #expect(try lazy.topKeys() == view.topKeys)
        #expect(try lazy.rootUID() == view.rootUID)
        for uid in 0..<view.objectCount {
            let uid = ArchiveUID(UInt32(uid))
            #expect(try lazy.entry(uid) == view.object(uid))
            #expect(try lazy.archiveClass(of: uid) == view.archiveClass(of: uid))
        }
    }

    @Test func theEagerViewMapsFilesToo() throws {
        let bytes = Self.items().binaryPlist()
        let path = try Self.file(bytes)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let mapped = try KeyedArchiveView(contentsOf: path)
        #expect(mapped.storage.isMapped)
        #expect(try mapped.keyedArchive() == KeyedArchiveView(bytes: bytes).keyedArchive())
        let damaged = try Self.file(Self.items(damage: (60, .dictionary(["n": .uid(ArchiveUID(999))]))).binaryPlist())
        defer { try? FileManager.default.removeItem(atPath: damaged) }
        #expect(throws: ArchiveError.self) { try KeyedArchiveView(contentsOf: damaged) }
    }

    // MARK: Errors, reported where they are met

    @Test func damageOutsideWhatIsReadDoesNotStopReads() throws {
        let bytes = Self.items(damage: (60, .dictionary(["$class": .uid(ArchiveUID(1)), "n": .uid(ArchiveUID(999))])))
            .binaryPlist()
        let eager = #expect(throws: ArchiveError.self) { try KeyedArchiveView(bytes: bytes) }
        #expect(eager?.code == .invalidUID)
        let lazy = try LazyKeyedArchive(bytes: bytes)
        #expect(try lazy.field("n", of: ArchiveUID(40)) == .integer(38))
        let error = #expect(throws: ArchiveError.self) { try lazy.entry(ArchiveUID(62)) }
        #expect(error?.code == .invalidUID)
    }

    @Test func instancesWithoutAClassDescriptorFailWhenReached() throws {
        let bytes = Self.items(damage: (5, .dictionary(["$class": .uid(ArchiveUID(150)), "n": .integer(1)]))).binaryPlist()
        let lazy = try LazyKeyedArchive(bytes: bytes)
        let error = #expect(throws: ArchiveError.self) { try lazy.field("n", of: ArchiveUID(7)) }
        #expect(error?.code == .unexpectedType)
        #expect(try lazy.field("n", of: ArchiveUID(8)) == .integer(6))
        #expect(throws: ArchiveError.invalidUID(400, objectCount: 202)) { try lazy.entry(ArchiveUID(400)) }
    }

    @Test func openingChecksTheEnvelopeLikeTheEagerView() throws {
        for bytes: [UInt8] in [[], Array("bplist00".utf8), ArchiveValue.array([.integer(1)]).binaryPropertyList(),
            ArchiveValue.dictionary(["$archiver": .string("x")]).binaryPropertyList()]
        {
            let eager = #expect(throws: ArchiveError.self) { try KeyedArchiveView(bytes: bytes) }
            let lazy = #expect(throws: ArchiveError.self) { try LazyKeyedArchive(bytes: bytes) }
            #expect(eager?.code == lazy?.code)
        }
        let missing = #expect(throws: ArchiveError.self) {
            try LazyKeyedArchive(contentsOf: "/nonexistent/archive", options: .init())
        }
        #expect(missing?.code == .fileAccess)
    }

    @Test func appliesTheInputLimitToMappedFiles() throws {
        let path = try Self.file(Self.items().binaryPlist())
        defer { try? FileManager.default.removeItem(atPath: path) }
        var options = ArchiveReadingOptions()
        options.maxInputBytes = 100
        #expect(throws: ArchiveError(.limitExceeded, "")) { try LazyKeyedArchive(contentsOf: path, options: options) }
    }

    /// The malformed corpus: every file the eager view rejects is rejected by the lazy reader too, at the
    /// latest when every entry is read.
    @Test(.enabled(if: SharedCorpus.isAvailable, SharedCorpus.skipReason))
    func rejectsWhatTheEagerViewRejectsOnceEverythingIsRead() throws {
        for path in SharedCorpus.paths(in: "malformed", "apple") {
            let bytes = try SharedCorpus.bytes(path)
            let eager = Result { () throws(ArchiveError) in try KeyedArchiveView(bytes: bytes) }
            let lazy = Result { () throws(ArchiveError) -> [ArchiveValue] in
                let archive = try LazyKeyedArchive(bytes: bytes)
                _ = try archive.topKeys().map { (key) throws(ArchiveError) in try archive.top(key) }
                return try (0..<archive.objectCount).map { (uid) throws(ArchiveError) in
                    try archive.entry(ArchiveUID(UInt32(uid)))
                }
            }
            switch (eager, lazy) {
            case (.success(let view), .success(let entries)):
                for (uid, entry) in entries.enumerated() { #expect(view.object(ArchiveUID(UInt32(uid))) == entry, "\(path)") }
            case (.failure, .failure):
                break
            default:
                Issue.record("\(path): eager \(eager.map { _ in "ok" }), lazy \(lazy.map { _ in "ok" })")
            }
        }
    }

    // MARK: Lifetime

    @Test func aFileReplacedByRenameKeepsReadingTheOpenedOne() throws {
        let path = try Self.file(Self.items().binaryPlist())
        defer { try? FileManager.default.removeItem(atPath: path) }
        let archive = try LazyKeyedArchive(contentsOf: path, access: .mapped)
        let replacement = try Self.file(Self.items(damage: (0, .string("gone"))).binaryPlist())
        #expect(rename(replacement, path) == 0)
        #expect(try archive.field("n", of: ArchiveUID(2)) == .integer(0))
    }

    @Test func valuesOutliveTheArchive() throws {
        let path = try Self.file(Self.items().binaryPlist())
        defer { try? FileManager.default.removeItem(atPath: path) }
        var archive: LazyKeyedArchive? = try LazyKeyedArchive(contentsOf: path, access: .mapped)
        let value = try archive?.entry(ArchiveUID(150))
        archive = nil
        #expect(value == .string("item 48"))
    }
}

// MARK: - One rule set with the eager reader (issue 17)

extension LazyKeyedArchiveTests {
    /// A keyed archive whose item at UID 2 has the key `dupA` twice: written with keys `dupA` and `dupB` (both
    /// 4-byte ASCII strings, so same layout), then the `B` of the second key's string object made an `A`.
    static func itemWithADuplicateKey() throws -> [UInt8] {
        var objects: [ArchiveValue] = [.string(ArchiveKey.null), ArchiveClass(name: "Item", chain: ["Item"]).descriptor]
        objects.append(.dictionary(["$class": .uid(ArchiveUID(1)), "dupA": .integer(1), "dupB": .integer(2)]))
        var bytes = KeyedArchive(top: ["root": .uid(ArchiveUID(2))], objects: objects).binaryPlist()
        let dupB: [UInt8] = [0x54] + Array("dupB".utf8)  // ASCII string marker of 4 bytes, then "dupB"
        let at = try #require((0...(bytes.count - dupB.count)).first { bytes[$0..<$0 + dupB.count].elementsEqual(dupB) })
        bytes[at + 4] = UInt8(ascii: "A")
        return bytes
    }

    @Test func refusesADuplicateKeyAsTheEagerReaderDoes() throws {
        let bytes = try Self.itemWithADuplicateKey()
        let eager = #expect(throws: ArchiveError.self) { try KeyedArchive(bytes: bytes) }
        #expect(eager?.code == .invalidObject)
        #expect(eager?.reason.contains("has the key \"dupA\" twice") == true, "\(eager.map { "\($0)" } ?? "")")
        let lazy = try LazyKeyedArchive(bytes: bytes)
        // One field of the damaged instance: the answer may not come from a dictionary the eager reader refuses.
        let field = #expect(throws: ArchiveError.self) { try lazy.field("dupA", of: ArchiveUID(2)) }
        #expect(field == eager)
        #expect(field?.reason == eager?.reason)
        let entry = #expect(throws: ArchiveError.self) { try lazy.entry(ArchiveUID(2)) }
        #expect(entry?.reason == eager?.reason)
    }
}
