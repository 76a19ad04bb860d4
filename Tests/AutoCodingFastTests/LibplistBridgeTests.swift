import OrderedCollections
import Testing

@testable import AutoCodingFast

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

@Suite("libplist bridge")
struct LibplistBridgeTests {
    /// Options that send binary input through libplist after the native validation.
    static var libplistBackend: ArchiveReadingOptions {
        var options = ArchiveReadingOptions()
        options.backend = .libplist
        return options
    }

    /// One value of every case, with the edges of each numeric range.
    static let everyCase: ArchiveValue = .dictionary([
        "zero": .integer(0),
        "negative": .integer(-42),
        "int64 min": .integer(.min),
        "int64 max": .integer(.max),
        "uint32 max": .integer(Int64(UInt32.max)),
        "just above int64 max": .unsignedInteger(UInt64(Int64.max) + 1),
        "uint64 max": .unsignedInteger(.max),
        "reals": .array([
            .real(0.1), .real(-1e300), .real(3), .real(.leastNonzeroMagnitude), .real(.infinity), .real(-.infinity),
        ]),
        "dates": .array([
            .date(Date(timeIntervalSinceReferenceDate: 0)),
            .date(Date(timeIntervalSinceReferenceDate: 700_000_000)),
            .date(Date(timeIntervalSinceReferenceDate: -1_000_000_000)),  // 1969: before the UNIX epoch
            .date(Date(timeIntervalSinceReferenceDate: 4_000_000_000)),  // 2127: beyond 32-bit seconds
        ]),
        "data": .data([0, 1, 2, 0x7F, 0x80, 0xFF]),
        "empty data": .data([]),
        "unicode": .string("héllo wörld — 日本語 🎉 <&>\"' end"),
        "empty string": .string(""),
        "true": .bool(true),
        "false": .bool(false),
        "uids": .array([.uid(.null), .uid(ArchiveUID(7)), .uid(ArchiveUID(UInt32.max))]),
        "nested": .array([
            .array([]),
            .dictionary([:]),
            .dictionary(["ключ": .array([.integer(1), .array([.string("deep")])])]),
        ]),
    ])

    // MARK: XML reading

    @Test func readsCFUIDDictionariesAsUIDs() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
                <key>root</key>
                <dict><key>CF$UID</key><integer>1</integer></dict>
                <key>list</key>
                <array>
                    <dict><key>CF$UID</key><integer>0</integer></dict>
                    <dict><key>CF$UID</key><integer>4294967295</integer></dict>
                </array>
                <key>not a uid</key>
                <dict><key>CF$UID</key><string>1</string></dict>
                <key>two keys</key>
                <dict><key>CF$UID</key><integer>1</integer><key>other</key><true/></dict>
            </dict>
            </plist>
            """
        let value = try ArchiveValue(propertyList: Array(xml.utf8))
        #expect(value["root"] == .uid(ArchiveUID(1)))
        #expect(value["list"] == .array([.uid(.null), .uid(ArchiveUID(UInt32.max))]))
        #expect(value["not a uid"] == .dictionary(["CF$UID": .string("1")]))
        #expect(value["two keys"] == .dictionary(["CF$UID": .integer(1), "other": .bool(true)]))
    }

    @Test(arguments: ["4294967296", "-1", "18446744073709551615"])
    func rejectsCFUIDOutsideUInt32(_ number: String) {
        let xml = "<plist><array><dict><key>CF$UID</key><integer>\(number)</integer></dict></array></plist>"
        let error = #expect(throws: ArchiveError.self) { try ArchiveValue(propertyList: Array(xml.utf8)) }
        #expect(error?.code == .invalidUID)
    }

    @Test func readsSignedAndUnsignedXMLIntegers() throws {
        let xml = """
            <plist><array>
            <integer>-1</integer>
            <integer>-9223372036854775808</integer>
            <integer>9223372036854775807</integer>
            <integer>9223372036854775808</integer>
            <integer>18446744073709551615</integer>
            </array></plist>
            """
        let value = try ArchiveValue(propertyList: Array(xml.utf8))
        #expect(
            value
                == .array([
                    .integer(-1), .integer(.min), .integer(.max), .unsignedInteger(1 << 63), .unsignedInteger(.max),
                ])
        )
    }

    // MARK: XML limits, checked before libplist runs

    @Test func rejectsXMLLargerThanMaxXMLInputBytesBeforeParsing() throws {
        let xml = Array(#"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><array><true/><true/></array></plist>"#.utf8)
        var options = ArchiveReadingOptions()
        options.maxXMLInputBytes = xml.count - 1
        let error = #expect(throws: ArchiveError.self) { try ArchiveValue(propertyList: xml, options: options) }
        #expect(error?.code == .limitExceeded)
        #expect(error?.reason.contains("maxXMLInputBytes") == true)
        options.maxXMLInputBytes = xml.count
        #expect(try ArchiveValue(propertyList: xml, options: options) == .array([.bool(true), .bool(true)]))
    }

    @Test func rejectsXMLDeeperThanTheDepthLimitBeforeParsing() {
        var options = ArchiveReadingOptions()
        options.depthLimit = 8
        // Nine open arrays and no closing tags: libplist would fail with libplistFailure, so
        // depthLimitExceeded shows that the scan stopped the input first.
        let xml = "<plist>" + String(repeating: "<array>", count: 9)
        let error = #expect(throws: ArchiveError.self) {
            try ArchiveValue(propertyList: Array(xml.utf8), options: options)
        }
        #expect(error?.code == .depthLimitExceeded)
    }

    @Test func acceptsXMLExactlyAtTheDepthLimit() throws {
        var options = ArchiveReadingOptions()
        options.depthLimit = 8
        let xml =
            "<plist>" + String(repeating: "<array>", count: 7) + "<dict/><array/>"
            + String(repeating: "</array>", count: 7) + "</plist>"
        var expected: ArchiveValue = .array([.dictionary([:]), .array([])])
        for _ in 0..<6 { expected = .array([expected]) }
        #expect(try ArchiveValue(propertyList: Array(xml.utf8), options: options) == expected)
    }

    @Test func closingTagsHiddenInCommentsCDATAAndQuotesDoNotLowerTheDepth() {
        var options = ArchiveReadingOptions()
        options.depthLimit = 4
        let hidden = [
            "<!-- </array></array></array> -->",
            "<string><![CDATA[</array></array></array>]]></string>",
            "<?pi \"</array></array></array>\"?>",
        ]
        for hiding in hidden {
            let xml = "<plist><array>" + hiding + String(repeating: "<array>", count: 4) + "</plist>"
            let error = #expect(throws: ArchiveError.self, "\(hiding)") {
                try ArchiveValue(propertyList: Array(xml.utf8), options: options)
            }
            #expect(error?.code == .depthLimitExceeded, "\(hiding)")
        }
    }

    @Test func rejectsMoreXMLElementsThanMaxObjectCount() {
        var options = ArchiveReadingOptions()
        options.maxObjectCount = 10
        let xml = "<plist><array>" + String(repeating: "<true/>", count: 10) + "</array></plist>"
        let error = #expect(throws: ArchiveError.self) {
            try ArchiveValue(propertyList: Array(xml.utf8), options: options)
        }
        #expect(error?.code == .limitExceeded)
    }

    @Test(arguments: [
        "<integer>abc</integer>", "<integer>12abc</integer>", "<integer>010</integer>", "<integer></integer>",
        "<integer/>", "<integer>18446744073709551616</integer>", "<integer>-9223372036854775809</integer>",
        "<real>x</real>", "<real>1.5.2</real>", "<real/>", "<date>yesterday</date>",
        "<date>2001-13-01T00:00:00Z</date>",
        "<date>2001-01-01 00:00:00</date>", "<data>!!!</data>", "<data>QUJD=</data>", "<data>QQ=A</data>",
    ])
    func rejectsScalarTextLibplistWouldReadAsZero(_ element: String) {
        let xml = "<plist><array>\(element)</array></plist>"
        let error = #expect(throws: ArchiveError.self, "\(element)") { try ArchiveValue(propertyList: Array(xml.utf8)) }
        #expect(error?.code == .invalidObject, "\(element)")
    }

    @Test func acceptsScalarTextInEveryFormLibplistAndCoreFoundationAgreeOn() throws {
        let xml = """
            <plist><array>
            <integer> 0 </integer><integer>+7</integer><integer>-0</integer><integer>0x1F</integer>
            <integer><!-- a comment -->42</integer><integer><![CDATA[43]]></integer>
            <real>nan</real><real>-infinity</real><real>1e-3</real><real>.5</real>
            <date>2001-01-01T00:00:00Z</date>
            <data>
                QUJD
                RA==
            </data><data/><data></data>
            </array></plist>
            """
        let value = try ArchiveValue(propertyList: Array(xml.utf8))
        let elements = try #require(value.arrayValue)
        #expect(elements.count == 14)
        #expect(
            Array(elements[0..<6]) == [.integer(0), .integer(7), .integer(0), .integer(31), .integer(42), .integer(43)]
        )
        #expect(elements[10] == .date(Date(timeIntervalSinceReferenceDate: 0)))
        #expect(Array(elements[11...]) == [.data(Array("ABCD".utf8)), .data([]), .data([])])
    }

    @Test func rejectsARepeatedKeyThatLibplistWouldMerge() {
        let xml = "<plist><array><dict/><dict><key>k</key><true/><key>k</key><false/></dict></array></plist>"
        let error = #expect(throws: ArchiveError.self) { try ArchiveValue(propertyList: Array(xml.utf8)) }
        #expect(error?.code == .invalidObject)
        #expect(error?.reason.contains("offset 21") == true)
    }

    @Test func rejectsAKeyWithoutAValue() {
        let xml = "<plist><dict><key>a</key><true/><key>b</key></dict></plist>"
        let error = #expect(throws: ArchiveError.self) { try ArchiveValue(propertyList: Array(xml.utf8)) }
        #expect(error?.code == .invalidObject)
    }

    @Test func readsASecondKeyInARowAsTheValueOfTheFirstAsLibplistDoes() throws {
        let xml = "<plist><dict><key>a</key><key>b</key></dict></plist>"
        #expect(try ArchiveValue(propertyList: Array(xml.utf8)) == .dictionary(["a": .string("b")]))
    }

    @Test func reportsMalformedXMLAsAnError() {
        for xml in ["<plist><array></dict>", "<plist><array><integer>1</array></plist>", "<plist>"] {
            #expect(throws: ArchiveError.self, "\(xml)") { try ArchiveValue(propertyList: Array(xml.utf8)) }
        }
    }

    // MARK: XML writing

    @Test func roundTripsEveryCaseThroughXML() throws {
        let xml = try LibplistBridge.xmlData(Self.everyCase)
        let back = try ArchiveValue(propertyList: xml)
        #expect(back == Self.everyCase)
        // Key order is the file's order.
        #expect(back.dictionaryValue?.keys.elementsEqual(Self.everyCase.dictionaryValue?.keys ?? []) == true)
    }

    @Test func writesUIDsAsCFUIDDictionaries() throws {
        let xml = String(decoding: try ArchiveValue.array([.uid(ArchiveUID(5))]).xmlPropertyList(), as: UTF8.self)
        let compact = xml.filter { !$0.isWhitespace }
        #expect(compact.contains("<dict><key>CF$UID</key><integer>5</integer></dict>"))
    }

    @Test func keepsTheSignOfNegativeZeroInXML() throws {
        // libplist prints every zero as 0.0; the bridge restores the sign (== cannot see it, so compare bits).
        let value: ArchiveValue = .dictionary([
            "a": .real(0), "b": .array([.real(-0.0), .real(1)]), "c": .real(-0.0), "d": .string("<real>0.0</real>"),
        ])
        let xml = try LibplistBridge.xmlData(value)
        guard case .dictionary(let back) = try ArchiveValue(propertyList: xml) else {
            Issue.record("not a dictionary")
            return
        }
        let signs = [back["a"], back["b"]?.arrayValue?.first, back["c"]].map { real -> FloatingPointSign? in
            if case .real(let r)? = real { return r.sign }
            return nil
        }
        #expect(signs == [.plus, .minus, .minus])
        #expect(back["d"] == .string("<real>0.0</real>"))
    }

    @Test func writesIntegersWithTheirSign() throws {
        let xml = String(
            decoding: try LibplistBridge.xmlData(.array([.integer(-1), .integer(.min), .unsignedInteger(.max)])),
            as: UTF8.self
        )
        #expect(xml.contains("<integer>-1</integer>"))
        #expect(xml.contains("<integer>-9223372036854775808</integer>"))
        #expect(xml.contains("<integer>18446744073709551615</integer>"))
    }

    @Test func refusesStringsLibplistWouldTruncate() {
        #expect(throws: ArchiveError.self) { try LibplistBridge.xmlData(.string("a\u{0}b")) }
        #expect(throws: ArchiveError.self) { try LibplistBridge.xmlData(.dictionary(["a\u{0}b": .bool(true)])) }
    }

    @Test func refusesNestingDeeperThanTheWritersTake() {
        var value: ArchiveValue = .array([])
        for _ in 0..<LibplistBridge.maxWriteDepth { value = .array([value]) }
        let error = #expect(throws: ArchiveError.self) { try LibplistBridge.xmlData(value) }
        #expect(error?.code == .depthLimitExceeded)
    }

    // MARK: Binary: native reader vs libplist

    @Test func nativeAndLibplistAgreeOnOurBinaryOutput() throws {
        var value = Self.everyCase
        if case .dictionary(var entries) = value {
            // Binary keeps full date precision, unlike XML.
            entries["precise dates"] = .array([
                .date(Date(timeIntervalSinceReferenceDate: 123_456_789.123_456_789)),
                .date(Date(timeIntervalSinceReferenceDate: -0.25)),
                .date(Date(timeIntervalSinceReferenceDate: 9e9 + 0.5)),
            ])
            entries["shared"] = .array(Array(repeating: .string("same"), count: 3))
            value = .dictionary(entries)
        }
        let bytes = value.binaryPropertyList()
        let native = try ArchiveValue(propertyList: bytes)
        let viaLibplist = try ArchiveValue(propertyList: bytes, options: Self.libplistBackend)
        #expect(native == value)
        #expect(viaLibplist == native)
    }

    @Test func libplistBinaryWriterOutputReadsBackNatively() throws {
        let bytes = try LibplistBridge.binaryData(Self.everyCase)
        #expect(try ArchiveValue(propertyList: bytes) == Self.everyCase)
    }

    @Test func nativeAndLibplistAgreeOnHandWrittenIntegers() throws {
        let objects: [[UInt8]] = [
            [0xA6, 1, 2, 3, 4, 5, 6],  // 0: array of objects 1...6
            [0x10, 0xFF],  // 1: 1-byte 255 (1, 2 and 4-byte integers are unsigned)
            [0x13, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],  // 2: 8-byte -1
            [0x13, 0x80, 0, 0, 0, 0, 0, 0, 0],  // 3: 8-byte Int64.min
            [0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],  // 4: 16-byte UInt64.max
            [0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5],  // 5: 16-byte 5 (fits Int64)
            [0x12, 0xFF, 0xFF, 0xFF, 0xFF],  // 6: 4-byte 4294967295
        ]
        let bytes = Self.bplist(objects)
        let expected: ArchiveValue = .array([
            .integer(255), .integer(-1), .integer(.min), .unsignedInteger(.max), .integer(5), .integer(4_294_967_295),
        ])
        #expect(try ArchiveValue(propertyList: bytes) == expected)
        #expect(try ArchiveValue(propertyList: bytes, options: Self.libplistBackend) == expected)
    }

    @Test func nativeAndLibplistAgreeOnHandWrittenScalars() throws {
        let objects: [[UInt8]] = [
            [0xD3, 1, 2, 3, 4, 5, 6],  // 0: dictionary, keys 1...3, values 4...6
            [0x51, 0x61],  // 1: "a"
            [0x61, 0x00, 0xE9],  // 2: UTF-16 "é"
            [0x51, 0x63],  // 3: "c"
            [0x33, 0x41, 0xC0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01],  // 4: date 536870912.0000001 (sub-µs bits)
            [0x22, 0x3F, 0xC0, 0x00, 0x00],  // 5: 4-byte real 1.5
            [0x80, 0x2A],  // 6: UID 42
        ]
        let bytes = Self.bplist(objects)
        let native = try ArchiveValue(propertyList: bytes)
        #expect(try ArchiveValue(propertyList: bytes, options: Self.libplistBackend) == native)
        #expect(native["a"] == .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: 0x41C0_0000_0000_0001))))
        #expect(native["é"] == .real(1.5))
        #expect(native["c"] == .uid(ArchiveUID(42)))
    }

    @Test func readsAUTF16StringHoldingNULAsAValueWithBothBackends() throws {
        let bytes = Self.bplist([
            [0xA1, 1],  // 0: array [object 1]
            [0x63, 0x00, 0x61, 0x00, 0x00, 0x00, 0xE9],  // 1: UTF-16 "a\0é"
        ])
        let native = try ArchiveValue(propertyList: bytes)
        #expect(native == .array([.string("a\u{0}é")]))
        #expect(try ArchiveValue(propertyList: bytes, options: Self.libplistBackend) == native)
    }

    // MARK: What libplist would misread is rejected before it runs

    @Test func rejectsTheNullMarkerOnTheLibplistPathAsTheNativeReaderDoes() {
        let bytes = Self.bplist([[0xA1, 1], [0x00]])  // array [null]
        let error = #expect(throws: ArchiveError.self) {
            try ArchiveValue(propertyList: bytes, options: Self.libplistBackend)
        }
        #expect(error?.code == .unexpectedType)
        #expect(error?.reason.contains("object 1") == true)
    }

    @Test(
        arguments: [
            // ASCII "a\0b": libplist cuts it at the NUL
            ([[0xA1, 1], [0x53, 0x61, 0x00, 0x62]], .array([.string("a\0b")])),
            // empty UTF-16 string: libplist rejects the file
            ([[0xA1, 1], [0x60]], .array([.string("")])),
            // 16-byte -1: libplist reads UInt64.max
            ([[0xA1, 1], [0x14] + [UInt8](repeating: 0xFF, count: 16)], .array([.integer(-1)])),
            // UTF-16 key "\0": libplist strdup's keys
            ([[0xD1, 1, 2], [0x61, 0x00, 0x00], [0x09]], .dictionary(["\0": .bool(true)])),
        ] as [([[UInt8]], ArchiveValue)]
    )
    func rejectsWhatLibplistWouldMisreadButReadsItNatively(_ objects: [[UInt8]], _ native: ArchiveValue) throws {
        let bytes = Self.bplist(objects)
        #expect(try ArchiveValue(propertyList: bytes) == native)
        let error = #expect(throws: ArchiveError.self) {
            try ArchiveValue(propertyList: bytes, options: Self.libplistBackend)
        }
        #expect(error?.code == .libplistFailure)
        #expect(error?.reason.contains("object 1") == true)
    }

    // MARK: Reference bombs

    @Test func rejectsAReferenceBombBeforeLibplistButValidatesItNatively() throws {
        let bytes = Self.referenceBomb(levels: 30)
        #expect(bytes.count < 250)
        try bytes.withUnsafeBytes { raw in
            // The native validator accepts it: every object is valid and shared references cost nothing.
            let index = try BPlistIndex(validating: raw, options: ArchiveReadingOptions())
            let error = #expect(throws: ArchiveError.self) {
                try index.checkExpandedSize(in: raw, limit: ArchiveReadingOptions().maxExpandedNodeCount)
            }
            #expect(error?.code == .limitExceeded)
        }
        let error = #expect(throws: ArchiveError.self) {
            try ArchiveValue(propertyList: bytes, options: Self.libplistBackend)
        }
        #expect(error?.code == .limitExceeded)
    }

    @Test func smallReferenceBombsReadTheSameBothWays() throws {
        let bytes = Self.referenceBomb(levels: 10)
        let native = try ArchiveValue(propertyList: bytes)
        #expect(try ArchiveValue(propertyList: bytes, options: Self.libplistBackend) == native)
    }

    @Test(arguments: [(levels: 1, nodes: 3), (levels: 2, nodes: 7), (levels: 10, nodes: 2047)])
    func countsExpandedNodesExactly(levels: Int, nodes: Int) throws {
        // Each level is an array of two references to the next: nodes = 2^(levels + 1) - 1.
        let bytes = Self.referenceBomb(levels: levels)
        try bytes.withUnsafeBytes { raw in
            let index = try BPlistIndex(validating: raw, options: ArchiveReadingOptions())
            // The container check measures a tree (one level: the integer is shared, no container is), and
            // leaves a plist whose containers are shared to the walk.
            #expect(index.expandedTopSize == (levels == 1 ? UInt32(nodes) : nil))
            var messages: [String] = []
            for forLibplist in [true, false] {
                try index.checkExpandedSize(in: raw, limit: nodes, forLibplist: forLibplist)
                let error = #expect(throws: ArchiveError.self) {
                    try index.checkExpandedSize(in: raw, limit: nodes - 1, forLibplist: forLibplist)
                }
                messages.append(error?.reason ?? "")
            }
            #expect(messages[0] == messages[1] && messages[0].contains("expands to more than \(nodes - 1) nodes"))
        }
    }

    @Test func countsDictionaryKeysAsNodes() throws {
        let objects: [[UInt8]] = [
            [0xA2, 1, 1],  // 0: array [d, d]
            [0xD2, 2, 3, 4, 4],  // 1: d = dictionary {"a": e, "b": e}
            [0x51, 0x61],  // 2: "a"
            [0x51, 0x62],  // 3: "b"
            [0xA1, 5],  // 4: e = array [true]
            [0x09],  // 5: true
        ]
        // e = 2, d = 1 + 2 keys + 2 × 2 = 7, top = 1 + 2 × 7 = 15.
        let bytes = Self.bplist(objects)
        try bytes.withUnsafeBytes { raw in
            let index = try BPlistIndex(validating: raw, options: ArchiveReadingOptions())
            for forLibplist in [true, false] {
                // d and e are each referenced twice: the graph builder keeps each one value.
                #expect(try index.checkExpandedSize(in: raw, limit: 15, forLibplist: forLibplist) == [1, 4])
                let error = #expect(throws: ArchiveError.self) {
                    try index.checkExpandedSize(in: raw, limit: 14, forLibplist: forLibplist)
                }
                #expect(error?.code == .limitExceeded)
            }
        }
    }

    @Test func countsLongKeysByLengthBothWays() throws {
        let objects: [[UInt8]] = [
            [0xA2, 1, 2],  // 0: array [d1, d2]
            [0xD1, 3, 5],  // 1: d1 = {k: 7}
            [0xD2, 3, 4, 5, 5],  // 2: d2 = {k: 7, a: 7}
            [0x6F, 0x10, 16] + Array(repeating: [0x00, 0xE9], count: 16).flatMap { $0 },  // 3: k, 16 UTF-16 units
            [0x5F, 0x10, 130] + Array(repeating: UInt8(ascii: "a"), count: 130),  // 4: a, 130 ASCII bytes
            [0x10, 0x07],  // 5: 7
        ]
        // k = 1 + 16 / 4 = 5, a = 1 + 130 / 128 = 2; d1 = 1 + 5 + 1 = 7, d2 = 1 + 5 + 1 + 2 + 1 = 10; top 18.
        let bytes = Self.bplist(objects)
        try bytes.withUnsafeBytes { raw in
            let index = try BPlistIndex(validating: raw, options: ArchiveReadingOptions())
            #expect(index.expandedTopSize == 18)
            for forLibplist in [true, false] {
                #expect(try index.checkExpandedSize(in: raw, limit: 18, forLibplist: forLibplist) == [])
                let error = #expect(throws: ArchiveError.self) {
                    try index.checkExpandedSize(in: raw, limit: 17, forLibplist: forLibplist)
                }
                #expect(error?.reason.contains("keys counted by length") == true)
            }
        }
    }

    // MARK: Helpers

    /// A bplist of `levels` arrays, each holding two references to the next, ending in the integer 0.
    static func referenceBomb(levels: Int) -> [UInt8] {
        var objects: [[UInt8]] = (0..<levels).map { i in [0xA2, UInt8(i + 1), UInt8(i + 1)] }
        objects.append([0x10, 0x00])
        return bplist(objects)
    }

    /// Lays out hand-written objects (with 1-byte references) behind a header, with a 1-byte offset table
    /// and a trailer whose top object is object 0.
    static func bplist(_ objects: [[UInt8]]) -> [UInt8] {
        var bytes = Array("bplist00".utf8)
        var offsets: [UInt8] = []
        for object in objects {
            offsets.append(UInt8(bytes.count))
            bytes += object
        }
        let tableOffset = bytes.count
        bytes += offsets
        bytes += [0, 0, 0, 0, 0, 0]  // unused
        bytes += [1, 1]  // offset int size, object ref size
        bytes += [0, 0, 0, 0, 0, 0, 0, UInt8(objects.count)]  // object count
        bytes += [0, 0, 0, 0, 0, 0, 0, 0]  // top object
        bytes += [0, 0, 0, 0, 0, 0, 0, UInt8(tableOffset)]  // offset table offset
        return bytes
    }
}
