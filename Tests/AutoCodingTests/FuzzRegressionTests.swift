import AutoCoding
import Foundation
import OrderedCollections
import Testing

/// Crashers of the object-layer fuzz targets (FuzzTesting/, scripts/fuzz.sh), minimized, as named cases.
/// The engine's are in AutoCodingFastTests/FuzzRegressionTests.swift.
@Suite("Fuzz regressions (object layer)")
struct ObjectLayerFuzzRegressionTests {
    /// roundtrip target, first crash: an `ArchiveRange` with location 3622098393369761648 came back as
    /// 3622098393369761792. The NSValue decoder read `NS.rangeval.*` through Double (53-bit mantissa); it now
    /// reads them as integers.
    @Test(arguments: [3_622_098_393_369_761_648, Int.max, Int.min, (1 << 53) + 1])
    func anArchiveRangeBeyondTwoToThe53RoundTripsExactly(location: Int) throws {
        let range = ArchiveRange(location: location, length: 257)
        let bytes = try KeyedArchiveEncoder().encodeBytes(range)
        #expect(try KeyedArchiveDecoder().decode(ArchiveRange.self, from: bytes) == range)
    }
}

extension ObjectLayerFuzzRegressionTests {
    /// An archive whose root `Holder` instance has a field `list` referring to `$objects[3]`, `entry`; `more`
    /// follow from `$objects[4]`.
    static func holder(of entry: ArchiveValue, then more: [ArchiveValue] = []) -> KeyedArchive {
        KeyedArchive(
            top: ["root": .uid(ArchiveUID(1))],
            objects: [
                .string("$null"),
                .dictionary(["$class": .uid(ArchiveUID(2)), "list": .uid(ArchiveUID(3))]),
                .dictionary(["$classname": .string("Holder"), "$classes": .array([.string("Holder"), .string("NSObject")])]),
                entry,
            ] + more
        )
    }

    /// graph target, crash-9a7f86ab: `$objects[4]` was a plain array `[UID 13, UID 14]` (not an NSArray instance)
    /// referenced from an instance field. The graph kept it as an opaque scalar, so re-encoding renumbered the
    /// objects but not those UIDs: the output did not decode ("UID 13 ≥ object count 8"). Such an entry is now
    /// an error when the graph is built, instead of a corrupt archive when it is written.
    @Test func aPlainArrayEntryHoldingUIDsIsRefusedInsteadOfReencodedWithDanglingUIDs() throws {
        let bytes = Self.holder(of: .array([.uid(ArchiveUID(4)), .uid(ArchiveUID(5))]), then: [.integer(456), .string("Times")])
            .binaryPlist()
        let error = #expect(throws: ArchiveError.self) { try ArchiveGraph(bytes: bytes) }
        #expect(error?.code == .unexpectedType)
        #expect(error?.reason.contains("$objects[3]") == true)
    }

    /// Plain entries without UIDs (data-only arrays and dictionaries) still round-trip.
    @Test func aPlainArrayEntryWithoutUIDsStillRoundTrips() throws {
        let archive = Self.holder(of: .array([.integer(1), .string("two")]))
        let graph = try ArchiveGraph(bytes: archive.binaryPlist())
        #expect(graph.isEquivalent(to: try ArchiveGraph(bytes: graph.binaryPlist())))
    }
}

extension ObjectLayerFuzzRegressionTests {
    /// graph target, crash-37328aa8: an `NSMeasurement` archived with `NS.value` NaN. The graph re-encoded
    /// correctly, but `isEquivalent` compared scalars with `==`, for which NaN is not NaN, so the graph was not
    /// equivalent to itself.
    @Test func aGraphHoldingANaNIsEquivalentToItsReencoding() throws {
        let measurement = ArchivedObject(className: "NSMeasurement", chain: ["NSMeasurement", "NSObject"])
        measurement.fields["NS.value"] = .inline(.real(.nan))
        measurement.fields["NS.when"] = .reference(.date(Date(timeIntervalSinceReferenceDate: .nan)))
        let graph = ArchiveGraph(root: .object(measurement))
        #expect(graph.isEquivalent(to: graph))
        #expect(graph.isEquivalent(to: try ArchiveGraph(bytes: graph.binaryPlist())))
        let other = ArchivedObject(className: "NSMeasurement", chain: ["NSMeasurement", "NSObject"])
        other.fields["NS.value"] = .inline(.real(1))
        other.fields["NS.when"] = .reference(.date(Date(timeIntervalSinceReferenceDate: .nan)))
        #expect(!graph.isEquivalent(to: ArchiveGraph(root: .object(other))))
    }
}

extension ObjectLayerFuzzRegressionTests {
    static let zero = Double(0).bitPattern, negativeZero = Double(-0.0).bitPattern

    static func bits(_ rect: ArchiveRect) -> [UInt64] {
        [rect.origin.x, rect.origin.y, rect.size.width, rect.size.height].map(\.bitPattern)
    }

    /// roundtrip target: an `ArchiveRect` with a component of `-0.0` came back with `0.0`. The NSValue text form
    /// (`NS.rectval` `"{{x, y}, {w, h}}"`) spelled integral values through `Int64`, which has no negative zero;
    /// it now writes `-0` (as `%g` does in Apple's `NSStringFromRect`), which reads back as `-0.0`.
    @Test func aNegativeZeroGeometryComponentKeepsItsSign() throws {
        let rect = ArchiveRect(x: -0.0, y: 0, width: -0.0, height: -0.0)
        let archive = try KeyedArchiveEncoder().encodeArchive(rect)
        #expect(archive.objects.contains(.string("{{-0, 0}, {-0, -0}}")))
        let bytes = archive.binaryPlist()
        #expect(Self.bits(try KeyedArchiveDecoder().decode(ArchiveRect.self, from: bytes)) == Self.bits(rect))
        let dynamic = try #require(try KeyedUnarchiver(bytes: bytes).decodeObject(forKey: "root") as? ArchiveRect)
        #expect(Self.bits(dynamic) == Self.bits(rect))
        // Through the graph and its JSON text, which carry the NSValue string as it is.
        let viaJSON = try ArchiveGraph(json: try ArchiveGraph(bytes: bytes).json()).binaryPlist()
        #expect(Self.bits(try KeyedArchiveDecoder().decode(ArchiveRect.self, from: viaJSON)) == Self.bits(rect))

        let point = try KeyedArchiveDecoder().decode(
            ArchivePoint.self, from: try KeyedArchiveEncoder().encodeBytes(ArchivePoint(x: -0.0, y: 0)))
        #expect([point.x.bitPattern, point.y.bitPattern] == [Self.negativeZero, Self.zero])
        let size = try KeyedArchiveDecoder().decode(
            ArchiveSize.self, from: try KeyedArchiveEncoder().encodeBytes(ArchiveSize(width: 0, height: -0.0)))
        #expect([size.width.bitPattern, size.height.bitPattern] == [Self.zero, Self.negativeZero])
    }

    /// Found while checking the graph JSON for the same loss: a date at `-0.0` seconds printed as
    /// `{"$date": "2001-01-01T00:00:00Z"}` alone, since the ISO text's `0.0` compared `==` to `-0.0`, and read
    /// back as `0.0`. Exactness is now judged bit for bit, so such a date also carries `"$time": -0.0`.
    @Test func aDateAtNegativeZeroSecondsKeepsItsSignThroughGraphJSON() throws {
        let value = ArchiveValue.date(Date(timeIntervalSinceReferenceDate: -0.0))
        let text = value.json(prettyPrinted: false)
        #expect(text.contains("$time"), "\(text)")
        guard case .date(let date) = try ArchiveValue(json: text) else {
            Issue.record("not a date: \(text)")
            return
        }
        #expect(date.timeIntervalSinceReferenceDate.bitPattern == Self.negativeZero, "\(text)")
    }
}

extension ObjectLayerFuzzRegressionTests {
    /// roundtrip target, crash-26eb622e: the harness gave a graph a second root that was an in-place array, and
    /// the archive it wrote did not read back ("$top[…] is a container, not a UID or scalar"): every archive reader
    /// refuses a container in `$top`, where Apple writes only UIDs and scalars. Such a root is outside what
    /// `ArchiveGraph.roots` can hold (now documented, and the harness no longer makes one); the graph JSON reader,
    /// which accepted it from untrusted text, now refuses it like the others.
    @Test func aContainerInTopIsRefusedByTheGraphJSONReaderAsByTheArchiveReaders() throws {
        for container in ["[1, 2]", #"{"a": 1}"#] {
            let text = #"{"$archiver": "NSKeyedArchiver", "$top": {"root": null, "list": \#(container)}}"#
            let error = #expect(throws: ArchiveJSONError.self) { try ArchiveGraph(json: text) }
            #expect(error?.reason.contains("$top[\"list\"] is a container") == true, "\(error?.reason ?? "")")
        }
        var graph = ArchiveGraph(root: .null)
        graph.roots["list"] = .array([.inline(.integer(1))])
        let error = #expect(throws: ArchiveError.self) { try ArchiveGraph(bytes: graph.binaryPlist()) }
        #expect(error?.code == .unexpectedType)
        // Objects, scalars and null stay valid roots, through the archive and the JSON text.
        graph.roots["list"] = .reference(.string("fine"))
        graph.roots["count"] = .inline(.integer(3))
        let back = try ArchiveGraph(bytes: graph.binaryPlist())
        #expect(back.isEquivalent(to: graph))
        #expect(try ArchiveGraph(json: back.json()).isEquivalent(to: graph))
    }
}

extension ObjectLayerFuzzRegressionTests {
    /// roundtrip target, crash-8e370220: an `App.Node` with a field named `$class` (holding `{"$null": null}`)
    /// came back without it: the writer keeps the instance's class under `$class`, so the field was overwritten.
    /// No archive can hold such a field; `ArchivedObject.fields` now says so, the harness no longer makes one, and
    /// the graph JSON reader, which made one from `"$$class"` in untrusted text, refuses it.
    @Test func aFieldNamedClassIsRefusedByTheGraphJSONReaderSinceNoArchiveCanHoldIt() throws {
        let text = #"{"$archiver": "NSKeyedArchiver", "$top": {"root": {"$class": "App.Node", "$$class": {"$null": null}}}}"#
        let error = #expect(throws: ArchiveJSONError.self) { try ArchiveGraph(json: text) }
        #expect(error?.reason.contains("field named \"$class\"") == true, "\(error?.reason ?? "")")
        // Other `$`-names stay fields, through the JSON text and an archive.
        let other = #"{"$archiver": "NSKeyedArchiver", "$top": {"root": {"$class": "App.Node", "$$classes": 1, "$null": 2}}}"#
        let graph = try ArchiveGraph(json: other)
        #expect(graph.root?.object?.fields.keys.elements == ["$classes", "$null"])
        #expect(try ArchiveGraph(bytes: graph.binaryPlist()).isEquivalent(to: graph))
    }
}

extension ObjectLayerFuzzRegressionTests {
    struct Floats: Codable {
        var value: Float
        var list: [Float]
    }

    /// roundtrip target, crash-f850a182: a `Float` signaling NaN (`snan(0x57fce)`) came back as the quiet
    /// `nan(0x57fce)`. A `Float` is archived as a `Double`, and the hardware conversion quiets a signaling NaN;
    /// the conversion is now done on the bits, both ways, for NaNs.
    @Test(arguments: [
        Float(bitPattern: 0x7F85_7FCE), Float(bitPattern: 0xFF80_0001), Float(bitPattern: 0x7FC0_1234), -Float.nan, 1.5, -0.0,
    ])
    func aFloatNaNKeepsItsSignalingBitAndPayload(_ value: Float) throws {
        let bytes = try KeyedArchiveEncoder().encodeBytes(Floats(value: value, list: [value]))
        let back = try KeyedArchiveDecoder().decode(Floats.self, from: bytes)
        #expect(back.value.bitPattern == value.bitPattern)
        #expect(back.list.map(\.bitPattern) == [value.bitPattern])
        let archiver = KeyedArchiver()
        archiver.encode(value, forKey: "f")
        let unarchiver = try KeyedUnarchiver(bytes: try archiver.finishEncoding().binaryPlist())
        #expect(try unarchiver.decodeFloat(forKey: "f").bitPattern == value.bitPattern)
    }
}

extension ObjectLayerFuzzRegressionTests {
    /// Structure-aware `diff` target (oracle lazy-eager): `$objects[1]` is a plain array of UIDs naming itself. The
    /// archive is valid (the validated view opens it) and the lazy reader shows the UIDs as they are; the graph
    /// refuses it, because a graph written anew would give those UIDs other objects. The oracle now compares the
    /// lazy reader with the view's refusals, not with the graph's own.
    @Test func aPlainArrayOfUIDsIsReadLazilyAndRefusedByTheGraph() throws {
        let array = ArchiveValue.array([.uid(ArchiveUID(1)), .uid(ArchiveUID(1)), .uid(ArchiveUID(1))])
        let bytes = KeyedArchive(top: ["root": .uid(ArchiveUID(1))], objects: [.string("$null"), array]).binaryPlist()
        _ = try KeyedArchiveView(bytes: bytes)
        let lazy = try LazyKeyedArchive(bytes: bytes)
        let values = try lazy.values(at: ArchivePath(parsing: "$top.root"))
        #expect(values.first?.json(prettyPrinted: false) == #"{"$entry":[{"$cfuid":1},{"$cfuid":1},{"$cfuid":1}]}"#)
        #expect {
            _ = try ArchiveGraph(bytes: bytes)
        } throws: { error in
            (error as? ArchiveError)?.reason == "$objects[1] is a plain array holding UIDs, not an instance; the graph cannot keep it"
        }
    }

    /// graph target (2026-12-07): `ArchiveGraph(bytes:)` and `ArchiveGraph(archive:)` wrote different bytes for an
    /// archive whose `$objects` holds one long string twice as two entries, which a binary plist writer stores as
    /// one string object. The one-pass builder made a string per entry (since it made strings without the value
    /// cache), so the graph wrote two entries; the `KeyedArchive` path shares the object's value and wrote one. The
    /// builder now shares the string of entries that name one string object, fields and `$top` alike.
    @Test func twoEntriesOfOneLongStringObjectShareOneStringInBothGraphPaths() throws {
        let text = "a string longer than fifteen bytes, written twice"
        let objects: [ArchiveValue] = [
            .string(ArchiveKey.null), ArchiveClass(name: "Pair").descriptor,
            .dictionary([
                "$class": .uid(ArchiveUID(1)), "first": .uid(ArchiveUID(3)), "second": .uid(ArchiveUID(4)),
                "again": .uid(ArchiveUID(4)),
            ]),
            .string(text), .string(text), .string(text),
        ]
        let top: OrderedDictionary<String, ArchiveValue> = [
            "root": .uid(ArchiveUID(2)), "label": .uid(ArchiveUID(5)), "same": .uid(ArchiveUID(5)),
        ]
        let bytes = KeyedArchive(top: top, objects: objects).binaryPlist()
        // The writer stores the text once: the three entries name one bplist object.
        let view = try KeyedArchiveView(bytes: bytes)
        let onePass = try ArchiveGraph(bytes: bytes)
        let throughArchive = try ArchiveGraph(archive: view.keyedArchive())
        defer {
            onePass.breakReferenceCycles()
            throughArchive.breakReferenceCycles()
        }
        #expect(onePass.isEquivalent(to: throughArchive))
        #expect(onePass.binaryPlist() == throughArchive.binaryPlist())
        let rewritten = try KeyedArchive(bytes: onePass.binaryPlist())
        #expect(rewritten.objects.filter { $0 == .string(text) }.count == 1)
        #expect(onePass.root?.object?.fields["second"]?.scalar == .string(text))
        #expect(onePass.roots["same"]?.scalar == .string(text))
    }
}
