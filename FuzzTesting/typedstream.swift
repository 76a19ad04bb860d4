// The typedstream engine: the validating event reader, the writer in both byte orders and the text form.
// Whatever the reader accepts must write and read back as an equal event table, and the bytes it wrote must be
// stable (writing the read-back table again gives the same bytes). Inputs are tried as they are and behind a
// valid header, so that mutations reach the body rather than dying on the signature.
import AutoCodingFast

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
