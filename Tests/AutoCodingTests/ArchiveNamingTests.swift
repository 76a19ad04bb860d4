import Foundation
import Testing

@testable import AutoCodingCore

/// Archived class names are module-qualified type names. ``ArchiveNaming/typeName(_:)`` must give exactly what
/// `String(reflecting:)` gave, or archives written before would no longer match their classes.
@Suite struct ArchiveNamingTests {
    struct Plain {}
    final class Leaf {}
    class Base {}
    final class Derived: Base {}
    enum Kind { case a }
    struct Box<Element> { struct Inner {} }

    static let types: [Any.Type] = [
        Plain.self, Leaf.self, Base.self, Derived.self, Kind.self, Box<Int>.self, Box<[String: Leaf]>.Inner.self,
        Int.self, [String].self, String?.self, NSObject.self, Data.self,
    ]

    @Test(arguments: 0..<types.count)
    func typeNameIsWhatStringReflectingWrites(_ index: Int) {
        let type = Self.types[index]
        #expect(ArchiveNaming.typeName(type) == String(reflecting: type))
    }

    @Test func classChainsNameEachSuperclass() {
        #expect(ArchiveNaming.archiveClass(for: Derived.self).chain == [
            String(reflecting: Derived.self), String(reflecting: Base.self), "NSObject",
        ])
        #expect(ArchiveNaming.archiveClass(for: Derived.self).name == "AutoCodingTests.ArchiveNamingTests.Derived")
    }
}
