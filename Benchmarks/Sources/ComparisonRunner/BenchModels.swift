import ArgumentParser
import AutoCoding
import BenchmarkFixtures
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The class names every writer uses for W1, so that corelibs and this package read each other's archives.
enum BenchNames {
    static let person = NSStringFromClass(FoundationPerson.self)
    static let address = NSStringFromClass(FoundationAddress.self)
}

/// What the checks read from any person model.
protocol PersonShape: AnyObject {
    var name: String { get }
    var age: Int { get }
    var height: Double { get }
    var isActive: Bool { get }
    var email: String { get }
    var birthday: Date { get }
    var tags: [String] { get }
    var shapeCity: String { get }
    var shapeZip: String { get }
    var shapeFriends: [AnyObject] { get }
}

/// An NSArray that hashes and compares by identity and archives as NSArray. corelibs' NSKeyedArchiver uniques
/// objects with `hash`/`isEqual:`, and NSArray's hash is its count, so many small arrays make it quadratic
/// (issue 7: N = 1,000 people took 18.6 s); with this it finishes, and the archive keeps Apple's shape (Apple's
/// archiver uniques objects by identity).
final class IdentityArray: NSArray {
    private var items: [AnyObject] = []

    convenience init(_ items: [AnyObject]) {
        self.init(objects: nil, count: 0)
        self.items = items
    }

    required init(objects: UnsafePointer<AnyObject>?, count: Int) {
        super.init(objects: nil, count: 0)
        if let objects { items = Array(UnsafeBufferPointer(start: objects, count: count)) }
    }

    required convenience init?(coder: NSCoder) { nil }

    required convenience init(arrayLiteral elements: Any...) {
        self.init(elements.map { $0 as AnyObject })
    }

    override var count: Int { items.count }
    override func object(at index: Int) -> Any { items[index] }
    override var hash: Int { ObjectIdentifier(self).hashValue }
    override func isEqual(_ object: Any?) -> Bool { (object as AnyObject?) === self }
    override var classForCoder: AnyClass { NSArray.self }
}

/// W1's person for swift-corelibs-foundation: an NSObject with NSSecureCoding.
final class FoundationPerson: NSObject, NSSecureCoding, PersonShape {
    static var supportsSecureCoding: Bool { true }
    var name: String
    var age: Int
    var height: Double
    var isActive: Bool
    var email: String
    var birthday: Date
    var tags: [String]
    var address: FoundationAddress
    var friends: [FoundationPerson] = []

    init(_ spec: PersonSpec) {
        (name, age, height, isActive, email, birthday, tags) =
            (spec.name, spec.age, spec.height, spec.isActive, spec.email, spec.birthday, spec.tags)
        address = FoundationAddress(street: spec.street, city: spec.city, zip: spec.zip)
    }

    static func make(_ specs: [PersonSpec]) -> [FoundationPerson] {
        let people = specs.map(FoundationPerson.init)
        for (person, spec) in zip(people, specs) { person.friends = spec.friends.map { people[$0] } }
        return people
    }

    func encode(with coder: NSCoder) {
        coder.encode(name as NSString, forKey: "name")
        coder.encode(age, forKey: "age")
        coder.encode(height, forKey: "height")
        coder.encode(isActive, forKey: "isActive")
        coder.encode(email as NSString, forKey: "email")
        coder.encode(birthday as NSDate, forKey: "birthday")
        coder.encode(IdentityArray(tags.map { $0 as NSString }), forKey: "tags")
        coder.encode(address, forKey: "address")
        coder.encode(IdentityArray(friends), forKey: "friends")
    }

    init?(coder: NSCoder) {
        guard let name = coder.decodeObject(of: NSString.self, forKey: "name"),
            let email = coder.decodeObject(of: NSString.self, forKey: "email"),
            let birthday = coder.decodeObject(of: NSDate.self, forKey: "birthday"),
            let tags = coder.decodeObject(of: [NSArray.self, NSString.self], forKey: "tags") as? [String],
            let address = coder.decodeObject(of: FoundationAddress.self, forKey: "address"),
            let friends = coder.decodeObject(of: [NSArray.self, FoundationPerson.self], forKey: "friends")
                as? [FoundationPerson]
        else { return nil }
        self.name = name as String
        self.email = email as String
        self.birthday = birthday as Date
        self.tags = tags
        self.address = address
        self.friends = friends
        age = coder.decodeInteger(forKey: "age")
        height = coder.decodeDouble(forKey: "height")
        isActive = coder.decodeBool(forKey: "isActive")
    }

    var shapeCity: String { address.city }
    var shapeZip: String { address.zip }
    var shapeFriends: [AnyObject] { friends }
}

final class FoundationAddress: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    var street: String
    var city: String
    var zip: String

    init(street: String, city: String, zip: String) {
        (self.street, self.city, self.zip) = (street, city, zip)
    }

    func encode(with coder: NSCoder) {
        coder.encode(street as NSString, forKey: "street")
        coder.encode(city as NSString, forKey: "city")
        coder.encode(zip as NSString, forKey: "zip")
    }

    init?(coder: NSCoder) {
        guard let street = coder.decodeObject(of: NSString.self, forKey: "street"),
            let city = coder.decodeObject(of: NSString.self, forKey: "city"),
            let zip = coder.decodeObject(of: NSString.self, forKey: "zip")
        else { return nil }
        (self.street, self.city, self.zip) = (street as String, city as String, zip as String)
    }
}

/// W1's person for the Codable bridge. Archived under the corelibs class names, so both read each other's bytes.
final class BenchPerson: Codable, ArchiveCodable, PersonShape {
    static var archiveClassName: String { BenchNames.person }
    var name: String
    var age: Int
    var height: Double
    var isActive: Bool
    var email: String
    var birthday: Date
    var tags: [String]
    var address: BenchAddress
    var friends: [BenchPerson] = []

    init(_ spec: PersonSpec) {
        (name, age, height, isActive, email, birthday, tags) =
            (spec.name, spec.age, spec.height, spec.isActive, spec.email, spec.birthday, spec.tags)
        address = BenchAddress(street: spec.street, city: spec.city, zip: spec.zip)
    }

    static func make(_ specs: [PersonSpec]) -> [BenchPerson] {
        let people = specs.map(BenchPerson.init)
        for (person, spec) in zip(people, specs) { person.friends = spec.friends.map { people[$0] } }
        return people
    }

    var shapeCity: String { address.city }
    var shapeZip: String { address.zip }
    var shapeFriends: [AnyObject] { friends }
}

final class BenchAddress: Codable, ArchiveCodable {
    static var archiveClassName: String { BenchNames.address }
    var street: String
    var city: String
    var zip: String

    init(street: String, city: String, zip: String) {
        (self.street, self.city, self.zip) = (street, city, zip)
    }
}

/// W1's person as an `@AutoCoding` model: decodes reference cycles too (allocate, register, fill).
@AutoCoding(identityEquality: true)
final class AutoPerson: ArchiveCodable, PersonShape {
    static var archiveClassName: String { BenchNames.person }
    var name = ""
    var age = 0
    var height = 0.0
    var isActive = false
    var email = ""
    var birthday = Date(timeIntervalSinceReferenceDate: 0)
    var tags: [String] = []
    var address = AutoAddress()
    var friends: [AutoPerson] = []

    static func make(_ specs: [PersonSpec]) -> [AutoPerson] {
        let people = specs.map { spec in
            let person = AutoPerson(autoCodingShell: AutoCodingShell())
            (person.name, person.age, person.height, person.isActive, person.email, person.birthday, person.tags) =
                (spec.name, spec.age, spec.height, spec.isActive, spec.email, spec.birthday, spec.tags)
            let address = AutoAddress()
            (address.street, address.city, address.zip) = (spec.street, spec.city, spec.zip)
            person.address = address
            return person
        }
        for (person, spec) in zip(people, specs) { person.friends = spec.friends.map { people[$0] } }
        return people
    }

    var shapeCity: String { address.city }
    var shapeZip: String { address.zip }
    var shapeFriends: [AnyObject] { friends }
}

@AutoCoding(identityEquality: true)
final class AutoAddress: ArchiveCodable {
    static var archiveClassName: String { BenchNames.address }
    var street = ""
    var city = ""
    var zip = ""
}

/// W1 as the equivalent Codable plist for PropertyListEncoder/Decoder: a plist cannot share objects, so friends
/// are indices into the array.
struct PersonRecord: Codable {
    struct Address: Codable {
        var street: String
        var city: String
        var zip: String
    }
    var name: String
    var age: Int
    var height: Double
    var isActive: Bool
    var email: String
    var birthday: Date
    var tags: [String]
    var address: Address
    var friends: [Int]

    init(_ spec: PersonSpec) {
        (name, age, height, isActive, email, birthday, tags, friends) =
            (spec.name, spec.age, spec.height, spec.isActive, spec.email, spec.birthday, spec.tags, spec.friends)
        address = Address(street: spec.street, city: spec.city, zip: spec.zip)
    }
}

/// W4's stand-in for classes corelibs does not know: decodes nothing (NSCoder cannot list an object's keys).
final class UnknownArchivedObject: NSObject, NSCoding {
    func encode(with coder: NSCoder) {}
    init?(coder: NSCoder) { super.init() }
}

/// The substituting delegate W4 hands corelibs, as an application reading foreign archives must.
final class SubstitutingDelegate: NSObject, NSKeyedUnarchiverDelegate {
    func unarchiver(
        _ unarchiver: NSKeyedUnarchiver, cannotDecodeObjectOfClassName name: String, originalClasses classNames: [String]
    ) -> AnyClass? {
        UnknownArchivedObject.self
    }

    // corelibs' protocol has no default implementations. In corelibs, returning nil here keeps the decoded object;
    // returning it records a replacement for every object decoded, in a dictionary hashed by `hash` (an NSArray's
    // is its count), which made W4 take minutes instead of a fraction of a second.
    func unarchiver(_ unarchiver: NSKeyedUnarchiver, didDecode object: Any?) -> Any? { nil }
    func unarchiver(_ unarchiver: NSKeyedUnarchiver, willReplace object: Any, with newObject: Any) {}
    func unarchiverWillFinish(_ unarchiver: NSKeyedUnarchiver) {}
    func unarchiverDidFinish(_ unarchiver: NSKeyedUnarchiver) {}
}
