import AutoCodingFast
import Foundation
import OrderedCollections

/// The keys and class chains Apple's Foundation classes archive with.
enum FoundationKey {
    static let objects = "NS.objects"
    static let keys = "NS.keys"
    static let time = "NS.time"
    static let base = "NS.base"
    static let relative = "NS.relative"
    static let uuidBytes = "NS.uuidbytes"
    static let data = "NS.data"
    static let string = "NS.string"
    static let bytes = "NS.bytes"
}

/// Class chains as Apple writes them.
enum FoundationClass {
    static let array = ArchiveClass(name: "NSArray", chain: ["NSArray", "NSObject"])
    static let mutableArray = ArchiveClass(name: "NSMutableArray", chain: ["NSMutableArray", "NSArray", "NSObject"])
    static let dictionary = ArchiveClass(name: "NSDictionary", chain: ["NSDictionary", "NSObject"])
    static let mutableDictionary = ArchiveClass(
        name: "NSMutableDictionary", chain: ["NSMutableDictionary", "NSDictionary", "NSObject"])
    static let set = ArchiveClass(name: "NSSet", chain: ["NSSet", "NSObject"])
    static let mutableSet = ArchiveClass(name: "NSMutableSet", chain: ["NSMutableSet", "NSSet", "NSObject"])
    static let orderedSet = ArchiveClass(name: "NSOrderedSet", chain: ["NSOrderedSet", "NSObject"])
    static let date = ArchiveClass(name: "NSDate", chain: ["NSDate", "NSObject"])
    static let url = ArchiveClass(name: "NSURL", chain: ["NSURL", "NSObject"])
    static let uuid = ArchiveClass(name: "NSUUID", chain: ["NSUUID", "NSObject"])
    static let null = ArchiveClass(name: "NSNull", chain: ["NSNull", "NSObject"])
    static let mutableData = ArchiveClass(name: "NSMutableData", chain: ["NSMutableData", "NSData", "NSObject"])
    static let mutableString = ArchiveClass(name: "NSMutableString", chain: ["NSMutableString", "NSString", "NSObject"])
    static let value = ArchiveClass(name: "NSValue", chain: ["NSValue", "NSObject"])

    /// Class names whose instances hold `NS.objects` as a list.
    static let listNames: Set<String> = [
        "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet", "NSMutableOrderedSet",
    ]
    /// Class names whose instances hold `NS.keys` and `NS.objects`.
    static let dictionaryNames: Set<String> = ["NSDictionary", "NSMutableDictionary"]
}

/// Swift arrays archive as `NSArray` with `NS.objects`.
protocol _ArchiveListEncodable {
    func _forEachArchiveElement(_ body: (any Encodable) throws -> Void) rethrows
    var _archiveListClass: ArchiveClass { get }
}

extension Array: _ArchiveListEncodable where Element: Encodable {
    func _forEachArchiveElement(_ body: (any Encodable) throws -> Void) rethrows { for e in self { try body(e) } }
    var _archiveListClass: ArchiveClass { FoundationClass.array }
}

extension Set: _ArchiveListEncodable where Element: Encodable {
    func _forEachArchiveElement(_ body: (any Encodable) throws -> Void) rethrows { for e in self { try body(e) } }
    var _archiveListClass: ArchiveClass { FoundationClass.set }
}

extension OrderedSet: _ArchiveListEncodable where Element: Encodable {
    func _forEachArchiveElement(_ body: (any Encodable) throws -> Void) rethrows { for e in self { try body(e) } }
    var _archiveListClass: ArchiveClass { FoundationClass.orderedSet }
}

extension OrderedSet: _ArchiveListDecodable where Element: Decodable {
    static var _archiveElementType: any Decodable.Type { Element.self }
    init(_archiveElements elements: [Any]) throws {
        self.init(elements.map { $0 as! Element })
    }
}

/// Swift dictionaries archive as `NSDictionary` with `NS.keys` and `NS.objects`, whatever the key type.
protocol _ArchiveDictionaryEncodable {
    func _forEachArchiveEntry(_ body: (any Encodable, any Encodable) throws -> Void) rethrows
}

extension Dictionary: _ArchiveDictionaryEncodable where Key: Encodable, Value: Encodable {
    func _forEachArchiveEntry(_ body: (any Encodable, any Encodable) throws -> Void) rethrows {
        for (k, v) in self { try body(k, v) }
    }
}

/// Arrays and sets decode from any `NS.objects` list.
protocol _ArchiveListDecodable {
    static var _archiveElementType: any Decodable.Type { get }
    init(_archiveElements: [Any]) throws
}

extension Array: _ArchiveListDecodable where Element: Decodable {
    static var _archiveElementType: any Decodable.Type { Element.self }
    init(_archiveElements elements: [Any]) throws {
        self = elements.map { $0 as! Element }  // The decoder produced each element as `Element`.
    }
}

extension Set: _ArchiveListDecodable where Element: Decodable {
    static var _archiveElementType: any Decodable.Type { Element.self }
    init(_archiveElements elements: [Any]) throws {
        self = Set(elements.map { $0 as! Element })
    }
}

/// Dictionaries decode from `NS.keys`/`NS.objects`.
protocol _ArchiveDictionaryDecodable {
    static var _archiveKeyType: any Decodable.Type { get }
    static var _archiveValueType: any Decodable.Type { get }
    init(_archiveKeys: [Any], values: [Any]) throws
}

/// A dictionary archive repeats a key.
struct DuplicateArchiveKey: Error {}

extension Dictionary: _ArchiveDictionaryDecodable where Key: Decodable, Value: Decodable {
    static var _archiveKeyType: any Decodable.Type { Key.self }
    static var _archiveValueType: any Decodable.Type { Value.self }
    init(_archiveKeys keys: [Any], values: [Any]) throws {
        self.init(minimumCapacity: keys.count)
        for (k, v) in zip(keys, values) {
            guard updateValue(v as! Value, forKey: k as! Key) == nil else { throw DuplicateArchiveKey() }
        }
    }
}
