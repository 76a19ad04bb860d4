import AutoCoding
import Foundation

// The workloads, generated from fixed seeds so that every run (and the committed malloc-count thresholds) sees
// the same inputs. The random generator and the W1, W2 and W3 generators live only here: the ordo-one benchmarks
// and `autocoding-bench` (ComparisonRunner) build their workloads from them, at their own sizes.

/// A small deterministic generator (SplitMix64).
public struct SplitMix64 {
    private var state: UInt64
    /// A generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) { state = seed }
    /// The next value of the sequence.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// One person of W1 as plain values, from which every model is built and against which every result is checked.
public struct PersonSpec {
    public var name: String
    public var age: Int
    public var height: Double
    public var isActive: Bool
    public var email: String
    public var birthday: Date
    public var tags: [String]
    public var street: String
    public var city: String
    public var zip: String
    public var friends: [Int]

    private static let first = [
        "Ann", "Bob", "Chloé", "Dmitri", "Eve", "Farah", "Gustav", "Hana", "Ivan", "Jun", "Kofi", "Lena", "Mateo",
        "Nia", "Olu", "Priya",
    ]
    private static let last = [
        "Smith", "Okafor", "Müller", "Tanaka", "Garcia", "Ivanova", "Chen", "Haddad", "Kowalski", "Silva", "Nguyen",
        "Berg", "Rossi", "Dubois", "Kim", "Novak",
    ]
    private static let tagWords = [
        "admin", "beta", "customer", "developer", "early", "family", "gold", "hiking", "intern", "java", "kayak",
        "lead", "music", "night", "ops", "photo", "quiet", "remote", "swift", "travel",
    ]
    private static let cities = [
        "Berlin", "Lagos", "Osaka", "Lima", "Toronto", "Nairobi", "Oslo", "Porto", "Quito", "Seoul", "Austin",
        "Dakar", "Hanoi", "Turin", "Zagreb", "Perth",
    ]

    /// N people from a fixed seed. Friends point to earlier people; with `cycles`, the first friend is the next
    /// person (the last points back to the first), so the whole array is one reference cycle.
    public static func generate(n: Int, cycles: Bool = false) -> [PersonSpec] {
        var rng = SplitMix64(seed: 0x5EED_0007)
        return (0..<n).map { i in
            let age = 18 + Int(rng.next() % 70)
            let height = 1.5 + Double(rng.next() % 500) / 1000
            let isActive = rng.next() & 1 == 1
            let birthday = Date(timeIntervalSinceReferenceDate: -1_000_000_000 + Double(rng.next() % 1_000_000_000))
            let tags = (0..<3).map { k in tagWords[(i + k * 7 + Int(rng.next() % 3)) % tagWords.count] }
            let street = "\(1 + rng.next() % 9999) \(last[Int(rng.next() % 16)]) Street"
            let city = cities[Int(rng.next() % 16)]
            let zip = String(10_000 + rng.next() % 90_000)
            var friends: [Int] = []
            if cycles {
                friends = [(i + 1) % n, Int(rng.next() % UInt64(max(i, 1)))]
            } else if i > 0 {
                friends = [Int(rng.next() % UInt64(i)), Int(rng.next() % UInt64(i))]
            }
            return PersonSpec(
                name: "\(first[i % 16]) \(last[(i / 16) % 16]) \(i)", age: age, height: height, isActive: isActive,
                email: "user\(i)@example.com", birthday: birthday, tags: tags, street: street, city: city, zip: zip,
                friends: friends)
        }
    }
}

/// W1's person for the Codable bridge: name, age, height, isActive, email, birthday, 3 tags, an address object and
/// 2 shared references to earlier people.
public final class Person: Codable {
    public var name: String
    public var age: Int
    public var height: Double
    public var isActive: Bool
    public var email: String
    public var birthday: Date
    public var tags: [String]
    public var address: Address
    public var friends: [Person] = []

    init(name: String, age: Int, height: Double, isActive: Bool, email: String, birthday: Date, tags: [String],
         address: Address) {
        (self.name, self.age, self.height, self.isActive, self.email, self.birthday, self.tags, self.address) =
            (name, age, height, isActive, email, birthday, tags, address)
    }
}

public final class Address: Codable {
    public var street: String
    public var city: String
    public var zip: String

    init(street: String, city: String, zip: String) {
        (self.street, self.city, self.zip) = (street, city, zip)
    }
}

/// The same person as an `@AutoCoding` model.
@AutoCoding(identityEquality: true)
public final class AutoPerson {
    public var name = ""
    public var age = 0
    public var height = 0.0
    public var isActive = false
    public var email = ""
    public var birthday = Date(timeIntervalSinceReferenceDate: 0)
    public var tags: [String] = []
    public var address = AutoAddress()
    public var friends: [AutoPerson] = []
}

@AutoCoding(identityEquality: true)
public final class AutoAddress {
    public var street = ""
    public var city = ""
    public var zip = ""
}

public enum Fixtures {
    /// W1: `n` people from ``PersonSpec/generate(n:cycles:)`` (the comparison runner's W1), friends pointing to
    /// earlier people.
    public static func people(_ n: Int) -> [Person] {
        let specs = PersonSpec.generate(n: n)
        let people = specs.map { s in
            Person(
                name: s.name, age: s.age, height: s.height, isActive: s.isActive, email: s.email, birthday: s.birthday,
                tags: s.tags, address: Address(street: s.street, city: s.city, zip: s.zip))
        }
        for (person, spec) in zip(people, specs) { person.friends = spec.friends.map { people[$0] } }
        return people
    }

    /// W1 as `@AutoCoding` objects (the same values).
    public static func autoPeople(_ n: Int) -> [AutoPerson] {
        let source = people(n)
        let result = source.map { p -> AutoPerson in
            let a = AutoPerson(autoCodingShell: AutoCodingShell())
            (a.name, a.age, a.height, a.isActive, a.email, a.birthday, a.tags) =
                (p.name, p.age, p.height, p.isActive, p.email, p.birthday, p.tags)
            (a.address.street, a.address.city, a.address.zip) = (p.address.street, p.address.city, p.address.zip)
            return a
        }
        let index = Dictionary(uniqueKeysWithValues: source.enumerated().map { (ObjectIdentifier($1), $0) })
        for (p, a) in zip(source, result) { a.friends = p.friends.map { result[index[ObjectIdentifier($0)]!] } }
        return result
    }

    /// W2's entries in key order: `key-0` … `key-(n-1)` → integers of 1 to 8 bytes (by `i % 8`), every fifth
    /// negative.
    public static func numberEntries(_ n: Int) -> [(key: String, value: Int64)] {
        var rng = SplitMix64(seed: 0x5EED_0002)
        return (0..<n).map { i in
            let width = i % 8 + 1
            let mask: UInt64 = width == 8 ? UInt64(Int64.max) : (1 << (8 * width - 1)) - 1
            let value = Int64(rng.next() & mask)
            return ("key-\(i)", i % 5 == 0 ? -value : value)
        }
    }

    /// W2: `n` string → integer entries, integers of 1 to 8 bytes, some negative.
    public static func numbers(_ n: Int) -> [String: Int64] {
        Dictionary(uniqueKeysWithValues: numberEntries(n).map { ($0.key, $0.value) })
    }

    /// W3: `n` data values of 4 KiB.
    public static func blobs(_ n: Int) -> [Data] {
        var rng = SplitMix64(seed: 0x5EED_0003)
        return (0..<n).map { _ in
            var bytes = [UInt8](repeating: 0, count: 4096)
            bytes.withUnsafeMutableBytes { raw in
                for i in stride(from: 0, to: 4096, by: 8) { raw.storeBytes(of: rng.next(), toByteOffset: i, as: UInt64.self) }
            }
            return Data(bytes)
        }
    }

    /// An archive of `value` written by this package (binary plist).
    public static func archive<T: Encodable>(_ value: T) -> [UInt8] {
        do { return try KeyedArchiveEncoder().encodeBytes(value) } catch { fatalError("fixture: \(error)") }
    }

    /// The archive table of `value`, before it is written.
    public static func table<T: Encodable>(_ value: T) -> KeyedArchive {
        do { return try KeyedArchiveEncoder().encodeArchive(value) } catch { fatalError("fixture: \(error)") }
    }
}
