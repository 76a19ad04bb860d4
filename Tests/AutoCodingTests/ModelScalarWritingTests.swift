import AutoCoding
import Foundation
import Testing

/// A model of the property types `@AutoCoding`'s encoding writes through their own overloads.
@AutoCoding
final class ModelScalars {
    var name = "Ann"
    var count = -3
    var ratio = 0.5
    var flag = true
    var when = Date(timeIntervalSinceReferenceDate: 12.5)
    var nickname: String? = "A"
    var counts = [1, 2]
}

/// The same properties through a plain `Codable` class's keyed container.
final class CodableScalars: Codable {
    var name = "Ann"
    var count = -3
    var ratio = 0.5
    var flag = true
    var when = Date(timeIntervalSinceReferenceDate: 12.5)
    var nickname: String? = "A"
    var counts = [1, 2]
}

/// `String`, `Int`, `Double`, `Bool` and `Date` properties take overloads of their own in `@AutoCoding`'s encoding;
/// they write what the keyed container writes for the same values, and other encoders get the plain values.
@Suite struct ModelScalarWritingTests {
    @Test func scalarPropertiesWriteWhatTheKeyedContainerWrites() throws {
        var encoder = KeyedArchiveEncoder()
        encoder.setClassName("Scalars", for: ModelScalars.self)
        encoder.setClassName("Scalars", for: CodableScalars.self)
        let model = try encoder.encodeBytes(ModelScalars())
        #expect(model == (try encoder.encodeBytes(CodableScalars())))
        // Numbers and booleans in place, strings and dates referenced.
        let archive = try KeyedArchive(bytes: model)
        guard case .uid(let root) = archive.top["root"], case .dictionary(let fields) = archive[root] else {
            Issue.record("no root instance")
            return
        }
        #expect(fields["count"] == .integer(-3) && fields["ratio"] == .real(0.5) && fields["flag"] == .bool(true))
        #expect(fields["name"].flatMap { $0.uidValue.map { archive[$0] } } == .string("Ann"))
        #expect(fields["when"]?.uidValue.map { archive.archiveClass(of: $0)?.name } == "NSDate")
        var decoder = KeyedArchiveDecoder()
        decoder.setClass(ModelScalars.self, forClassName: "Scalars")
        let decoded = try decoder.decode(ModelScalars.self, from: model)
        #expect(decoded.name == "Ann" && decoded.count == -3 && decoded.ratio == 0.5 && decoded.flag)
        #expect(decoded.when == Date(timeIntervalSinceReferenceDate: 12.5) && decoded.nickname == "A")
    }

    @Test func otherEncodersGetThePlainValues() throws {
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(ModelScalars())) as? [String: Any]
        #expect(json?["name"] as? String == "Ann" && json?["count"] as? Int == -3 && json?["ratio"] as? Double == 0.5)
        #expect(json?["flag"] as? Bool == true && json?["when"] as? Double == 12.5)
        #expect(json?["nickname"] as? String == "A")
    }
}
