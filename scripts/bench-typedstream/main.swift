// Decodes every blob of a file of length-prefixed typedstreams (4-byte little-endian length, then the bytes).
// Mode `graph` (default): the validating event reader, the object graph and the root's Foundation value, as
// `autocoding batch` does per row. Mode `events`: the event reader only. Prints counts and the wall-clock
// seconds of the decoding loop. Built by scripts/bench-typedstream.sh.
import Foundation

@main
struct TypedstreamBench {
    static func main() throws {
        let path = CommandLine.arguments[1]
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var blobs: [[UInt8]] = []
        var i = 0
        while i + 4 <= data.count {
            let n = Int(data[i]) | Int(data[i + 1]) << 8 | Int(data[i + 2]) << 16 | Int(data[i + 3]) << 24
            blobs.append(Array(data[(i + 4)..<(i + 4 + n)]))
            i += 4 + n
        }
        let eventsOnly = CommandLine.arguments.count > 2 && CommandLine.arguments[2] == "events"
        let start = Date()
        var ok = 0
        var failed = 0
        var objects = 0
        for blob in blobs {
            do {
                let stream = try Typedstream(bytes: blob)
                if eventsOnly {
                    ok += 1
                    objects += stream.events.count
                    continue
                }
                let graph = try TypedGraph(stream: stream)
                if graph.root?.foundation != nil { objects += 1 }
                ok += 1
            } catch {
                failed += 1
            }
        }
        let seconds = Date().timeIntervalSince(start)
        print("swift \(eventsOnly ? "events" : "graph"): \(ok) ok, \(failed) failed, decode loop \(seconds) s")
    }
}
