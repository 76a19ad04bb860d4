import AutoCodingMacros
import MacroTesting
import SwiftSyntaxMacroExpansion
import Testing

/// The macros, with the conformances the compiler passes for a type that has none of them yet (a root class or
/// a struct).
let rootMacros: [String: MacroSpec] = [
    "AutoCoding": MacroSpec(type: AutoCodingMacro.self, conformances: ["AutoCodingObject", "AutoCodingValue", "Hashable"]),
    "Uncodable": MacroSpec(type: MarkerMacro.self),
    "ArchiveKey": MacroSpec(type: MarkerMacro.self),
    "ArchiveAs": MacroSpec(type: MarkerMacro.self),
]
@Suite(.macros(rootMacros, record: .missing))
struct AutoCodingMacroTests {
    /// A subclass of an `@AutoCoding` class (the compiler passes no missing conformance): its members override the
    /// superclass's and call them, and no extension is added.
    @Test func expandsASubclass() {
        assertMacro(["AutoCoding": MacroSpec(type: AutoCodingMacro.self, conformances: [])]) {
            """
            @AutoCoding
            final class Dog: Animal {
                var legs = 4
            }
            """
        } expansion: {
            #"""
            final class Dog: Animal {
                var legs = 4

                /// The properties `@AutoCoding` archives for this class (superclass properties not included).
                override static var codableProperties: [(name: String, type: Any.Type)] {
                    [("legs", AutoCodingSupport.type(of: \Dog.legs))]
                }

                /// Allocates an instance with default property values, to be filled by decoding.
                required init(autoCodingShell: AutoCodingShell) {
                    super.init(autoCodingShell: autoCodingShell)
                }

                /// Decodes an instance: allocates it, then fills its properties.
                required convenience init(from decoder: any Decoder) throws {
                    self.init(autoCodingShell: AutoCodingShell())
                    try autoCodingWillDecode(from: decoder)
                    try decodeProperties(from: decoder)
                    try autoCodingDidDecode(from: decoder)
                }

                /// Encodes the archived properties, the superclasses' first, as the generated `encode(to:)` does: for an `encode(to:)` of your own to call.
                override func autoCodingEncode(to encoder: any Encoder) throws {
                    try super.autoCodingEncode(to: encoder)
                    var container = AutoCodingSupport.writer(encoder)
                    try AutoCodingSupport.encode(self.legs, to: &container, key: "legs")
                }

                /// Reads the archived properties present in `decoder`, the superclasses' first, as the generated `decodeProperties(from:)` does: for a `decodeProperties(from:)` of your own to call.
                override func autoCodingDecodeProperties(from decoder: any Decoder) throws {
                    try super.autoCodingDecodeProperties(from: decoder)
                    let container = try AutoCodingSupport.reader(decoder)
                    do {
                        var value = self.legs
                        try AutoCodingSupport.decode(&value, from: container, keys: ["legs"], in: Dog.self)
                        self.legs = value
                    }
                }

                override init() {
                    super.init()
                }
            }
            """#
        }
    }

    /// `@ArchiveAs` passes its forms, as written, to the encoding of its property only.
    @Test func passesArchiveFormsToTheEncoding() {
        assertMacro {
            """
            @AutoCoding
            struct Tile {
                @ArchiveAs(.referenced) var count: Int = 0
                @ArchiveAs(.nullWhenNil, .archiveClass("NSMutableArray", "NSArray", "NSObject")) var tags: [String]?
                var name = ""
            }
            """
        } expansion: {
            #"""
            struct Tile {
                var count: Int = 0
                var tags: [String]?
                var name = ""
            }

            extension Tile: AutoCodingValue {
                /// The properties `@AutoCoding` archives.
                static var codableProperties: [(name: String, type: Any.Type)] {
                    [("count", AutoCodingSupport.type(of: \Tile.count)), ("tags", AutoCodingSupport.type(of: \Tile.tags)), ("name", AutoCodingSupport.type(of: \Tile.name))]
                }
                /// Decodes the archived properties; missing keys keep their default values.
                init(from decoder: any Decoder) throws {
                    let container = try AutoCodingSupport.reader(decoder)
                    try AutoCodingSupport.decode(&self.count, from: container, keys: ["count"], in: Tile.self)
                    self.tags = nil
                    try AutoCodingSupport.decode(&self.tags, from: container, keys: ["tags"], in: Tile.self)
                    try AutoCodingSupport.decode(&self.name, from: container, keys: ["name"], in: Tile.self)
                }
                /// Encodes the archived properties.
                func encode(to encoder: any Encoder) throws {
                    var container = AutoCodingSupport.writer(encoder)
                    try AutoCodingSupport.encode(self.count, to: &container, key: "count", as: [.referenced])
                    try AutoCodingSupport.encode(self.tags, to: &container, key: "tags", as: [.nullWhenNil, .archiveClass("NSMutableArray", "NSArray", "NSObject")])
                    try AutoCodingSupport.encode(self.name, to: &container, key: "name")
                }
            }

            extension Tile: Hashable {
                /// Equal when archived as equivalent graphs: same property values, same sharing.
                static func == (lhs: Tile, rhs: Tile) -> Bool {
                    AutoCodingSupport.isEqualValue(lhs, rhs)
                }
                /// Hashes the scalar property values.
                func hash(into hasher: inout Hasher) {
                    AutoCodingSupport.hashValue(self, into: &hasher)
                }
            }
            """#
        }
    }

    @Test func expandsARootClass() {
        assertMacro {
            """
            @AutoCoding
            final class Person {
                var name = ""
                var age = 0
                weak var best: Person?
                @Uncodable var cache: [String: Int] = [:]
                var computed: Int { age * 2 }
                lazy var lazyValue = 1
                @ArchiveKey("e_mail", "email") var email: String?
            }
            """
        } expansion: {
            #"""
            final class Person {
                var name = ""
                var age = 0
                weak var best: Person?
                var cache: [String: Int] = [:]
                var computed: Int { age * 2 }
                lazy var lazyValue = 1
                var email: String?

                /// The properties `@AutoCoding` archives for this class (superclass properties not included).
                static var codableProperties: [(name: String, type: Any.Type)] {
                    [("name", AutoCodingSupport.type(of: \Person.name)), ("age", AutoCodingSupport.type(of: \Person.age)), ("best", AutoCodingSupport.type(of: \Person.best)), ("email", AutoCodingSupport.type(of: \Person.email))]
                }

                /// Allocates an instance with default property values, to be filled by decoding.
                required init(autoCodingShell: AutoCodingShell) {
                }

                /// Decodes an instance: allocates it, then fills its properties.
                required convenience init(from decoder: any Decoder) throws {
                    self.init(autoCodingShell: AutoCodingShell())
                    try autoCodingWillDecode(from: decoder)
                    try decodeProperties(from: decoder)
                    try autoCodingDidDecode(from: decoder)
                }

                /// Encodes the archived properties, as the generated `encode(to:)` does: for an `encode(to:)` of your own to call.
                func autoCodingEncode(to encoder: any Encoder) throws {
                    var container = AutoCodingSupport.writer(encoder)
                    try AutoCodingSupport.encode(self.name, to: &container, key: "name")
                    try AutoCodingSupport.encode(self.age, to: &container, key: "age")
                    try AutoCodingSupport.encode(self.best, to: &container, key: "best")
                    try AutoCodingSupport.encode(self.email, to: &container, key: "e_mail")
                }

                /// Reads the archived properties present in `decoder`, as the generated `decodeProperties(from:)` does: for a `decodeProperties(from:)` of your own to call.
                func autoCodingDecodeProperties(from decoder: any Decoder) throws {
                    let container = try AutoCodingSupport.reader(decoder)
                    do {
                        var value = self.name
                        try AutoCodingSupport.decode(&value, from: container, keys: ["name"], in: Person.self)
                        self.name = value
                    }
                    do {
                        var value = self.age
                        try AutoCodingSupport.decode(&value, from: container, keys: ["age"], in: Person.self)
                        self.age = value
                    }
                    do {
                        var value = self.best
                        try AutoCodingSupport.decode(&value, from: container, keys: ["best"], in: Person.self)
                        self.best = value
                    }
                    do {
                        var value = self.email
                        try AutoCodingSupport.decode(&value, from: container, keys: ["e_mail", "email"], in: Person.self)
                        self.email = value
                    }
                }

                /// Encodes the archived properties (``autoCodingEncode(to:)``).
                func encode(to encoder: any Encoder) throws {
                    try autoCodingEncode(to: encoder)
                }

                /// Reads the archived properties present in `decoder` (``autoCodingDecodeProperties(from:)``).
                func decodeProperties(from decoder: any Decoder) throws {
                    try autoCodingDecodeProperties(from: decoder)
                }

                init() {
                }
            }

            extension Person: AutoCodingObject {
            }

            extension Person: AutoCodingValue {
            }

            extension Person: Hashable {
                /// Equal when archived as equivalent graphs: same class, same property values, same sharing.
                static func == (lhs: Person, rhs: Person) -> Bool {
                    AutoCodingSupport.isEqual(lhs, rhs)
                }
                /// Hashes the class and the scalar property values.
                func hash(into hasher: inout Hasher) {
                    AutoCodingSupport.hash(self, into: &hasher)
                }
            }
            """#
        }
    }

    /// Members the class declares itself are not generated; the helpers are, for them to call.
    @Test func yieldsToMembersTheClassDeclares() {
        assertMacro {
            """
            @AutoCoding
            class Note: NSObject {
                var title = ""
                func encode(to encoder: any Encoder) throws {
                    try autoCodingEncode(to: encoder)
                }
                func autoCodingDidDecode(from decoder: any Decoder) throws {}
            }
            """
        } expansion: {
            #"""
            class Note: NSObject {
                var title = ""
                func encode(to encoder: any Encoder) throws {
                    try autoCodingEncode(to: encoder)
                }
                func autoCodingDidDecode(from decoder: any Decoder) throws {}

                /// The properties `@AutoCoding` archives for this class (superclass properties not included).
                class var codableProperties: [(name: String, type: Any.Type)] {
                    [("title", AutoCodingSupport.type(of: \Note.title))]
                }

                /// Allocates an instance with default property values, to be filled by decoding.
                required init(autoCodingShell: AutoCodingShell) {
                    super.init()
                }

                /// Decodes an instance: allocates it, then fills its properties.
                required convenience init(from decoder: any Decoder) throws {
                    self.init(autoCodingShell: AutoCodingShell())
                    try autoCodingWillDecode(from: decoder)
                    try decodeProperties(from: decoder)
                    try autoCodingDidDecode(from: decoder)
                }

                /// Encodes the archived properties, as the generated `encode(to:)` does: for an `encode(to:)` of your own to call.
                func autoCodingEncode(to encoder: any Encoder) throws {
                    var container = AutoCodingSupport.writer(encoder)
                    try AutoCodingSupport.encode(self.title, to: &container, key: "title")
                }

                /// Reads the archived properties present in `decoder`, as the generated `decodeProperties(from:)` does: for a `decodeProperties(from:)` of your own to call.
                func autoCodingDecodeProperties(from decoder: any Decoder) throws {
                    let container = try AutoCodingSupport.reader(decoder)
                    do {
                        var value = self.title
                        try AutoCodingSupport.decode(&value, from: container, keys: ["title"], in: Note.self)
                        self.title = value
                    }
                }

                /// Reads the archived properties present in `decoder` (``autoCodingDecodeProperties(from:)``).
                func decodeProperties(from decoder: any Decoder) throws {
                    try autoCodingDecodeProperties(from: decoder)
                }

                /// Does nothing; override it to act at this step.
                func autoCodingWillEncode(to encoder: any Encoder) throws {
                }

                /// Does nothing; override it to act at this step.
                func autoCodingDidEncode(to encoder: any Encoder) throws {
                }

                /// Does nothing; override it to act at this step.
                func autoCodingWillDecode(from decoder: any Decoder) throws {
                }

                /// Equal when archived as equivalent graphs: same class, same property values, same sharing.
                override func isEqual(_ object: Any?) -> Bool {
                    guard let other = object as? Note else {
                        return false
                    }
                    return AutoCodingSupport.isEqual(self, other)
                }

                /// Hashes the class and the scalar property values.
                override var hash: Int {
                    var hasher = Hasher()
                    AutoCodingSupport.hash(self, into: &hasher)
                    return hasher.finalize()
                }

                override init() {
                    super.init()
                }
            }

            extension Note: AutoCodingObject {
            }

            extension Note: AutoCodingValue {
            }
            """#
        }
    }

    @Test func expandsAStruct() {
        assertMacro {
            """
            @AutoCoding
            public struct Point {
                public var x = 0.0
                public let label: String
            }
            """
        } expansion: {
            #"""
            public struct Point {
                public var x = 0.0
                public let label: String
            }

            extension Point: AutoCodingValue {
                /// The properties `@AutoCoding` archives.
                public static var codableProperties: [(name: String, type: Any.Type)] {
                    [("x", AutoCodingSupport.type(of: \Point.x)), ("label", AutoCodingSupport.type(of: \Point.label))]
                }
                /// Decodes the archived properties; missing keys keep their default values.
                public init(from decoder: any Decoder) throws {
                    let container = try AutoCodingSupport.reader(decoder)
                    try AutoCodingSupport.decode(&self.x, from: container, keys: ["x"], in: Point.self)
                    self.label = try AutoCodingSupport.decodeRequired(String.self, from: container, keys: ["label"], in: Point.self)
                }
                /// Encodes the archived properties.
                public func encode(to encoder: any Encoder) throws {
                    var container = AutoCodingSupport.writer(encoder)
                    try AutoCodingSupport.encode(self.x, to: &container, key: "x")
                    try AutoCodingSupport.encode(self.label, to: &container, key: "label")
                }
            }

            extension Point: Hashable {
                /// Equal when archived as equivalent graphs: same property values, same sharing.
                public static func == (lhs: Point, rhs: Point) -> Bool {
                    AutoCodingSupport.isEqualValue(lhs, rhs)
                }
                /// Hashes the scalar property values.
                public func hash(into hasher: inout Hasher) {
                    AutoCodingSupport.hashValue(self, into: &hasher)
                }
            }
            """#
        }
    }

    @Test func aStructOptsOutOfTheGeneratedEquality() {
        assertMacro {
            """
            @AutoCoding(equatable: false)
            struct Sample {
                var x = 0
            }
            """
        } expansion: {
            #"""
            struct Sample {
                var x = 0
            }

            extension Sample: AutoCodingValue {
                /// The properties `@AutoCoding` archives.
                static var codableProperties: [(name: String, type: Any.Type)] {
                    [("x", AutoCodingSupport.type(of: \Sample.x))]
                }
                /// Decodes the archived properties; missing keys keep their default values.
                init(from decoder: any Decoder) throws {
                    let container = try AutoCodingSupport.reader(decoder)
                    try AutoCodingSupport.decode(&self.x, from: container, keys: ["x"], in: Sample.self)
                }
                /// Encodes the archived properties.
                func encode(to encoder: any Encoder) throws {
                    var container = AutoCodingSupport.writer(encoder)
                    try AutoCodingSupport.encode(self.x, to: &container, key: "x")
                }
            }
            """#
        }
    }

    @Test func equatableFalseOnAClassIsDiagnosed() {
        assertMacro {
            """
            @AutoCoding(equatable: false)
            final class Sample {
                var x = 0
            }
            """
        } diagnostics: {
            """
            @AutoCoding(equatable: false)
            ┬────────────────────────────
            ╰─ 🛑 'equatable: false' applies to structs; a class compares its properties, or its identity with 'identityEquality: true'
            final class Sample {
                var x = 0
            }
            """
        }
    }

    @Test func diagnosesAnUnarchivablePropertyWithAFixIt() {
        assertMacro {
            """
            @AutoCoding
            final class Widget {
                var onTap: () -> Void = {}
            }
            """
        } diagnostics: {
            """
            @AutoCoding
            final class Widget {
                var onTap: () -> Void = {}
                    ┬─────────────────────
                    ╰─ 🛑 stored property 'onTap' cannot be archived: its type is a function type; mark it @Uncodable to leave it out
                       ✏️ Mark 'onTap' @Uncodable
            }
            """
        } fixes: {
            """
            @AutoCoding
            final class Widget {
                @Uncodable var onTap: () -> Void = {}
            }
            """
        } expansion: {
            """
            final class Widget {
                var onTap: () -> Void = {}

                /// The properties `@AutoCoding` archives for this class (superclass properties not included).
                static var codableProperties: [(name: String, type: Any.Type)] {
                    []
                }

                /// Allocates an instance with default property values, to be filled by decoding.
                required init(autoCodingShell: AutoCodingShell) {
                }

                /// Decodes an instance: allocates it, then fills its properties.
                required convenience init(from decoder: any Decoder) throws {
                    self.init(autoCodingShell: AutoCodingShell())
                    try autoCodingWillDecode(from: decoder)
                    try decodeProperties(from: decoder)
                    try autoCodingDidDecode(from: decoder)
                }

                /// Encodes the archived properties, as the generated `encode(to:)` does: for an `encode(to:)` of your own to call.
                func autoCodingEncode(to encoder: any Encoder) throws {
                    _ = encoder.container(keyedBy: AutoCodingKey.self)
                }

                /// Reads the archived properties present in `decoder`, as the generated `decodeProperties(from:)` does: for a `decodeProperties(from:)` of your own to call.
                func autoCodingDecodeProperties(from decoder: any Decoder) throws {
                    _ = try decoder.container(keyedBy: AutoCodingKey.self)
                }

                /// Encodes the archived properties (``autoCodingEncode(to:)``).
                func encode(to encoder: any Encoder) throws {
                    try autoCodingEncode(to: encoder)
                }

                /// Reads the archived properties present in `decoder` (``autoCodingDecodeProperties(from:)``).
                func decodeProperties(from decoder: any Decoder) throws {
                    try autoCodingDecodeProperties(from: decoder)
                }

                init() {
                }
            }

            extension Widget: AutoCodingObject {
            }

            extension Widget: AutoCodingValue {
            }

            extension Widget: Hashable {
                /// Equal when archived as equivalent graphs: same class, same property values, same sharing.
                static func == (lhs: Widget, rhs: Widget) -> Bool {
                    AutoCodingSupport.isEqual(lhs, rhs)
                }
                /// Hashes the class and the scalar property values.
                func hash(into hasher: inout Hasher) {
                    AutoCodingSupport.hash(self, into: &hasher)
                }
            }
            """
        }
    }

    @Test func diagnosesAClassPropertyWithoutDefault() {
        assertMacro {
            """
            @AutoCoding
            final class Widget {
                var name: String
                let id = 1
            }
            """
        } diagnostics: {
            """
            @AutoCoding
            final class Widget {
                var name: String
                    ┬───────────
                    ╰─ 🛑 @AutoCoding allocates the class before decoding it, so 'name' needs a default value or an optional type
                let id = 1
                    ┬─────
                    ╰─ 🛑 @AutoCoding fills a class after allocating it, so 'id' must be 'var' (or mark it @Uncodable)
            }
            """
        }
    }

    @Test func identityEqualityHashesByIdentity() {
        assertMacro {
            """
            @AutoCoding(identityEquality: true)
            final class Managed {
                var title = ""
            }
            """
        } expansion: {
            #"""
            final class Managed {
                var title = ""

                /// The properties `@AutoCoding` archives for this class (superclass properties not included).
                static var codableProperties: [(name: String, type: Any.Type)] {
                    [("title", AutoCodingSupport.type(of: \Managed.title))]
                }

                /// Allocates an instance with default property values, to be filled by decoding.
                required init(autoCodingShell: AutoCodingShell) {
                }

                /// Decodes an instance: allocates it, then fills its properties.
                required convenience init(from decoder: any Decoder) throws {
                    self.init(autoCodingShell: AutoCodingShell())
                    try autoCodingWillDecode(from: decoder)
                    try decodeProperties(from: decoder)
                    try autoCodingDidDecode(from: decoder)
                }

                /// Encodes the archived properties, as the generated `encode(to:)` does: for an `encode(to:)` of your own to call.
                func autoCodingEncode(to encoder: any Encoder) throws {
                    var container = AutoCodingSupport.writer(encoder)
                    try AutoCodingSupport.encode(self.title, to: &container, key: "title")
                }

                /// Reads the archived properties present in `decoder`, as the generated `decodeProperties(from:)` does: for a `decodeProperties(from:)` of your own to call.
                func autoCodingDecodeProperties(from decoder: any Decoder) throws {
                    let container = try AutoCodingSupport.reader(decoder)
                    do {
                        var value = self.title
                        try AutoCodingSupport.decode(&value, from: container, keys: ["title"], in: Managed.self)
                        self.title = value
                    }
                }

                /// Encodes the archived properties (``autoCodingEncode(to:)``).
                func encode(to encoder: any Encoder) throws {
                    try autoCodingEncode(to: encoder)
                }

                /// Reads the archived properties present in `decoder` (``autoCodingDecodeProperties(from:)``).
                func decodeProperties(from decoder: any Decoder) throws {
                    try autoCodingDecodeProperties(from: decoder)
                }

                init() {
                }
            }

            extension Managed: AutoCodingObject {
            }

            extension Managed: AutoCodingValue {
            }

            extension Managed: Hashable {
                /// Equal when the same instance.
                static func == (lhs: Managed, rhs: Managed) -> Bool {
                    lhs === rhs
                }
                /// Hashes the instance's identity.
                func hash(into hasher: inout Hasher) {
                    hasher.combine(ObjectIdentifier(self))
                }
            }
            """#
        }
}
    }
