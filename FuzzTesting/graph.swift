// Keyed-archive decode to the dynamic graph (and to Foundation values through KeyedUnarchiver), then
// re-encode: the graph must come back equivalent.
import AutoCoding
import AutoCodingFast

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGraph(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    withFuzzBytes(data, size) { bytes in
        if let unarchiver = try? KeyedUnarchiver(bytes: bytes) {
            _ = try? unarchiver.decodeObject(forKey: "root")
            _ = try? unarchiver.decodeObject(ofClassNames: ["NSArray", "NSString", "NSNumber"], forKey: "root")
        }
        guard let graph = try? ArchiveGraph(bytes: bytes, options: fuzzOptions) else { return }
        let written = graph.binaryPlist()
        let again: ArchiveGraph
        do { again = try ArchiveGraph(bytes: written, options: fuzzOptions) } catch {
            fuzzFailure("a decoded graph re-encodes to an archive that does not decode: \(error)")
        }
        guard graph.isEquivalent(to: again) else { fuzzFailure("graph re-encode is not equivalent") }
    }
}
