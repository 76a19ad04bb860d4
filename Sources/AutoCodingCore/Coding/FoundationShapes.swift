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

/// Swift arrays, sets and ordered sets archive as lists (`NS.objects`, or `NS.object.N` for NSOrderedSet).
/// Elements are encoded through the generic entry point, so no element is boxed in an existential.
protocol _ArchiveListEncodable {
    /// The references to the elements (``EncodingContext/encodeElements(_:flat:codingPathNode:)``); `path` is the
    /// list's coding path, made only if an element needs it.
    func _archiveElements(_ context: EncodingContext, _ path: () -> CodingPathNode) throws -> EncodedElements
    var _archiveListClass: ArchiveClass { get }
}

extension Array: _ArchiveListEncodable where Element: Encodable {
    func _archiveElements(_ context: EncodingContext, _ path: () -> CodingPathNode) throws -> EncodedElements {
        try context.encodeElements(self, flat: true, codingPathNode: path)
    }
    var _archiveListClass: ArchiveClass { FoundationClass.array }
}

extension Set: _ArchiveListEncodable where Element: Encodable {
    func _archiveElements(_ context: EncodingContext, _ path: () -> CodingPathNode) throws -> EncodedElements {
        try context.encodeElements(Array(self), flat: true, codingPathNode: path)
    }
    var _archiveListClass: ArchiveClass { FoundationClass.set }
}

extension OrderedSet: _ArchiveListEncodable where Element: Encodable {
    func _archiveElements(_ context: EncodingContext, _ path: () -> CodingPathNode) throws -> EncodedElements {
        // NSOrderedSet keys each element (`NS.object.0` ...), so its elements are values, not one list.
        try context.encodeElements(elements, flat: false, codingPathNode: path)
    }
    var _archiveListClass: ArchiveClass { FoundationClass.orderedSet }
}

/// A list's element references as ``EncodingContext/encodeElements(_:flat:codingPathNode:)`` gives them.
enum EncodedElements {
    /// Appended to the table's list references from this index on
    /// (``ArchiveTableBuilder/fillList(_:classUID:key:from:)``).
    case flat(start: Int)
    /// As values.
    case values([ArchiveValue])
}

/// Swift dictionaries archive as `NSDictionary` with `NS.keys` and `NS.objects`, whatever the key type.
protocol _ArchiveDictionaryEncodable {
    func _archiveEntries(_ context: EncodingContext, _ path: CodingPathNode) throws -> (keys: [ArchiveValue], objects: [ArchiveValue])
}

extension Dictionary: _ArchiveDictionaryEncodable where Key: Encodable, Value: Encodable {
    func _archiveEntries(_ context: EncodingContext, _ path: CodingPathNode) throws -> (keys: [ArchiveValue], objects: [ArchiveValue]) {
        var keys: [ArchiveValue] = []
        var objects: [ArchiveValue] = []
        keys.reserveCapacity(count)
        objects.reserveCapacity(count)
        // A key and a value entry each, for scalars (the common dictionary): the table grows once.
        context.builder.reserveEntries(2 * count)
        for (key, value) in self {
            keys.append(try context.encodeReference(key, codingPathNode: path))
            objects.append(try context.encodeReference(value, codingPathNode: path))
        }
        return (keys, objects)
    }
}

/// Arrays, sets and ordered sets decode from any list; elements are decoded through the generic entry point.
protocol _ArchiveListDecodable {
    static func _archiveDecode(elements: ListElements, context: DecodingContext, path: CodingPathNode) throws -> Self
}

extension Array: _ArchiveListDecodable where Element: Decodable {
    static func _archiveDecode(elements: ListElements, context: DecodingContext, path: CodingPathNode) throws -> Self {
        // Initialized in place: this runs unspecialized (the element type is known only at run time), where
        // `reserveCapacity` and `append` look up the array type's metadata on every call. Not for an empty list:
        // `Array(unsafeUninitializedCapacity: 0)` stores its count into the shared empty-array singleton, a data
        // race between concurrent decodes (ThreadSanitizer, `scripts/sanitize.sh quick-thread`).
        guard !elements.isEmpty else { return [] }
        return try Array(unsafeUninitializedCapacity: elements.count) { buffer, initialized in
            for (i, element) in elements.enumerated() {
                buffer.initializeElement(
                    at: i,
                    to: try context.decodeChild(Element.self, at: element, key: ArchiveCodingKey(intValue: i), below: path))
                initialized = i + 1
            }
        }
    }
}

extension Set: _ArchiveListDecodable where Element: Decodable {
    static func _archiveDecode(elements: ListElements, context: DecodingContext, path: CodingPathNode) throws -> Self {
        Set(try [Element]._archiveDecode(elements: elements, context: context, path: path))
    }
}

extension OrderedSet: _ArchiveListDecodable where Element: Decodable {
    static func _archiveDecode(elements: ListElements, context: DecodingContext, path: CodingPathNode) throws -> Self {
        OrderedSet(try [Element]._archiveDecode(elements: elements, context: context, path: path))
    }
}

/// Dictionaries decode from `NS.keys`/`NS.objects`.
protocol _ArchiveDictionaryDecodable {
    static func _archiveDecode(
        keys: ListElements, objects: ListElements, context: DecodingContext, path: CodingPathNode
    ) throws -> Self
}

extension Dictionary: _ArchiveDictionaryDecodable where Key: Decodable, Value: Decodable {
    static func _archiveDecode(
        keys: ListElements, objects: ListElements, context: DecodingContext, path: CodingPathNode
    ) throws -> Self {
        var result: [Key: Value] = [:]
        result.reserveCapacity(keys.count)
        for (i, (key, object)) in zip(keys, objects).enumerated() {
            let entryPath = path.appending(index: i)
            let k = try context.decode(Key.self, at: key, path: entryPath)
            guard result.updateValue(try context.decode(Value.self, at: object, path: entryPath), forKey: k) == nil else {
                throw DecodingError.duplicateDictionaryKey(k, at: entryPath)
            }
        }
        return result
    }
}
