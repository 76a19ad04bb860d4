import AutoCoding
import Foundation
import OrderedCollections
import Testing

/// A model whose properties are stored as an Objective-C class would store them.
@AutoCoding
final class FormedNote {
    @ArchiveAs(.referenced) var count: Int = 7
    @ArchiveAs(.inline) var title: String = "t"
    @ArchiveAs(.inline) var digest: Data = Data([1, 2])
    @ArchiveAs(.nullWhenNil) var owner: String? = nil
    var editor: String? = nil
    @ArchiveAs(.omitWhenNil) var reviewer: String? = nil
    @ArchiveAs(.archiveClass("NSMutableArray", "NSArray", "NSObject")) var tags: [String] = ["a"]
    @ArchiveAs(.archiveClass("NSMutableData", "NSData", "NSObject", valueKey: "NS.bytes")) var color: Data = Data([9])
    @ArchiveAs(.archiveClass("NSMutableString", "NSString", "NSObject")) var body: String = "b"
}

/// A model keeping fields no Swift type fits as the archived graph value.
@AutoCoding
final class LooseNote {
    var title: String = ""
    var extra: ArchivedValue = .null
    var maybe: ArchivedValue? = nil
}

/// `next` is `$null` in some archives and missing in others.
@AutoCoding
final class DoubleOptionalLink {
    var name: String = ""
    var next: DoubleOptionalLink?? = nil
}

@AutoCoding
final class FormPin {
    var x: Int = 0
}

/// The typed field decodes first.
@AutoCoding
final class TypedFirstHolder {
    var owner: FormPin? = nil
    var loose: ArchivedValue = .null
}

/// The graph-value field decodes first.
@AutoCoding
final class LooseFirstHolder {
    var loose: ArchivedValue = .null
    var owner: FormPin? = nil
}

@Suite("archive forms and graph-value fields")
struct ArchiveFormTests {
    private func fields(of data: Data) throws -> (KeyedArchive, OrderedDictionary<String, ArchiveValue>) {
        let archive = try KeyedArchive(bytes: [UInt8](data))
        guard let root = archive.rootUID, case .dictionary(let fields)? = archive[root] else {
            Issue.record("no root instance")
            return (archive, [:])
        }
        return (archive, fields)
    }

    @Test func formsDecideHowEachFieldIsStored() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: FormedNote())
        let (archive, fields) = try fields(of: data)
        guard case .uid(let count)? = fields["count"] else { throw Failure("count is not referenced: \(fields)") }
        #expect(archive[count] == .integer(7))
        #expect(fields["title"] == .string("t"))
        #expect(fields["digest"] == .data([1, 2]))
        #expect(fields["owner"] == .uid(.null))
        #expect(fields["editor"] == .uid(.null))  // `$null` by default, as Apple's encodeObject:nil
        #expect(fields["reviewer"] == nil)
        guard case .uid(let tags)? = fields["tags"], case .uid(let color)? = fields["color"], case .uid(let body)? = fields["body"]
        else { throw Failure("collections are not instances: \(fields)") }
        #expect(archive.archiveClass(of: tags) == ArchiveClass(name: "NSMutableArray", chain: ["NSMutableArray", "NSArray", "NSObject"]))
        #expect(archive.archiveClass(of: color)?.name == "NSMutableData")
        #expect(archive[color]?["NS.bytes"] == .data([9]))
        #expect(archive.archiveClass(of: body)?.name == "NSMutableString")
        #expect(archive[body]?["NS.string"] == .string("b"))

        // Every form reads back.
        let back = try #require(try KeyedUnarchiver.unarchivedObject(ofType: FormedNote.self, from: data))
        #expect(back == FormedNote())
        #expect(back.count == 7 && back.title == "t" && back.digest == Data([1, 2]) && back.owner == nil)
        #expect(back.tags == ["a"] && back.color == Data([9]) && back.body == "b")
    }

    @Test func otherEncodersIgnoreTheForms() throws {
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(FormedNote())) as? [String: Any]
        #expect(json?["count"] as? Int == 7)
        #expect(json?["digest"] as? String == "AQI=")  // JSONEncoder's own Data strategy, not a wrapper's.
        #expect(json?["tags"] as? [String] == ["a"])
        #expect(json?["owner"] is NSNull)
        #expect(json?["editor"] is NSNull)
        #expect(json?.keys.contains("reviewer") == false)
    }

    @Test func aFormThatDoesNotApplyIsAnEncodingError() throws {
        struct Dated: Encodable {
            var when = Date(timeIntervalSinceReferenceDate: 0)
            func encode(to encoder: any Encoder) throws {
                var container = AutoCodingSupport.writer(encoder)
                try AutoCodingSupport.encode(when, to: &container, key: "when", as: [.inline])
            }
        }
        #expect {
            _ = try KeyedArchiveEncoder().encode(Dated())
        } throws: { error in
            guard case EncodingError.invalidValue(_, let context) = error else { return false }
            return context.debugDescription.contains("inline and referenced apply to numbers")
        }
        // A class instance may be shared: it is never given another class.
        struct Pinned: Encodable {
            var pin = FormPin()
            func encode(to encoder: any Encoder) throws {
                var container = AutoCodingSupport.writer(encoder)
                try AutoCodingSupport.encode(pin, to: &container, key: "pin", as: [.archiveClass("NSMutableArray")])
            }
        }
        #expect {
            _ = try KeyedArchiveEncoder().encode(Pinned())
        } throws: { error in
            guard case EncodingError.invalidValue(_, let context) = error else { return false }
            return context.debugDescription.contains("NSMutableArray applies to collections, strings and data")
        }
    }

    @Test func graphValueFieldsKeepWhatTheyHold() throws {
        // An archive of LooseNote written as a graph: `extra` a mixed dictionary with a nested object, `maybe` $null.
        let inner = ArchivedObject(className: "Pin", chain: ["Pin", "NSObject"], fields: ["x": .inline(.integer(1))])
        let extra = ArchivedObject(
            className: "NSDictionary", chain: ["NSDictionary", "NSObject"],
            fields: ["NS.keys": .array([.reference(.string("a")), .reference(.string("b"))]),
                     "NS.objects": .array([.reference(.real(1.5)), .object(inner)])])
        // The class as this package archives LooseNote (its module-qualified name).
        let archiveClass = try #require(try ArchiveGraph(bytes: [UInt8](KeyedArchiver.archivedData(withRootObject: LooseNote()))).root?.object?.archiveClass)
        let note = ArchivedObject(
            archiveClass: archiveClass,
            fields: ["title": .reference(.string("hi")), "extra": .object(extra), "maybe": .null])
        let original = ArchiveGraph(root: .object(note))
        let decoded = try #require(try KeyedUnarchiver.unarchivedObject(ofType: LooseNote.self, from: Data(original.binaryPlist())))
        #expect(decoded.title == "hi")
        #expect(decoded.extra.object?.className == "NSDictionary")
        guard case .null? = decoded.maybe else { throw Failure("maybe is \(String(describing: decoded.maybe)), not $null") }
        let again = try ArchiveGraph(bytes: [UInt8](KeyedArchiver.archivedData(withRootObject: decoded)))
        #expect(again.isEquivalent(to: original))

        // A missing key stays nil and is not written.
        note.fields["maybe"] = nil
        let missing = try #require(try KeyedUnarchiver.unarchivedObject(ofType: LooseNote.self, from: Data(original.binaryPlist())))
        #expect(missing.maybe == nil)
        #expect(try ArchiveGraph(bytes: [UInt8](KeyedArchiver.archivedData(withRootObject: missing))).isEquivalent(to: original))
    }

    /// One archived object reached through a typed property and through an ArchivedValue stays one object.
    @Test(arguments: [false, true])
    func anObjectReachedTypedAndAsAGraphValueStaysOne(looseFirst: Bool) throws {
        func archivedClass(_ value: some Encodable) throws -> ArchiveClass {
            try #require(try ArchiveGraph(bytes: [UInt8](KeyedArchiver.archivedData(withRootObject: value))).root?.object?.archiveClass)
        }
        let pin = ArchivedObject(archiveClass: try archivedClass(FormPin()), fields: ["x": .inline(.integer(5))])
        let holderClass = looseFirst ? try archivedClass(LooseFirstHolder()) : try archivedClass(TypedFirstHolder())
        let fields: OrderedDictionary<String, ArchivedValue> =
            looseFirst ? ["loose": .object(pin), "owner": .object(pin)] : ["owner": .object(pin), "loose": .object(pin)]
        let original = ArchiveGraph(root: .object(ArchivedObject(archiveClass: holderClass, fields: fields)))
        let data = Data(original.binaryPlist())
        let again: Data
        if looseFirst {
            let holder = try #require(try KeyedUnarchiver.unarchivedObject(ofType: LooseFirstHolder.self, from: data))
            #expect(holder.owner?.x == 5)
            again = try KeyedArchiver.archivedData(withRootObject: holder)
        } else {
            let holder = try #require(try KeyedUnarchiver.unarchivedObject(ofType: TypedFirstHolder.self, from: data))
            #expect(holder.owner?.x == 5)
            again = try KeyedArchiver.archivedData(withRootObject: holder)
        }
        #expect(try ArchiveGraph(bytes: [UInt8](again)).isEquivalent(to: original))
    }

    @Test func aDoubleOptionalKeepsNullApartFromMissing() throws {
        let archiveClass = try #require(
            try ArchiveGraph(bytes: [UInt8](KeyedArchiver.archivedData(withRootObject: DoubleOptionalLink()))).root?.object?.archiveClass)
        for next in [ArchivedValue.null, nil] {
            var fields: OrderedDictionary<String, ArchivedValue> = ["name": .reference(.string("a"))]
            fields["next"] = next
            let original = ArchiveGraph(root: .object(ArchivedObject(archiveClass: archiveClass, fields: fields)))
            let link = try #require(try KeyedUnarchiver.unarchivedObject(ofType: DoubleOptionalLink.self, from: Data(original.binaryPlist())))
            switch link.next {
            case .some(.none): #expect(next != nil, "$null reads as .some(nil)")
            case .none: #expect(next == nil, "a missing key reads as nil")
            case .some(.some): Issue.record("no link was archived")
            }
            let again = try ArchiveGraph(bytes: [UInt8](KeyedArchiver.archivedData(withRootObject: link)))
            #expect(again.isEquivalent(to: original))
        }
    }

    @Test func graphValuesRefuseOtherCoders() {
        #expect(throws: EncodingError.self) { _ = try JSONEncoder().encode([ArchivedValue.inline(.integer(1))]) }
        #expect(throws: DecodingError.self) { _ = try JSONDecoder().decode([ArchivedValue].self, from: Data("[1]".utf8)) }
    }

    @Test func equivalenceIgnoresKeyOrderAndScalarKeyedEntryOrder() {
        func dictionary(_ pairs: [(String, Int64)]) -> ArchivedValue {
            .object(ArchivedObject(
                className: "NSDictionary", chain: ["NSDictionary", "NSObject"],
                fields: ["NS.keys": .array(pairs.map { .reference(.string($0.0)) }),
                         "NS.objects": .array(pairs.map { .reference(.integer($0.1)) })]))
        }
        func thing(_ fields: OrderedDictionary<String, ArchivedValue>) -> ArchiveGraph {
            ArchiveGraph(root: .object(ArchivedObject(className: "Thing", fields: fields)))
        }
        let a = thing(["x": .inline(.integer(1)), "d": dictionary([("p", 1), ("q", 2)])])
        let b = thing(["d": dictionary([("q", 2), ("p", 1)]), "x": .inline(.integer(1))])
        #expect(a.isEquivalent(to: b))
        // Values still count, and so do keys and placement.
        #expect(!a.isEquivalent(to: thing(["x": .inline(.integer(1)), "d": dictionary([("p", 2), ("q", 1)])])))
        #expect(!a.isEquivalent(to: thing(["x": .inline(.integer(1)), "e": dictionary([("p", 1), ("q", 2)])])))
        #expect(!a.isEquivalent(to: thing(["x": .reference(.integer(1)), "d": dictionary([("p", 1), ("q", 2)])])))
        // An array's order counts.
        let list = { (values: [Int64]) in thing(["l": .array(values.map { .inline(.integer($0)) })]) }
        #expect(!list([1, 2]).isEquivalent(to: list([2, 1])))
    }
}

private struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
