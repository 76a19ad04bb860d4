import AutoCoding
import Foundation
import Testing

/// References to a class instance decoded already, from keyed fields and from lists: each is the one instance,
/// whether the field's type is the instance's own class (taken by UID alone) or a superclass (cast), and a
/// field of an unrelated class is a type mismatch that names the field.
@Suite("Shared references in fields and lists")
struct SharedReferenceDecodingTests {
    class Base: Codable {
        var name: String
        init(name: String) { self.name = name }
    }
    final class Sub: Base {}
    final class Unrelated: Codable {
        var name = ""
    }

    struct Holder: Codable {
        var sub: Sub
        var base: Base
        var subs: [Sub]
        var bases: [Base]
    }

    struct Mismatch: Decodable {
        var sub: Sub
        var base: Unrelated
    }

    static func archive() throws -> [UInt8] {
        let shared = Sub(name: "shared")
        return try KeyedArchiveEncoder().encodeBytes(Holder(sub: shared, base: shared, subs: [shared], bases: [shared]))
    }

    @Test func everyReferenceDecodesToTheFirstInstance() throws {
        let back = try KeyedArchiveDecoder().decode(Holder.self, from: Self.archive())
        #expect(back.sub.name == "shared")
        #expect(back.base === back.sub)
        #expect(back.subs.count == 1 && back.subs[0] === back.sub)
        #expect(back.bases.count == 1 && back.bases[0] === back.sub)
    }

    @Test func aFieldOfAnUnrelatedClassIsATypeMismatchNamingTheField() throws {
        let error = #expect(throws: DecodingError.self) {
            try KeyedArchiveDecoder().decode(Mismatch.self, from: Self.archive())
        }
        guard case .typeMismatch(_, let context)? = error else {
            Issue.record("expected typeMismatch, got \(String(describing: error))")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["base"])
        #expect(context.debugDescription.contains("Sub"))
    }
}
