// Keyed-archive decode to the dynamic graph (and to Foundation values through KeyedUnarchiver), then
// re-encode: the graph must come back equivalent.
import AutoCoding
import AutoCodingFast

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGraph(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    withFuzzBytes(data, size) { bytes in
        if let unarchiver = try? KeyedUnarchiver(bytes: bytes) {
            if let root = try? unarchiver.decodeObject(forKey: "root") { breakCycles(decoded: root) }
            let names: Set<String> = ["NSArray", "NSString", "NSNumber"]
            if let checked = try? unarchiver.decodeObject(ofClassNames: names, forKey: "root") {
                breakCycles(decoded: checked)
            }
        }
        // One pass over the table (init(bytes:)) and the path through a whole KeyedArchive must agree: the same
        // graph, or both a refusal. (Not always of the same code: with two faults in one archive, each path
        // reports the one it reaches first, and the one pass reads instances after the other entries.)
        let onePass = Result { () throws(ArchiveError) in try ArchiveGraph(bytes: bytes, options: fuzzOptions) }
        let twoPass = Result { () throws(ArchiveError) in
            try ArchiveGraph(archive: KeyedArchiveView(bytes: bytes, options: fuzzOptions).keyedArchive())
        }
        // Cyclic graphs would otherwise outlive the input and add up over a run.
        defer {
            if case .success(let graph) = onePass { graph.breakReferenceCycles() }
            if case .success(let graph) = twoPass { graph.breakReferenceCycles() }
        }
        switch (onePass, twoPass) {
        case (.success(let a), .success(let b)):
            guard a.isEquivalent(to: b), a.binaryPlist() == b.binaryPlist() else {
                fuzzFailure("ArchiveGraph(bytes:) and ArchiveGraph(archive:) build different graphs")
            }
        case (.failure, .failure):
            break
        default:
            fuzzFailure("one graph path accepts what the other refuses: \(onePass) / \(twoPass)")
        }
        guard case .success(let graph) = onePass else { return }
        let written = graph.binaryPlist()
        let again: ArchiveGraph
        do { again = try ArchiveGraph(bytes: written, options: fuzzOptions) } catch {
            fuzzFailure("a decoded graph re-encodes to an archive that does not decode: \(error)")
        }
        defer { again.breakReferenceCycles() }
        guard graph.isEquivalent(to: again) else { fuzzFailure("graph re-encode is not equivalent") }
    }
}
