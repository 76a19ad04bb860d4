import Foundation

struct Address: Codable, Equatable {
    var street: String
    var city: String
    var zip: Int
}

final class Person: Codable {
    var name: String
    var age: Int
    var height: Double
    var isActive: Bool
    var email: String?
    var birthday: Date
    var tags: [String]
    var address: Address
    var friends: [Person]

    init(name: String, age: Int, friends: [Person] = []) {
        self.name = name
        self.age = age
        height = 1.5 + Double(age) / 100
        isActive = age % 2 == 0
        email = age % 3 == 0 ? nil : "\(name.lowercased())@example.com"
        birthday = Date(timeIntervalSinceReferenceDate: Double(age) * 86_400 * 365)
        tags = ["t\(age % 3)", "ü\(age)"]
        address = Address(street: "\(age) Main St", city: "City", zip: 10_000 + age)
        self.friends = friends
    }
}

struct Everything: Codable, Equatable {
    var string = "héllo 🌍"
    var int = -42
    var int8: Int8 = -8
    var uint64 = UInt64.max
    var int64 = Int64.min
    var double = 3.25
    var float: Float = 1.5
    var bool = true
    var data = Data([0, 1, 2, 255])
    var date = Date(timeIntervalSinceReferenceDate: 123_456.5)
    var url = URL(string: "https://example.com/a?b=c")!
    var uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    var optionalSome: String? = "some"
    var optionalNone: Int? = nil
    var list = [1, 2, 3]
    var nested = [[1], [], [2, 3]]
    var dictionary = ["a": 1, "b": 2]
    var intKeys = [1: "one", 2: "two"]
    var set: Set<String> = ["x", "y"]
    var kind = Kind.second

    enum Kind: String, Codable { case first, second }
}
