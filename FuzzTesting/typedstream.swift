// The typedstream engine: the validating event reader, the writer in both byte orders and the text form.
// Whatever the reader accepts must write and read back as an equal event table, and the bytes it wrote must be
// stable (writing the read-back table again gives the same bytes). The batched read that `TypedGraph(bytes:)` builds
// from must hand over the same events, or fail with the same error. Inputs are tried as they are and behind a
// valid header, so that mutations reach the body rather than dying on the signature.
// `@testable` for `Typedstream.read(bytes:options:into:)`, which is package: scripts/fuzz-typecheck.sh checks this file
// against the debug build; the fuzz build compiles it into the module itself.
@testable import AutoCodingFast

private let typedstreamFuzzOptions: ArchiveReadingOptions = {
    var options = ArchiveReadingOptions()
    options.maxExpandedNodeCount = 1 << 20
    options.depthLimit = 200
    return options
}()

private let typedstreamHeader: [UInt8] = [0x04, 0x0B] + Array("streamtyped".utf8) + [0x81, 0xE8, 0x03]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTypedstream(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    for input in [bytes, typedstreamHeader + bytes] {
        checkBatchedRead(input)
        guard let stream = try? Typedstream(bytes: input, options: typedstreamFuzzOptions) else { continue }
        _ = stream.eventText()
        for order in Typedstream.ByteOrder.allCases {
            let written = stream.typedstreamBytes(byteOrder: order)
            let again: Typedstream
            do { again = try Typedstream(bytes: written, options: typedstreamFuzzOptions) } catch {
                fatalError("fuzz invariant violated: the writer's output does not read back: \(error)")
            }
            guard again.events.count == stream.events.count else {
                fatalError("fuzz invariant violated: write/read changed the number of events")
            }
            if order == stream.byteOrder, let difference = again.firstDifference(from: stream) {
                fatalError("fuzz invariant violated: write/read changed the events: \(difference)")
            }
            guard again.typedstreamBytes(byteOrder: order) == written else {
                fatalError("fuzz invariant violated: writing is not stable")
            }
        }
    }
    return 0
}

/// The batched read hands over the events `Typedstream(bytes:)` keeps, with the same header, and fails as it fails.
private func checkBatchedRead(_ input: [UInt8]) {
    var handed: [TypedstreamEvent] = []
    let batched = Result { () throws(ArchiveError) in
        try Typedstream.read(bytes: input, options: typedstreamFuzzOptions) { (batch) throws(ArchiveError) in
            handed.append(contentsOf: batch)
        }
    }
    let whole = Result { () throws(ArchiveError) in try Typedstream(bytes: input, options: typedstreamFuzzOptions) }
    switch (batched, whole) {
    case (.success(var read), .success(let stream)):
        // Compared as streams: reals by bit pattern (a NaN is not equal to itself as an event).
        read.events = handed
        if let difference = read.firstDifference(from: stream) {
            fatalError("fuzz invariant violated: the batched read differs: \(difference)")
        }
    case (.failure(let a), .failure(let b)):
        guard "\(a)" == "\(b)" else {
            fatalError("fuzz invariant violated: the batched read failed with \(a), not \(b)")
        }
    default:
        fatalError("fuzz invariant violated: the batched read gave \(batched), the whole read \(whole)")
    }
}
