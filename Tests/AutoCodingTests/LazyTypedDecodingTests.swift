import AutoCodingFast
import Foundation
import Testing

import AutoCoding
import _AutoCodingTestSupport
@testable import AutoCodingCore

/// The typed decoder validates each object the first time it reaches it (``ArchiveRecordTable``): damage on
/// the path it reads gets the error code the whole-file check (``KeyedArchiveView``) gives it, damage off
/// that path is not seen, and a decode pays only for the objects it reads.
@Suite("Typed decoding validates lazily")
struct LazyTypedDecodingTests {
    /// Plist objects of ``HostilePlists/objectChain(length:)``: link `i`'s dictionary and its `next` UID.
    static func linkDictionary(_ i: Int) -> Int { 19 + 2 * i }
    static func linkUID(_ i: Int) -> Int { 20 + 2 * i }

    /// A 100-link chain with one object replaced.
    static func chain(replacing object: Int, with bytes: [UInt8]) -> [UInt8] {
        var objects = HostilePlists.objectChainObjects(length: 100)
        objects[object] = bytes
        return HostilePlists.plist(objects)
    }

    /// A 100-link chain whose offset-table entry for `object` is `offset`.
    static func chain(offsetOf object: Int, setTo offset: Int) -> [UInt8] {
        var bytes = HostilePlists.objectChain(length: 100)
        let table = bytes.count - 8
        let tableOffset = bytes[table..<bytes.count].reduce(0) { $0 << 8 | Int($1) }
        bytes.replaceSubrange(
            tableOffset + 4 * object..<tableOffset + 4 * object + 4, with: HostilePlists.bigEndian(offset, width: 4))
        return bytes
    }

    /// The chain's `$objects` array (plist object 8) with link `link`'s reference replaced by `reference`.
    static func objectsArray(link: Int, referringTo reference: Int) -> [UInt8] {
        HostilePlists.marker(0xA0, count: 102) + HostilePlists.refs([11, 12])
            + HostilePlists.refs((0..<100).map { $0 == link ? reference : linkDictionary($0) })
    }

    /// Damage to link 50 (or to what every link shares), each with the code the eager view gives it.
    static let damagedChains: [(name: String, bytes: [UInt8], code: ArchiveError.Code)] = {
        let ref = HostilePlists.refs
        let link = linkDictionary(50)
        return [
            ("unknown marker", chain(replacing: link, with: [0x70]), .invalidObject),
            ("offset beyond the object area", chain(offsetOf: link, setTo: 0x7FFF_FFF0), .invalidOffset),
            ("offset into the header", chain(offsetOf: link, setTo: 2), .invalidOffset),
            ("count beyond the file", chain(replacing: link, with: [0xDF, 0x12, 0x40, 0, 0, 0]), .truncated),
            ("reference beyond the table", chain(replacing: link, with: [0xD2] + ref([15, 16]) + ref([17, 9_999_999])),
             .invalidReference),
            ("key that is not a string", chain(replacing: link, with: [0xD2] + ref([15, 17]) + ref([17, 18])),
             .unexpectedType),
            ("UID beyond $objects", chain(replacing: linkUID(50), with: [0x83, 0, 0x0F, 0, 0]), .invalidUID),
            ("ASCII key above 0x7F", chain(replacing: 16, with: [0x54, 0x6E, 0xE5, 0x78, 0x74]), .invalidObject),
            ("UTF-16 key with a lone surrogate", chain(replacing: 16, with: [0x61, 0xD8, 0x00]), .invalidObject),
            // $class names UID 2, the first link: an instance, not a class descriptor.
            ("$class naming an instance", chain(replacing: link, with: [0xD2] + ref([15, 16]) + ref([20, 18])),
             .unexpectedType),
            ("instance without $class", chain(replacing: link, with: [0xD1] + ref([16]) + ref([18])), .missingKey),
            // `$objects` is checked one entry at a time, when the entry is reached.
            ("$objects entry beyond the table", chain(replacing: 8, with: objectsArray(link: 50, referringTo: 9_999_999)),
             .invalidReference),
        ]
    }()

    @Test(arguments: 0..<damagedChains.count)
    func rejectsDamageOnThePathWithTheEagerCode(_ index: Int) throws {
        let (name, bytes, code) = Self.damagedChains[index]
        let eager = #expect(throws: ArchiveError.self, "\(name)") { try KeyedArchiveView(bytes: bytes) }
        #expect(eager?.code == code, "\(name): the eager view gave \(eager.map(String.init(describing:)) ?? "nothing")")
        let lazy = #expect(throws: DecodingError.self, "\(name)") {
            try KeyedArchiveDecoder().decode(LimitLink.self, from: bytes)
        }
        guard case .dataCorrupted(let context)? = lazy else {
            Issue.record("\(name): \(lazy.map(String.init(describing:)) ?? "no error")")
            return
        }
        #expect((context.underlyingError as? ArchiveError)?.code == code, "\(name): \(context.debugDescription)")
        // The same through the other typed entry point that shares the decoding context.
        let unarchived = #expect(throws: DecodingError.self, "\(name)") {
            try KeyedUnarchiver(bytes: bytes).decodeObject(of: LimitLink.self, forKey: "root")
        }
        if case .dataCorrupted(let context)? = unarchived {
            #expect((context.underlyingError as? ArchiveError)?.code == code, "\(name): \(context.debugDescription)")
        } else {
            Issue.record("\(name): KeyedUnarchiver gave \(unarchived.map(String.init(describing:)) ?? "no error")")
        }
    }

    /// Reads the root link and nothing else.
    final class FirstLink: Decodable {
        let hasNext: Bool
        enum CodingKeys: String, CodingKey { case next }
        init(from decoder: any Decoder) throws {
            hasNext = try decoder.container(keyedBy: CodingKeys.self).contains(.next)
        }
    }

    @Test(arguments: 0..<damagedChains.count)
    func damageTheDecodeNeverReachesDoesNotStopIt(_ index: Int) throws {
        let (name, bytes, _) = Self.damagedChains[index]
        // Damage shared by every link (object 16, the "next" key) is on every path.
        guard name != "ASCII key above 0x7F", name != "UTF-16 key with a lone surrogate" else { return }
        #expect(try KeyedArchiveDecoder().decode(FirstLink.self, from: bytes).hasNext, "\(name)")
        // A view proves the whole file, and a decode of it sees the damage before it starts.
        #expect(throws: ArchiveError.self, "\(name)") { try KeyedArchiveView(bytes: bytes) }
    }

    @Test func aDecodeValidatesOnlyTheObjectsItReads() throws {
        let bytes = HostilePlists.objectChain(length: 10_000)
        let table = try ArchiveRecordTable(lazy: bytes, options: .init())
        // Opening reads the top-level entries only.
        #expect(table.validatedCount < 20)
        _ = try KeyedArchiveDecoder().decode(FirstLink.self, from: table)
        #expect(table.validatedCount < 30, "\(table.validatedCount) of \(2 * 10_000 + 19) objects validated")

        // The whole chain, refused at options.decodingDepthLimit: about two objects per link reached, of 20,019.
        let deep = try ArchiveRecordTable(lazy: bytes, options: .init())
        #expect(throws: DecodingError.self) { try KeyedArchiveDecoder().decode(LimitLink.self, from: deep) }
        #expect(deep.validatedCount < 2 * 256 + 30, "\(deep.validatedCount) objects validated")

        // A view validates them all up front, and a decode of it has nothing left to validate.
        let view = try KeyedArchiveView(bytes: bytes)
        let whole = try ArchiveRecordTable(view: view)
        #expect(whole.validatedCount == 2 * 10_000 + 19)
    }

    /// Opening reads none of `$objects`' references, and one beyond the table fails only the entry that holds
    /// it, with the whole-file pass's message: in the typed decoder's table and in ``LazyKeyedArchive`` (the
    /// same table) alike.
    @Test func anEntryReferenceBeyondTheTableFailsOnlyThatEntry() throws {
        let bytes = Self.chain(replacing: 8, with: Self.objectsArray(link: 50, referringTo: 9_999_999))
        let eager = #expect(throws: ArchiveError.self) { try KeyedArchiveView(bytes: bytes) }
        #expect(eager?.reason == "object 8 refers to object 9999999, beyond the 219 objects of the table")
        let lazy = try LazyKeyedArchive(bytes: bytes)
        #expect(lazy.validatedObjectCount < 20)
        #expect(try lazy.field("next", of: ArchiveUID(51)) == .uid(ArchiveUID(52)))
        #expect(lazy.touchedUIDs == [ArchiveUID(1), ArchiveUID(51)])
        let entry = #expect(throws: ArchiveError.self) { try lazy.entry(ArchiveUID(52)) }
        #expect(entry?.reason == eager?.reason)
        #expect(try lazy.field("next", of: ArchiveUID(53)) == .uid(ArchiveUID(54)))
    }

    @Test func aChainWithinTheDepthLimitDecodesTheSameLazilyAndFromAView() throws {
        let bytes = HostilePlists.objectChain(length: 200)
        func length(_ link: LimitLink) -> Int {
            var n = 1
            var next = link.next
            while let link = next {
                n += 1
                next = link.next
            }
            return n
        }
        #expect(length(try KeyedArchiveDecoder().decode(LimitLink.self, from: bytes)) == 200)
        #expect(length(try KeyedArchiveDecoder().decode(LimitLink.self, from: KeyedArchiveView(bytes: bytes))) == 200)
    }

    /// An `NS.string` that refers back to its own object: a UID cycle the whole-file check does not reject
    /// (UIDs are not containers). Decoding it ends at `decodingDepthLimit` instead of overflowing the stack.
    @Test func anNSStringThatRefersToItselfEndsAtMaxDepth() throws {
        let bytes = KeyedArchive(
            top: ["root": .uid(ArchiveUID(1))],
            objects: [
                .string("$null"),
                .dictionary(["$class": .uid(ArchiveUID(2)), "NS.string": .uid(ArchiveUID(1))]),
                .dictionary(["$classname": .string("NSMutableString")]),
            ]
        ).binaryPlist()
        #expect(throws: DecodingError.self) { try KeyedArchiveDecoder().decode(String.self, from: bytes) }
    }

    // MARK: The malformed corpus

    /// Reaches every object under the root the way a generic model would: each key of an instance (as
    /// another walker), each element of a list, the scalar otherwise.
    struct Walker: Decodable {
        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(from decoder: any Decoder) throws {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() { return }
            if let keyed = try? decoder.container(keyedBy: Key.self) {
                for key in keyed.allKeys { _ = try keyed.decode(Walker.self, forKey: key) }
            } else if var list = try? decoder.unkeyedContainer() {
                while !list.isAtEnd { _ = try list.decode(Walker.self) }
            } else {
                _ = (try? single.decode(String.self)) ?? (try? single.decode(Double.self)).map(String.init(describing:))
            }
        }
    }

    /// Every file of `malformed/` that the eager view rejects is rejected by a typed decode of everything its
    /// root reaches with the same code, or its damage is outside what the root reaches: then decoding the
    /// whole-file view (which is what reaches everything) rejects it.
    @Test(.enabled(if: SharedCorpus.isAvailable, "../shared/corpus is not beside the package"))
    func malformedCorpusFilesGetTheEagerCodeWhenTheDamageIsReached() throws {
        var reached = 0
        for name in SharedCorpus.files(in: "malformed") {
            let bytes = try SharedCorpus.bytes("malformed", name)
            let eager: ArchiveError
            do {
                _ = try KeyedArchiveView(bytes: bytes)
                continue
            } catch {
                eager = error
            }
            do {
                _ = try KeyedArchiveDecoder().decode(Walker.self, from: bytes)
                // Not reached from the root: the damage is elsewhere (a $top entry other than root, an
                // object no reference leads to). Say which, so that a regression cannot hide here.
                let table = try ArchiveRecordTable(lazy: bytes, options: .init())
                _ = try KeyedArchiveDecoder().decode(Walker.self, from: table)
                #expect(table.validatedCount < table.count, "\(name): every object was reached, yet no \(eager.code)")
                print("malformed/\(name): damage not reached from the root (\(eager.code)); decoded")
            } catch let DecodingError.dataCorrupted(context) where context.underlyingError is ArchiveError {
                let code = (context.underlyingError as? ArchiveError)?.code
                #expect(code == eager.code, "\(name): eager \(eager), typed \(context.debugDescription)")
                reached += 1
            } catch {
                Issue.record("\(name): eager \(eager), typed decode threw \(error)")
            }
        }
        print("malformed corpus: \(reached) files rejected by the typed decode with the eager code")
    }
}
