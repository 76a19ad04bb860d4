import AutoCoding
import Foundation
import OrderedCollections
import Testing

/// An NSCoding-style class whose archived key ("n") differs from its Swift property name ("value").
final class ParityCounter: ArchiveCoding, ArchiveCodable, Hashable {
    static let archiveClassName = "ParityCounter"
    var value: Int
    init(_ value: Int) { self.value = value }
    func encode(with coder: KeyedArchiver) throws { coder.encode(value, forKey: "n") }
    init(coder: KeyedUnarchiver) throws { value = try coder.decodeInteger(forKey: "n") }
    static func == (lhs: ParityCounter, rhs: ParityCounter) -> Bool { lhs.value == rhs.value }
    func hash(into hasher: inout Hasher) { hasher.combine(value) }
}

/// Archives itself as a ``ParityCounter`` of twice its value.
final class ParityDoubler: ArchiveCoding {
    let value: Int
    init(_ value: Int) { self.value = value }
    func encode(with coder: KeyedArchiver) throws { preconditionFailure("replaced before encoding") }
    init(coder: KeyedUnarchiver) throws { value = 0 }
    func replacementObject(for archiver: KeyedArchiver) -> Any? { ParityCounter(value * 2) }
}

/// Comes back from decoding as a ``ParityCounter`` of ten times its value (`awakeAfter`).
final class ParityAwake: ArchiveCoding, ArchiveCodable {
    static let archiveClassName = "ParityAwake"
    let value: Int
    init(_ value: Int) { self.value = value }
    func encode(with coder: KeyedArchiver) throws { coder.encode(value, forKey: "v") }
    init(coder: KeyedUnarchiver) throws { value = try coder.decodeInteger(forKey: "v") }
    func awakeAfter(using unarchiver: KeyedUnarchiver) throws -> Any { ParityCounter(value * 10) }
}

/// A plain class with no coding of its own: archived by reflection.
final class ParityPlain {
    var label = "plain"
}

/// A Codable struct holding NSCoding-style objects.
struct ParityHolder: Codable {
    var one: ParityCounter
    var many: [ParityCounter]
    var maybe: ParityCounter?
    var byName: [String: ParityCounter]
}

@AutoCoding
final class ParityModel {
    var counter: ParityCounter?
    var counters: [ParityCounter] = []
    var required = ParityCounter(0)
}

@AutoCoding
final class ParityPerson {
    var name = ""
    var best: ParityPerson?
}

@AutoCoding
final class ParityCat {
    var name = ""
    var lives = 9
}

@AutoCoding
class ParityAnimal {
    var name = ""
}

@AutoCoding
final class ParityDog: ParityAnimal {
    var legs = 4
}

/// Holds a cat where a person is declared (built by hand below).
@AutoCoding
final class ParityCatOwner {
    var best: ParityCat?
}

/// The root object's fields of an archive.
func rootFields(_ data: Data) throws -> [String: ArchivedValue] {
    let root = try #require(try ArchiveGraph(bytes: [UInt8](data)).root?.object)
    return Dictionary(uniqueKeysWithValues: root.fields.map { ($0.key, $0.value) })
}

func decodingError(_ body: () throws -> Void) -> String? {
    do {
        try body()
        return nil
    } catch let error as DecodingError {
        return "\(error)"
    } catch {
        return "not a DecodingError: \(error)"
    }
}

@Suite("Objective-C parity: NSCoding-style objects wherever they sit")
struct ArchiveCodingEverywhereTests {
    @Test func anArrayElementIsCodedByItsOwnMethods() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: [ParityCounter(99), ParityCounter(7)])
        let graph = try ArchiveGraph(bytes: [UInt8](data))
        guard case .array(let elements)? = graph.root?.object?["NS.objects"] else {
            Issue.record("no NS.objects")
            return
        }
        let first = try #require(elements.first?.object)
        #expect(first.className == "ParityCounter")
        #expect(first["n"]?.int == 99)
        #expect(first["value"] == nil)
        let back = try #require(try KeyedUnarchiver.unarchivedObject(ofType: [ParityCounter].self, from: data))
        #expect(back.map(\.value) == [99, 7])
    }

    @Test func dictionaryValuesAndSetElementsAreCodedByTheirOwnMethods() throws {
        let data = try KeyedArchiveEncoder().encode(["a": ParityCounter(1), "b": ParityCounter(2)])
        let back = try KeyedArchiveDecoder().decode([String: ParityCounter].self, from: data)
        #expect(back.mapValues(\.value) == ["a": 1, "b": 2])

        let setData = try KeyedArchiveEncoder().encode(Set([ParityCounter(3), ParityCounter(4)]))
        let set = try KeyedArchiveDecoder().decode(Set<ParityCounter>.self, from: setData)
        #expect(Set(set.map(\.value)) == [3, 4])
    }

    @Test func optionalsHoldNSCodingObjects() throws {
        let some: ParityCounter? = ParityCounter(5)
        let data = try KeyedArchiveEncoder().encode([some, nil])
        let back = try KeyedArchiveDecoder().decode([ParityCounter?].self, from: data)
        #expect(back.map { $0?.value } == [5, nil])
    }

    @Test func heterogeneousArraysAndDictionariesUseEachElementsOwnCoding() throws {
        let archiver = KeyedArchiver()
        try archiver.encode([ParityCounter(99), "text", 3] as [Any], forKey: "list")
        try archiver.encode(["c": ParityCounter(12)] as [String: Any], forKey: "map")
        let data = try archiver.encodedData()
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        unarchiver.setClass(ParityCounter.self, forClassName: "ParityCounter")
        let list = try #require(try unarchiver.decodeObject(forKey: "list") as? [Any])
        #expect((list.first as? ParityCounter)?.value == 99)
        #expect(list.dropFirst().first as? String == "text")
        let map = try #require(try unarchiver.decodeObject(forKey: "map") as? [AnyHashable: Any])
        #expect((map["c"] as? ParityCounter)?.value == 12)
    }

    @Test func topLevelEntriesAreCodedByTheirOwnMethods() throws {
        let archiver = KeyedArchiver()
        try archiver.encode(ParityCounter(41), forKey: "first")
        try archiver.encode([ParityCounter(42)], forKey: "second")
        let unarchiver = try KeyedUnarchiver(forReadingFrom: try archiver.encodedData())
        #expect(try unarchiver.decodeObject(of: ParityCounter.self, forKey: "first")?.value == 41)
        #expect(try unarchiver.decodeObject(of: [ParityCounter].self, forKey: "second")?.map(\.value) == [42])
    }

    @Test func codableValuesHoldNSCodingObjects() throws {
        let shared = ParityCounter(8)
        let holder = ParityHolder(one: shared, many: [shared, ParityCounter(9)], maybe: nil, byName: ["x": ParityCounter(10)])
        let data = try KeyedArchiveEncoder().encode(holder)
        #expect(try rootFields(data)["one"]?.object?["n"]?.int == 8)
        let back = try KeyedArchiveDecoder().decode(ParityHolder.self, from: data)
        #expect(back.one.value == 8)
        #expect(back.many.map(\.value) == [8, 9])
        #expect(back.many[0] === back.one)
        #expect(back.maybe == nil)
        #expect(back.byName["x"]?.value == 10)
    }

    @Test func autoCodingPropertiesHoldNSCodingObjects() throws {
        let model = ParityModel()
        model.counter = ParityCounter(99)
        model.counters = [ParityCounter(1), ParityCounter(2)]
        model.required = ParityCounter(3)
        let data = try KeyedArchiver.archivedData(withRootObject: model)
        #expect(try rootFields(data)["counter"]?.object?["n"]?.int == 99)
        let back = try KeyedArchiveDecoder().decode(ParityModel.self, from: data)
        #expect(back.counter?.value == 99)
        #expect(back.counters.map(\.value) == [1, 2])
        #expect(back.required.value == 3)
    }

    @Test func elementsAreReplacedBeforeEncodingAndAwakenedAfterDecoding() throws {
        let data = try KeyedArchiveEncoder().encode([ParityDoubler(21)])
        let back = try KeyedArchiveDecoder().decode([ParityCounter].self, from: data)
        #expect(back.map(\.value) == [42])

        let awakeData = try KeyedArchiveEncoder().encode([ParityAwake(4)])
        let unarchiver = try KeyedUnarchiver(forReadingFrom: awakeData)
        unarchiver.setClass(ParityAwake.self, forClassName: "ParityAwake")
        let awake = try #require(try unarchiver.decodeObject(forKey: "root") as? [Any])
        #expect((awake.first as? ParityCounter)?.value == 40)
    }

    @Test func typesWithoutCodingOfTheirOwnAreStillReflected() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: [ParityPlain()] as [Any])
        let graph = try ArchiveGraph(bytes: [UInt8](data))
        guard case .array(let elements)? = graph.root?.object?["NS.objects"] else {
            Issue.record("no NS.objects")
            return
        }
        #expect(elements.first?.object?["label"]?.string == "plain")
    }

    @Test func otherEncodersGetANestedArchive() throws {
        let json = try JSONEncoder().encode([ParityCounter(6)])
        let back = try JSONDecoder().decode([ParityCounter].self, from: json)
        #expect(back.map(\.value) == [6])
    }
}

@Suite("Objective-C parity: object classes checked like NSSecureCoding")
struct ObjectClassCheckTests {
    static func catArchive() throws -> Data {
        let cat = ParityCat()
        cat.name = "Tom"
        return try KeyedArchiver.archivedData(withRootObject: cat)
    }

    @Test func readingAnArchiveOfAnotherClassThrowsNamingBothClasses() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("parity-cat-\(UUID()).archive").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Self.catArchive().write(to: URL(fileURLWithPath: path))
        let message = decodingError { _ = try ParityPerson.read(contentsOfFile: path) }
        let text = try #require(message)
        #expect(text.contains("ParityCat"))
        #expect(text.contains("ParityPerson"))
    }

    @Test func anObjectOfAnotherClassUnderAPropertyThrowsNamingThePath() throws {
        let owner = ParityCatOwner()
        owner.best = ParityCat()
        var encoder = KeyedArchiveEncoder()
        // Written as a person whose `best` is a cat.
        encoder.setClassName(String(reflecting: ParityPerson.self), for: ParityCatOwner.self)
        let data = try encoder.encode(owner)
        do {
            _ = try KeyedArchiveDecoder().decode(ParityPerson.self, from: data)
            Issue.record("a cat was accepted as a person")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(context.codingPath.last?.stringValue == "best")
            #expect(context.debugDescription.contains("ParityCat"))
            #expect(context.debugDescription.contains("ParityPerson"))
        }
    }

    @Test func nsCodingObjectsOfAnotherClassThrow() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: ParityAwake(1))
        #expect(decodingError { _ = try KeyedUnarchiver.unarchivedObject(ofType: ParityCounter.self, from: data) }?
            .contains("ParityAwake") == true)
        #expect(decodingError { _ = try KeyedArchiveDecoder().decode([ParityCounter].self, from: KeyedArchiveEncoder().encode([ParityAwake(1)])) }?
            .contains("ParityCounter") == true)
    }

    @Test func aRegisteredSubclassIsAccepted() throws {
        let dog = ParityDog()
        dog.name = "rex"
        let data = try KeyedArchiver.archivedData(withRootObject: dog)
        var decoder = KeyedArchiveDecoder()
        decoder.setClass(ParityDog.self, forClassName: String(reflecting: ParityDog.self))
        let back = try decoder.decode(ParityAnimal.self, from: data)
        #expect((back as? ParityDog)?.legs == 4)
        // Unregistered, the archived chain names the requested class: it decodes as that class.
        let plain = try KeyedArchiveDecoder().decode(ParityAnimal.self, from: data)
        #expect(type(of: plain) == ParityAnimal.self && plain.name == "rex")
    }

    @Test func aSubstitutionToAnUnrelatedTypeThrows() throws {
        var decoder = KeyedArchiveDecoder()
        decoder.setClass(ParityCat.self, forClassName: String(reflecting: ParityPerson.self))
        let data = try KeyedArchiver.archivedData(withRootObject: ParityPerson())
        let message = try #require(decodingError { _ = try decoder.decode(ParityPerson.self, from: data) })
        #expect(message.contains("ParityCat") && message.contains("ParityPerson"))
    }

    @Test func anAutoCodingClassListedInOfClassesDecodesAsItself() throws {
        let person = ParityPerson()
        person.name = "Ada"
        let data = try KeyedArchiver.archivedData(withRootObject: person)
        let back = try KeyedUnarchiver.unarchivedObject(ofClasses: [ParityPerson.self, String.self], from: data)
        #expect((back as? ParityPerson)?.name == "Ada")
        let counter = try KeyedUnarchiver.unarchivedObject(
            ofClasses: [ParityCounter.self], from: KeyedArchiver.archivedData(withRootObject: ParityCounter(3)))
        #expect((counter as? ParityCounter)?.value == 3)
    }

    @Test func ofClassesStillRefusesClassesNotListed() throws {
        let data = try Self.catArchive()
        #expect(decodingError { _ = try KeyedUnarchiver.unarchivedObject(ofClasses: [ParityPerson.self], from: data) } != nil)
    }
}

@AutoCoding
final class ParityPrice {
    var amount: Decimal = 0
    var discount: Decimal? = nil
}

@Suite("Objective-C parity: Foundation-compatible by default")
struct FoundationCompatibleTests {
    static let decimalChain = ["NSDecimalNumber", "NSNumber", "NSValue", "NSObject"]

    /// An `NSDecimalNumber` as Apple's archiver writes one.
    static func appleDecimal(className: String = "NSDecimalNumber", exponent: Int64, length: Int64, negative: Bool,
                             mantissa: [UInt8], byteOrder: Int64 = 1) -> ArchiveGraph
    {
        let object = ArchivedObject(
            archiveClass: ArchiveClass(name: className, chain: [className, "NSNumber", "NSValue", "NSObject"]),
            fields: [
                "NS.exponent": .inline(.integer(exponent)), "NS.length": .inline(.integer(length)),
                "NS.negative": .inline(.bool(negative)), "NS.compact": .inline(.bool(true)),
                "NS.mantissa.bo": .inline(.integer(byteOrder)), "NS.mantissa": .inline(.data(mantissa)),
            ])
        return ArchiveGraph(roots: ["root": .object(object)])
    }

    @Test func nilOptionalsAreWrittenAsNull() throws {
        let fields = try rootFields(KeyedArchiver.archivedData(withRootObject: ParityPerson()))
        #expect(fields["best"]?.isNull == true)
        let back = try KeyedArchiveDecoder().decode(ParityPerson.self, from: KeyedArchiver.archivedData(withRootObject: ParityPerson()))
        #expect(back.best == nil)
    }

    @Test func decimalIsArchivedAsNSDecimalNumberWithApplesKeys() throws {
        let data = try KeyedArchiveEncoder().encode(Decimal(string: "-123.456")!)
        let root = try #require(try ArchiveGraph(bytes: [UInt8](data)).root?.object)
        #expect(root.archiveClass == ArchiveClass(name: "NSDecimalNumber", chain: Self.decimalChain))
        #expect(Array(root.fields.keys) == ["NS.exponent", "NS.length", "NS.negative", "NS.compact", "NS.mantissa.bo", "NS.mantissa"])
        #expect(root["NS.exponent"]?.int == -3)
        #expect(root["NS.length"]?.int == 2)
        #expect(root["NS.negative"]?.bool == true)
        // 123456 = 0x0001_E240: words 0xE240, 0x0001, little-endian.
        #expect(root["NS.mantissa"]?.bytes == [0x40, 0xE2, 0x01, 0x00] + [UInt8](repeating: 0, count: 12))
    }

    @Test(arguments: ["0", "1.5", "-123.456", "3.14159265358979323846264338327950288", "1e100", "-0.000001"])
    func decimalsRoundTrip(_ text: String) throws {
        let value = try #require(Decimal(string: text))
        #expect(try KeyedArchiveDecoder().decode(Decimal.self, from: KeyedArchiveEncoder().encode(value)) == value)
    }

    @Test func decimalNaNRoundTrips() throws {
        #expect(try KeyedArchiveDecoder().decode(Decimal.self, from: KeyedArchiveEncoder().encode(Decimal.nan)).isNaN)
    }

    @Test func applesNSDecimalNumberDecodes() throws {
        // 3.14 = 314 × 10⁻²; Apple reads its own archives as NSDecimalNumberPlaceholder.
        for name in ["NSDecimalNumber", "NSDecimalNumberPlaceholder"] {
            let graph = Self.appleDecimal(className: name, exponent: -2, length: 1, negative: false,
                                          mantissa: [0x3A, 0x01] + [UInt8](repeating: 0, count: 14))
            let bytes = graph.binaryPlist()
            #expect(try KeyedArchiveDecoder().decode(Decimal.self, from: bytes) == Decimal(string: "3.14"))
            #expect(try KeyedUnarchiver(bytes: bytes).decodeObject(forKey: "root") as? Decimal == Decimal(string: "3.14"))
        }
        let bigEndian = Self.appleDecimal(exponent: 0, length: 1, negative: true, mantissa: [0x01, 0x3A] + [UInt8](repeating: 0, count: 14),
                                          byteOrder: 2)
        #expect(try KeyedArchiveDecoder().decode(Decimal.self, from: bigEndian.binaryPlist()) == -314)
    }

    @Test func aDecimalPropertyRoundTripsAndReadsPlainNumbers() throws {
        let price = ParityPrice()
        price.amount = Decimal(string: "19.99")!
        let back = try KeyedArchiveDecoder().decode(ParityPrice.self, from: KeyedArchiver.archivedData(withRootObject: price))
        #expect(back.amount == Decimal(string: "19.99"))
        #expect(back.discount == nil)
        #expect(try KeyedArchiveDecoder().decode(Decimal.self, from: KeyedArchiveEncoder().encode(42)) == 42)
    }

    @Test func aDamagedNSDecimalNumberIsAnErrorNamingThePath() throws {
        let short = Self.appleDecimal(exponent: 0, length: 1, negative: false, mantissa: [1, 0])
        let message = try #require(decodingError { _ = try KeyedArchiveDecoder().decode(Decimal.self, from: short.binaryPlist()) })
        #expect(message.contains("NS.mantissa has 2 bytes"))
        let long = Self.appleDecimal(exponent: 0, length: 9, negative: false, mantissa: [UInt8](repeating: 0, count: 16))
        #expect(decodingError { _ = try KeyedArchiveDecoder().decode(Decimal.self, from: long.binaryPlist()) }?.contains("NS.length") == true)
        let missing = Self.appleDecimal(exponent: 0, length: 1, negative: false, mantissa: [UInt8](repeating: 0, count: 16))
        let object = try #require(missing.root?.object)
        object.fields["NS.exponent"] = nil
        #expect(decodingError { _ = try KeyedArchiveDecoder().decode(Decimal.self, from: missing.binaryPlist()) }?.contains("NS.exponent") == true)
    }

    @Test func aNullWhereAValueTypeIsRequiredIsAnError() throws {
        let graph = ArchiveGraph(roots: ["root": .object(ArchivedObject(
            archiveClass: ArchiveClass(name: String(reflecting: ParityCat.self), chain: []),
            fields: ["name": .null, "lives": .inline(.integer(3))]))])
        let message = try #require(decodingError { _ = try KeyedArchiveDecoder().decode(ParityCat.self, from: graph.binaryPlist()) })
        #expect(message.contains("name"))
    }
}

@Suite("Objective-C parity: read(contentsOfFile:) falls back like objectWithContentsOfFile:")
struct ReadContentsOfFileTests {
    static func temporaryFile(_ data: Data) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("parity-\(UUID()).plist").path
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func aPlainPropertyListFillsTheProperties() throws {
        let plist = try PropertyListSerialization.data(fromPropertyList: ["name": "Ada", "lives": 3], format: .xml, options: 0)
        let path = try Self.temporaryFile(plist)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let cat = try ParityCat.read(contentsOfFile: path)
        #expect(cat.name == "Ada" && cat.lives == 3)
    }

    @Test func rawDataIsAnErrorNamingTheClass() throws {
        let path = try Self.temporaryFile(Data("just text".utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let message = try #require(decodingError { _ = try ParityCat.read(contentsOfFile: path) })
        #expect(message.contains("ParityCat"))
    }

    @Test func anArchiveOfTheClassReadsBack() throws {
        let cat = ParityCat()
        cat.name = "Felix"
        let path = try Self.temporaryFile(KeyedArchiver.archivedData(withRootObject: cat))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try ParityCat.read(contentsOfFile: path).name == "Felix")
    }
}

/// Writes its own `encode(to:)` and `decodeProperties(from:)`, calling the generated ones as `[super …]`.
@AutoCoding
final class ParityCustomCoded {
    var title = ""
    @Uncodable var version = 0

    func encode(to encoder: any Encoder) throws {
        try autoCodingEncode(to: encoder)
        var container = encoder.container(keyedBy: AutoCodingKey.self)
        try container.encode(2, forKey: AutoCodingKey("version"))
    }

    func decodeProperties(from decoder: any Decoder) throws {
        try autoCodingDecodeProperties(from: decoder)
        version = try decoder.container(keyedBy: AutoCodingKey.self).decode(Int.self, forKey: AutoCodingKey("version"))
    }
}

@AutoCoding
class ParityHookBase {
    var value = 0
}

/// Declares a hook only in the subclass: it runs.
@AutoCoding
final class ParityHookChild: ParityHookBase {
    var extra = ""
    @Uncodable var decoded = false
    override func autoCodingDidDecode(from decoder: any Decoder) throws { decoded = true }
}

/// Declares an encode hook only in the subclass: it runs when the object is written as its base class (the
/// encoder finds the hooks through the object's own type, not through the declared one).
@AutoCoding
final class ParityEncodeHookChild: ParityHookBase {
    override func autoCodingDidEncode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AutoCodingKey.self)
        try container.encode(true, forKey: AutoCodingKey("hooked"))
    }
}

@AutoCoding
final class ParityNSObjectModel: NSObject {
    var name = ""
    var count = 0
}

@Suite("Objective-C parity: generated code yields to yours")
struct GeneratedCodeYieldsTests {
    @Test func yourEncodeAndDecodePropertiesWinAndCallTheGenerated() throws {
        let model = ParityCustomCoded()
        model.title = "t"
        let data = try KeyedArchiver.archivedData(withRootObject: model)
        let fields = try rootFields(data)
        #expect(fields["title"]?.string == "t")
        #expect(fields["version"]?.int == 2)
        let back = try KeyedArchiveDecoder().decode(ParityCustomCoded.self, from: data)
        #expect(back.title == "t" && back.version == 2)
    }

    @Test func aHookDeclaredOnlyInASubclassIsCalled() throws {
        let child = ParityHookChild()
        child.value = 3
        child.extra = "x"
        let back = try KeyedArchiveDecoder().decode(ParityHookChild.self, from: KeyedArchiver.archivedData(withRootObject: child))
        #expect(back.decoded)
        #expect(back.value == 3 && back.extra == "x")
    }

    @Test func aSubclassEncodeHookRunsForAnObjectHeldAsItsBaseClass() throws {
        let list: [ParityHookBase] = [ParityEncodeHookChild(), ParityHookBase(), ParityEncodeHookChild()]
        let graph = try ArchiveGraph(bytes: [UInt8](KeyedArchiveEncoder().encode(list)))
        guard case .array(let elements)? = graph.root?.object?.fields["NS.objects"] else {
            Issue.record("expected an NSArray root, read \(String(describing: graph.root))")
            return
        }
        let hooked = elements.map { $0.object?.fields["hooked"] != nil }
        #expect(hooked == [true, false, true])
    }

    @Test func anNSObjectSubclassWritesApplesChainAndComparesItsProperties() throws {
        let model = ParityNSObjectModel()
        model.name = "n"
        model.count = 2
        let data = try KeyedArchiver.archivedData(withRootObject: model)
        let root = try #require(try ArchiveGraph(bytes: [UInt8](data)).root?.object)
        let name = String(reflecting: ParityNSObjectModel.self)
        #expect(root.archiveClass == ArchiveClass(name: name, chain: [name, "NSObject"]))
        let back = try KeyedArchiveDecoder().decode(ParityNSObjectModel.self, from: data)
        #expect(back == model)
        #expect(back.hash == model.hash)
        back.count = 3
        #expect(back != model)
    }
}

@AutoCoding
struct ParityPoint {
    var x = 0
    var label = ""
}

@Suite("Objective-C parity: @AutoCoding structs compare their properties")
struct StructEqualityTests {
    @Test func structsAreEquatableAndHashableByTheirProperties() {
        let a = ParityPoint(x: 1, label: "a")
        #expect(a == ParityPoint(x: 1, label: "a"))
        #expect(a != ParityPoint(x: 2, label: "a"))
        #expect(Set([a, ParityPoint(x: 1, label: "a")]).count == 1)
    }
}

/// A struct that opts out of the generated `==` and `hash(into:)`.
@AutoCoding(equatable: false)
struct ParityOpaque {
    var x = 0
}

/// A struct with an `==` of its own (it declares `Equatable`): the macro generates none.
@AutoCoding
struct ParityTolerant: Equatable {
    var x = 0.0
    static func == (lhs: ParityTolerant, rhs: ParityTolerant) -> Bool { abs(lhs.x - rhs.x) < 0.5 }
}

@Suite("Objective-C parity: @AutoCoding(equatable: false)")
struct StructEqualityOptOutTests {
    @Test func anOptedOutStructHasNoGeneratedEquality() {
        #expect((ParityOpaque(x: 1) as Any) is any Equatable == false)
        #expect((ParityPoint(x: 1) as Any) is any Hashable)
    }

    @Test func aStructDeclaringEquatableKeepsItsOwnEquality() {
        #expect(ParityTolerant(x: 1) == ParityTolerant(x: 1.2))
        #expect((ParityTolerant(x: 1) as Any) is any Hashable == false)
    }
}
