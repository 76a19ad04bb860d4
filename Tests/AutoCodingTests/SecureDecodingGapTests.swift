import AutoCoding
import Foundation
import Testing

/// The two gaps in Apple's secure decoding, closed: the allowed classes are checked on every reference of a
/// shared object (Apple checks an object only the first time it is decoded, so a later reference through a
/// key that does not allow its class gets the cached object), and on scalars stored in place (Apple lets an
/// inline string through where a number is allowed).
@Suite("Secure decoding gaps")
struct SecureDecodingGapTests {
    /// `$objects`: 0 `$null`, 1 the `Payload` class, 2 a `Payload` instance, 3 the `NSArray` class, 4 an
    /// NSArray holding the payload. `$top`: `list` is the array, `direct` the payload itself.
    static let sharedPayload: [UInt8] = KeyedArchive(
        top: ["list": .uid(ArchiveUID(4)), "direct": .uid(ArchiveUID(2))],
        objects: [
            .string("$null"),
            .dictionary(["$classname": .string("Payload"), "$classes": .array([.string("Payload"), .string("NSObject")])]),
            .dictionary(["$class": .uid(ArchiveUID(1)), "command": .string("rm -rf /")]),
            .dictionary(["$classname": .string("NSArray"), "$classes": .array([.string("NSArray"), .string("NSObject")])]),
            .dictionary(["$class": .uid(ArchiveUID(3)), "NS.objects": .array([.uid(ArchiveUID(2))])]),
        ]
    ).binaryPlist()

    @Test func anObjectDecodedThroughAnAllowedKeyIsRefusedThroughAKeyThatDoesNotAllowIt() throws {
        let unarchiver = try KeyedUnarchiver(bytes: Self.sharedPayload)
        unarchiver.requiresSecureCoding = true
        // First decode: Payload allowed inside the list; the object is now decoded (and cached by Apple).
        let list = try unarchiver.decodeObject(ofClassNames: ["NSArray", "Payload"], forKey: "list") as? [Any]
        #expect((list?.first as? ArchivedObject)?.className == "Payload")
        #expect(list?.count == 1)
        // Second reference to the same object, through a key that allows only strings.
        let error = #expect(throws: DecodingError.self) {
            try unarchiver.decodeObject(ofClassNames: ["NSString"], forKey: "direct")
        }
        #expect(String(describing: error).contains("found Payload"))
    }

    @Test func theSharedObjectIsRefusedInsideAContainerTooWhateverWasDecodedBefore() throws {
        let unarchiver = try KeyedUnarchiver(bytes: Self.sharedPayload)
        unarchiver.requiresSecureCoding = true
        let payload = try unarchiver.decodeObject(ofClassNames: ["Payload"], forKey: "direct") as? ArchivedObject
        #expect(payload?.className == "Payload")
        #expect(payload?["command"]?.string == "rm -rf /")
        #expect(throws: DecodingError.self) {
            try unarchiver.decodeObject(ofClassNames: ["NSArray", "NSString"], forKey: "list")
        }
    }

    /// `$top` `root` is a string stored in place, not a `$objects` entry.
    static let inlineStringAtTop: [UInt8] = KeyedArchive(top: ["root": .string("5")], objects: [.string("$null")])
        .binaryPlist()

    /// An NSArray whose `NS.objects` holds a string in place.
    static let inlineStringInArray: [UInt8] = KeyedArchive(
        top: ["root": .uid(ArchiveUID(2))],
        objects: [
            .string("$null"),
            .dictionary(["$classname": .string("NSArray"), "$classes": .array([.string("NSArray"), .string("NSObject")])]),
            .dictionary(["$class": .uid(ArchiveUID(1)), "NS.objects": .array([.string("5")])]),
        ]
    ).binaryPlist()

    @Test func anInlineStringIsRefusedWhereOnlyNumbersAreAllowed() throws {
        let unarchiver = try KeyedUnarchiver(bytes: Self.inlineStringAtTop)
        unarchiver.requiresSecureCoding = true
        let error = #expect(throws: DecodingError.self) { try unarchiver.decodeObject(ofClasses: [Int.self], forKey: "root") }
        #expect(String(describing: error).contains("found NSString"))
        #expect(throws: DecodingError.self) { try unarchiver.decodeObject(ofClassNames: ["NSNumber"], forKey: "root") }
        // Allowing strings lets it through: the refusal is the class check, not a failure to read.
        #expect(try unarchiver.decodeObject(ofClassNames: ["NSString"], forKey: "root") as? String == "5")
    }

    @Test func anInlineStringInsideAnAllowedArrayIsRefusedWhereOnlyNumbersAreAllowed() throws {
        let unarchiver = try KeyedUnarchiver(bytes: Self.inlineStringInArray)
        unarchiver.requiresSecureCoding = true
        #expect(throws: DecodingError.self) {
            try unarchiver.decodeObject(ofClassNames: ["NSArray", "NSNumber"], forKey: "root")
        }
        #expect(try unarchiver.decodeObject(ofClassNames: ["NSArray", "NSString"], forKey: "root") as? [String] == ["5"])
    }

    @Test func typedDecodingRefusesAnInlineStringForANumber() throws {
        #expect(throws: DecodingError.self) { try KeyedArchiveDecoder().decode(Int.self, from: Self.inlineStringAtTop) }
        #expect(throws: DecodingError.self) { try KeyedArchiveDecoder().decode([Int].self, from: Self.inlineStringInArray) }
    }
}
