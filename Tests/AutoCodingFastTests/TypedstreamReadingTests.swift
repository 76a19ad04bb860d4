import AutoCodingFast
import Testing

/// Hand-made typedstreams: what each kind of value reads as, and a specific error code for each kind of damage.
@Suite("Typedstream reading")
struct TypedstreamReadingTests {
    /// `\u{4}\u{B}streamtyped`, system version 1000.
    static let header: [UInt8] = [0x04, 0x0B] + Array("streamtyped".utf8) + [0x81, 0xE8, 0x03]
    static let bigHeader: [UInt8] = [0x04, 0x0B] + Array("typedstream".utf8) + [0x81, 0x03, 0xE8]

    /// A stream holding one NSString "hi" as the root object.
    static let string: [UInt8] =
        header + [
            0x84, 0x01, 0x40,  // group: new shared string "@"
            0x84,  // new object #0
            0x84, 0x84, 0x08,
        ] + Array("NSString".utf8) + [
            0x01,  // class #1 NSString v1 (new shared string)
            0x84, 0x84, 0x08,
        ] + Array("NSObject".utf8) + [
            0x00,  // class #2 NSObject v0
            0x85,  // end of class chain
            0x84, 0x01, 0x2B,  // group: new shared string "+"
            0x02, 0x68, 0x69,  // unshared string "hi"
            0x86,  // end of object
        ]

    /// A new shared string: tag, length, bytes.
    static func literal(_ text: String) -> [UInt8] { [0x84, UInt8(text.utf8.count)] + Array(text.utf8) }

    // MARK: - Valid streams

    @Test func readsAnObjectWithItsClassChain() throws {
        let stream = try Typedstream(bytes: Self.string)
        #expect(stream.byteOrder == .little)
        #expect(stream.systemVersion == 1000)
        #expect(
            stream.eventText() == """
                streamer version 4, byte order little, system version 1000

                begin typed values (types [b'@'])
                \tbegin literal object (#0)
                \t\tclass NSString v1 (#1)
                \t\tclass NSObject v0 (#2)
                \t\tNone
                \t\tbegin typed values (types [b'+'])
                \t\t\tb'hi'
                \t\tend typed values
                \tend literal object
                end typed values

                """
        )
        #expect(stream.typedstreamBytes() == Self.string)
    }

    @Test func readsEveryIntegerFormInBothByteOrders() throws {
        for (header, big) in [(Self.header, false), (Self.bigHeader, true)] {
            func be(_ bytes: [UInt8]) -> [UInt8] { big ? bytes.reversed() : bytes }
            let bytes =
                header + [0x84, 0x05] + Array("sqiIQ".utf8)  // group "sqiIQ"
                + [0x05]  // s: 5 (one byte)
                + [0x87] + be([0x00, 0xE6, 0x8E, 0xE7, 0xFD, 0xFF, 0xFF, 0xFF])  // q: -9e9 (0x87, 8 bytes)
                + [0x82] + be([0x00, 0x00, 0x01, 0x00])  // i: 65536 (0x82, 4 bytes)
                + [0x81] + be([0xC8, 0x00])  // I: 200 (0x81, 2 bytes)
                + [0x87] + be([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])  // Q: 2^64 - 1
            let stream = try Typedstream(bytes: bytes)
            let values = stream.events.compactMap { event -> String? in
                switch event {
                case .signed(let v, _): "\(v)"
                case .unsigned(let v, _): "\(v)"
                default: nil
                }
            }
            #expect(values == ["5", "-9000000000", "65536", "200", "18446744073709551615"])
            #expect(stream.typedstreamBytes() == bytes)
        }
    }

    @Test func readsRealsStoredAsRealsAndAsIntegers() throws {
        let bytes =
            Self.header + [0x84, 0x04] + Array("ffdd".utf8)
            + [0x83, 0x00, 0x00, 0xC0, 0x3F]  // f: 1.5
            + [0x03]  // f: 3 (integral, stored as an integer)
            + [0x83, 0x9A, 0x99, 0x99, 0x99, 0x99, 0x99, 0xB9, 0x3F]  // d: 0.1
            + [0x81, 0x00, 0x01]  // d: 256
        let stream = try Typedstream(bytes: bytes)
        #expect(stream.events.contains(.float(1.5)))
        #expect(stream.events.contains(.float(3)))
        #expect(stream.events.contains(.double(0.1)))
        #expect(stream.events.contains(.double(256)))
        #expect(stream.typedstreamBytes() == bytes)
    }

    @Test func readsStructsArraysAtomsSelectorsAndCStrings() throws {
        let bytes =
            Self.header + Self.literal("{_NSPoint=ff}[2c][2i]")
            + [0x01, 0x02]  // point (1, 2)
            + [0x41, 0x42]  // [2c]: raw bytes "AB"
            + [0x07, 0x08]  // [2i]: 7, 8
            + Self.literal("%:**")
            + [0x84, 0x02] + Array("ab".utf8)  // atom: new shared string "ab"
            + [0x94]  // selector: shared string #2 ("ab")
            + [0x84, 0x94]  // new C string #0 from shared string #2
            + [0x92]  // reference to C string #0
        let stream = try Typedstream(bytes: bytes)
        let text = stream.eventText()
        #expect(text.contains("begin struct _NSPoint (field types [b'f', b'f'])\n\t\t1.0\n\t\t2.0\n\tend struct"))
        #expect(text.contains("byte array (element type b'c'): b'AB'"))
        #expect(text.contains("begin array (element type b'i', length 2)\n\t\t7\n\t\t8\n\tend array"))
        #expect(text.contains("atom: b'ab'\n\tselector: b'ab'\n\tC string: b'ab' (#0)\n\t<reference to C string #0>"))
        #expect(stream.typedstreamBytes() == bytes)
    }

    @Test func readsSeveralTopLevelGroupsUntilTheEnd() throws {
        let bytes = Self.header + [0x84, 0x01, 0x69, 0x01] + [0x92, 0x02] + [0x92, 0x03]
        let stream = try Typedstream(bytes: bytes)
        #expect(stream.events.filter { $0 == .endGroup }.count == 3)
    }

    @Test func acceptsNeXTSTEPSystemVersion() throws {
        let bytes = [0x04, 0x0B] + Array("typedstream".utf8) + [0x81, 0x03, 0xA2]
        #expect(try Typedstream(bytes: bytes).systemVersion == 930)
    }

    @Test func sniffsBothSignatures() {
        #expect(Typedstream.hasSignature(Self.header))
        #expect(Typedstream.hasSignature(Self.bigHeader))
        #expect(!Typedstream.hasSignature(Array("bplist00".utf8)))
        // Any streamer version, but the length byte 11 and one of the two words; slices and collections without
        // contiguous storage alike.
        let header = [0x04, 0x0B] + Array("streamtyped".utf8)
        #expect(Typedstream.hasSignature([0x03] + header.dropFirst()))
        #expect(!Typedstream.hasSignature([0x04, 0x0C] + header.dropFirst(2)))
        #expect(!Typedstream.hasSignature(header.dropLast()))
        #expect(!Typedstream.hasSignature(header.dropLast() + Array("x".utf8)))
        #expect(Typedstream.hasSignature(([0xFF] + header)[1...]))
        #expect(Typedstream.hasSignature(header.lazy.map { $0 }))
        #expect(!Typedstream.hasSignature(Array("bplist00streamtyped".utf8).lazy.map { $0 }))
    }

    // MARK: - Damage

    func expectCode(_ code: ArchiveError.Code, _ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let error = #expect(throws: ArchiveError.self, sourceLocation: sourceLocation) { try Typedstream(bytes: bytes) }
        #expect(error?.code == code, "\(error.map { "\($0)" } ?? "no error")", sourceLocation: sourceLocation)
    }

    @Test func rejectsAMissingSignature() {
        expectCode(.notTypedstream, [0x04, 0x0B] + Array("streamtypex".utf8) + [0x00])
        expectCode(.notTypedstream, [0x04])
    }

    @Test func rejectsOtherStreamerVersions() {
        expectCode(.unsupportedVersion, [0x03, 0x0B] + Array("streamtyped".utf8) + [0x81, 0xE8, 0x03])
    }

    /// Every proper prefix of a valid stream that contains an object, a string, integers of every width,
    /// reals, structs and arrays fails as truncated (except where a prefix ends on a group boundary).
    @Test func rejectsTruncationInsideEveryKindOfValue() throws {
        let second =
            Self.literal("qfd") + [
                0x87, 1, 2, 3, 4, 5, 6, 7, 8,  // q, 8 bytes
                0x83, 0, 0, 0xC0, 0x3F,  // f
                0x83, 0, 0, 0, 0, 0, 0, 0xF8, 0x3F,  // d
            ]
        let third = Self.literal("{ii}[3s]") + [0x81, 1, 2, 0x82, 1, 2, 3, 4, 1, 2, 3]
        let full = Self.string + second + third
        let boundaries = [Self.header.count, Self.string.count, Self.string.count + second.count]
        // The whole stream reads, with the values the cuts below fall inside.
        let events = try Typedstream(bytes: full).events
        #expect(events.contains(.signed(0x0807_0605_0403_0201, type: UInt8(ascii: "q"))))
        #expect(events.contains(.float(1.5)) && events.contains(.double(1.5)))
        #expect(events.last == .endGroup)
        for cut in Self.header.count..<full.count where !boundaries.contains(cut) {
            expectCode(.truncated, Array(full.prefix(cut)))
        }
    }

    @Test func rejectsAReferencePastTheTable() {
        expectCode(.invalidReference, Self.header + [0x84, 0x01, 0x40, 0x95])  // object #3 of 0
        expectCode(.invalidReference, Self.header + [0x93])  // shared string #1 of 0
    }

    @Test func rejectsAReferenceToTheWrongKind() {
        // An object's class is a reference to the object itself (#0), not to a class.
        expectCode(.invalidReference, Self.header + [0x84, 0x01, 0x40, 0x84, 0x92])
    }

    @Test func rejectsAnUnknownTag() {
        expectCode(.invalidTag, Self.header + [0x84, 0x01, 0x69, 0x88])  // i: tag 0x88
        expectCode(.invalidTag, Self.header + [0x84, 0x01, 0x69, 0x86])  // i: end of object
    }

    @Test func rejectsALyingLength() {
        expectCode(.truncated, Self.header + [0x84, 0x01, 0x2B, 0x81, 0x00, 0x10, 0x41])  // "+" of 4096 bytes: 1 left
        expectCode(.truncated, Self.header + [0x84, 0x05] + Array("[99c]".utf8) + [0x41])
    }

    @Test func rejectsBadTypeEncodings() {
        expectCode(.invalidTypeEncoding, Self.header + [0x84, 0x01, 0x7A, 0x00])  // "z"
        expectCode(.invalidTypeEncoding, Self.header + [0x84, 0x03] + Array("{ii".utf8) + [0, 0])  // unbalanced
        expectCode(.invalidTypeEncoding, Self.header + [0x84, 0x03] + Array("(i)".utf8) + [0])  // union
        expectCode(.invalidTypeEncoding, Self.header + [0x84, 0x00])  // empty
        expectCode(.invalidTypeEncoding, Self.header + [0x85])  // nil
    }

    @Test func rejectsDeepNesting() {
        var options = ArchiveReadingOptions()
        options.depthLimit = 10
        // Objects nested in objects: object #0 of new class #1 "A", whose group "@" holds a new object of
        // class #1 (0x93), whose group holds another, and so on.
        var bytes = Self.header + [0x84, 0x01, 0x40, 0x84, 0x84, 0x84, 0x01, 0x41, 0x00, 0x85]
        for _ in 0..<20 { bytes += [0x92, 0x84, 0x93] }
        let error = #expect(throws: ArchiveError.self) { try Typedstream(bytes: bytes, options: options) }
        #expect(error?.code == .depthLimitExceeded)
        // Deep type encodings are bounded too.
        let deep =
            Array(repeating: UInt8(ascii: "{"), count: 50) + [UInt8(ascii: "i")]
            + Array(repeating: UInt8(ascii: "}"), count: 50)
        let deepError = #expect(throws: ArchiveError.self) {
            try Typedstream(bytes: Self.header + [0x84, UInt8(deep.count)] + deep, options: options)
        }
        #expect(deepError?.code == .invalidTypeEncoding)
    }

    @Test func rejectsHugeCounts() {
        var options = ArchiveReadingOptions()
        options.maxExpandedNodeCount = 1000
        // [1000000000!]: empty elements cost no bytes, so the event limit bounds them.
        let empty = Array("[1000000000!]".utf8)
        expectCode(.limitExceeded, Self.header + [0x84, UInt8(empty.count)] + empty)
        let error = #expect(throws: ArchiveError.self) {
            try Typedstream(bytes: Self.header + [0x84, UInt8(empty.count)] + empty, options: options)
        }
        #expect(error?.code == .limitExceeded)
        // [1000000000i]: each element takes a byte, so the bytes left bound them.
        let ints = Array("[1000000000i]".utf8)
        expectCode(.truncated, Self.header + [0x84, UInt8(ints.count)] + ints + [1, 2])
    }
}

// MARK: - Hostile numbers and counts (issue 17)

extension TypedstreamReadingTests {
    /// `Int64.max` as a tagged 8-byte little-endian integer.
    static let int64Max: [UInt8] = [0x87, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]

    @Test func rejectsAnObjectReferenceNumberNearInt64Max() {
        let bytes =
            Self.header + [
                0x84, 0x01, 0x40,  // group: new shared string "@"
            ] + Self.int64Max  // an object reference stored as Int64.max: Int64.max - (-110) overflows
        let error = #expect(throws: ArchiveError.self) { try Typedstream(bytes: bytes) }
        #expect(error?.code == .invalidReference)
        #expect(error?.reason.contains("stored as 9223372036854775807") == true, "\(error.map { "\($0)" } ?? "")")
    }

    @Test func rejectsASharedStringReferenceNearInt64Max() {
        let bytes = Self.header + Self.int64Max  // the group's type encoding: a shared-string reference of Int64.max
        let error = #expect(throws: ArchiveError.self) { try Typedstream(bytes: bytes) }
        #expect(error?.code == .invalidReference)
        #expect(error?.reason.contains("shared string stored as 9223372036854775807") == true)
    }

    @Test func boundsArraysOfEmptyElementsByTheInputSize() throws {
        // [1000000!]: a million `!` values take no bytes. 29 bytes may not make a million events (the default
        // maxExpandedNodeCount alone allows 64 million, 2.9 GB of them for [67108800!]).
        let type = Array("[1000000!]".utf8)
        let bytes =
            Self.header + [
                0x84, UInt8(type.count),  // group: new shared string of the array type
            ] + type
        let error = #expect(throws: ArchiveError.self) { try Typedstream(bytes: bytes) }
        #expect(error?.code == .limitExceeded)
        #expect(error?.reason.contains("per input byte") == true, "\(error.map { "\($0)" } ?? "")")
        // Within the budget the same shape reads.
        let small = Array("[100!]".utf8)
        let events = try Typedstream(bytes: Self.header + [0x84, UInt8(small.count)] + small).events
        #expect(events.filter { if case .ignored = $0 { true } else { false } }.count == 100)
    }

    @Test func boundsEmptyStructsRepeatedByReference() {
        // One 12-byte type of 10 `!` fields, then 2,000 one-byte references to it: 24,000 events from 2 KB.
        let type = Array("{?=!!!!!!!!!!}".utf8)
        let bytes =
            Self.header + [
                0x84, UInt8(type.count),  // group: new shared string #0, a struct of ten `!`
            ] + type + Array(repeating: 0x92, count: 2_000)  // 2,000 groups referring to shared string #0
        let error = #expect(throws: ArchiveError.self) { try Typedstream(bytes: bytes) }
        #expect(error?.code == .limitExceeded)
        #expect(error?.reason.contains("event budget") == true, "\(error.map { "\($0)" } ?? "")")
    }

    @Test func keepsTheOrderOfEventsPastTheFirstGuess() throws {
        // The reader writes one event per input byte in place and appends the rest: 30 structs of two `!` make
        // 120 events from 10 bytes of type, so the events of the second group come after the first guess.
        let type = Array("[30{?=!!}]".utf8)
        let bytes = Self.header + [0x84, UInt8(type.count)] + type + [0x84, 0x01, UInt8(ascii: "i"), 0x05]
        let events = try Typedstream(bytes: bytes).events
        #expect(events.count > bytes.count + 16)
        let structs = Array(repeating: ["beginStruct", "ignored", "ignored", "endStruct"], count: 30).joined()
        let expected = ["beginGroup", "beginArray"] + structs + ["endArray", "endGroup", "beginGroup", "signed", "endGroup"]
        #expect(events.map { String(describing: $0).prefix { $0.isLetter } } == expected.map { Substring($0) })
        #expect(events[events.count - 2] == .signed(5, type: UInt8(ascii: "i")))
    }
}
