/// The one linear validating pass that turns typedstream bytes into events.
///
/// Every reference is checked against the table read so far (and against the kind its context requires),
/// every length against the bytes left, every array count against the bytes its elements need, nesting
/// against the depth limit and the tables against the count limits. Nested objects, arrays and structs use an
/// explicit stack, so hostile nesting costs heap within the limits, never the call stack. Errors name the
/// offset at fault.
struct TypedstreamReader {
    // Head bytes below -110 are tags; the others are one-byte integers or reference numbers.
    static let tagInteger2: Int8 = -127
    static let tagInteger4: Int8 = -126
    static let tagReal: Int8 = -125
    static let tagNew: Int8 = -124
    static let tagNil: Int8 = -123
    static let tagEndOfObject: Int8 = -122
    static let tagInteger8: Int8 = -121
    static let firstTag: Int8 = -128
    static let lastTag: Int8 = -111
    /// Reference numbers are stored biased by this, so that the first ones fit in the head byte.
    static let firstReferenceNumber: Int64 = -110
    /// The most events one input byte may produce, on top of ``eventAllowance``. Values of `!`, empty structs
    /// and the brackets of arrays and structs take no bytes, so without this a 29-byte `[67108800!]` would
    /// make 67 million events (2.9 GB). Real streams make at most about 2.5 per byte (arrays of rects).
    static let eventsPerInputByte = 4
    /// Events any stream may produce whatever its size.
    static let eventAllowance = 4096
    /// Extents, node indices and reference numbers are 32-bit: the largest stream read.
    static let maxInputBytes = Int(Int32.max)

    let bytes: [UInt8]
    let options: ArchiveReadingOptions
    /// The most events this stream may produce: ``ArchiveReadingOptions/maxExpandedNodeCount``, and no more
    /// than ``eventsPerInputByte`` per input byte.
    let eventLimit: Int

    init(bytes: [UInt8], options: ArchiveReadingOptions) {
        self.bytes = bytes
        self.options = options
        // Cannot overflow: the input is checked against `maxInputBytes` (2³¹) before any event is read.
        let budget = min(bytes.count, Self.maxInputBytes) * Self.eventsPerInputByte + Self.eventAllowance
        self.eventLimit = min(options.maxExpandedNodeCount, budget)
    }

    /// The error for a stream that makes more events than ``eventLimit``, naming both budgets.
    func eventLimitError(_ what: String, at position: Int) -> ArchiveError {
        ArchiveError(
            .limitExceeded,
            "\(what) at offset \(position) exceeds the event budget of \(eventLimit) (\(Self.eventsPerInputByte) per "
                + "input byte, at most maxExpandedNodeCount \(options.maxExpandedNodeCount))"
        )
    }

    /// Whether `bytes` start with a typedstream header of any streamer version. Compared in contiguous memory
    /// when the collection has it: through the generic collection, unspecialized in a caller's module, the check
    /// took a twelfth of `autocoding messages`.
    static func hasSignature(_ bytes: some Collection<UInt8>) -> Bool {
        if let answer = bytes.withContiguousStorageIfAvailable({ hasSignature(UnsafeRawBufferPointer($0)) }) {
            return answer
        }
        return Array(bytes.prefix(13)).withUnsafeBytes { hasSignature($0) }
    }

    private static func hasSignature(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= 13, bytes[1] == 11 else { return false }
        let signature = UnsafeRawBufferPointer(rebasing: bytes[2..<13])
        return signature.elementsEqual("streamtyped".utf8) || signature.elementsEqual("typedstream".utf8)
    }

    /// Checks the input's size and header: the signature and streamer version 4. Returns whether multi-byte
    /// values are big-endian.
    private func readHeader() throws(ArchiveError) -> Bool {
        guard bytes.count <= min(options.maxInputBytes, Self.maxInputBytes) else {
            throw ArchiveError(
                .limitExceeded,
                "input of \(bytes.count) bytes exceeds maxInputBytes \(options.maxInputBytes) "
                    + "(typedstreams are read up to \(Self.maxInputBytes) bytes: their extents are 32-bit)"
            )
        }
        guard Self.hasSignature(bytes) else {
            throw ArchiveError(.notTypedstream, "no typedstream signature (streamtyped or typedstream) at offset 1")
        }
        let streamerVersion = Int(bytes[0])
        guard streamerVersion == Typedstream.currentStreamerVersion else {
            throw ArchiveError(
                .unsupportedVersion,
                "streamer version \(streamerVersion) at offset 0; only version 4 is supported"
                    + (streamerVersion == 3 ? " (3 is the old NeXTSTEP format)" : "")
            )
        }
        return bytes[2] == UInt8(ascii: "t")
    }

    func read() throws(ArchiveError) -> Typedstream {
        let bigEndian = try readHeader()
        let (systemVersion, events) = try bytes.withArchiveBytes { (input) throws(ArchiveError) in
            try readEvents(input, bigEndian: bigEndian)
        }
        return Typedstream(
            streamerVersion: Typedstream.currentStreamerVersion,
            byteOrder: bigEndian ? .big : .little,
            systemVersion: systemVersion,
            events: events,
            storage: bytes
        )
    }

    /// Reads as ``read()`` does, handing the events to `sink` a batch at a time instead of keeping them; returns
    /// the stream without events.
    func read(into sink: (UnsafeBufferPointer<TypedstreamEvent>) throws(ArchiveError) -> Void) throws(ArchiveError)
        -> Typedstream
    {
        let bigEndian = try readHeader()
        let systemVersion = try bytes.withArchiveBytes { (input) throws(ArchiveError) in
            try readEvents(input, bigEndian: bigEndian, into: sink)
        }
        return Typedstream(
            streamerVersion: Typedstream.currentStreamerVersion,
            byteOrder: bigEndian ? .big : .little,
            systemVersion: systemVersion,
            events: [],
            storage: bytes
        )
    }
}
