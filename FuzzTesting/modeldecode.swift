// Codable and @AutoCoding decode into models (FuzzTesting/Models.swift), from untrusted bytes: `scripts/fuzz.sh modeldecode`.
import AutoCoding
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzModels(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    withFuzzBytes(data, size) { bytes in
        var decoder = KeyedArchiveDecoder()
        decoder.options = fuzzOptions
        _ = try? decoder.decode(FuzzEverything.self, from: bytes)
        _ = try? decoder.decode(FuzzCodablePerson.self, from: bytes)
        _ = try? decoder.decode([FuzzCodablePerson].self, from: bytes)
        _ = try? decoder.decode([FuzzValue].self, from: bytes)
        // Decoded nodes may be on cycles: emptied, or LeakSanitizer reports them.
        if let nodes = try? decoder.decode([String: FuzzNode].self, from: bytes) {
            for node in nodes.values.flatMap(reachableNodes) { node.children = []; node.next = nil }
        }
        if let node = try? decoder.decode(FuzzNode.self, from: bytes) {
            // A decoded model must encode again (cycles included) and decode to the same shape.
            let encoded: [UInt8]
            do { encoded = try KeyedArchiveEncoder().encodeBytes(node) } catch {
                fuzzFailure("a decoded @AutoCoding model does not encode: \(error)")
            }
            let again: FuzzNode
            do { again = try decoder.decode(FuzzNode.self, from: encoded) } catch {
                fuzzFailure("a re-encoded @AutoCoding model does not decode: \(error)")
            }
            for node in reachableNodes(from: node) + reachableNodes(from: again) { node.children = []; node.next = nil }
        }
    }
}
