import AutoCoding
import Foundation

/// W5: every typedstream of shared/corpus/typedstream read in one process, to events (the engine's `Typedstream`)
/// and to a `TypedGraph` (or generated typedstreams when the corpus is not found). Issue 19's targets are in MB/s:
/// events ≥ 250, `TypedGraph` ≥ 150.
final class TypedstreamWorkload: BenchWorkload {
    struct File {
        var name: String
        var bytes: [UInt8]
    }

    let context: BenchContext
    let source: String
    let files: [File]
    /// Literal objects (`beginObject` events) per file, from python-typedstream's raw `read` dumps beside the corpus
    /// (typedstream-expected/NAME.read.txt), or from what wrote the generated files; nil where neither says.
    let expectedObjects: [Int?]
    var key: String { "W5" }
    var title: String { "W5 \(files.count) typedstreams of \(source), in one process" }
    var objects: Int { expectedObjects.reduce(0) { $0 + ($1 ?? 0) } }
    var summary: WorkloadSummary {
        WorkloadSummary(key: key, title: title, objects: objects, archiveBytes: files.reduce(0) { $0 + $1.bytes.count })
    }

    init(context: BenchContext) {
        self.context = context
        if let folder = CorpusWorkload.findCorpus(context.settings.typedstreams, folder: "typedstream") {
            source = folder
            let expected = ((folder as NSString).deletingLastPathComponent as NSString)
                .appendingPathComponent("typedstream-expected")
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
            var files: [File] = []
            var counts: [Int?] = []
            for name in names {
                guard let data = FileManager.default.contents(atPath: folder + "/" + name) else { continue }
                files.append(File(name: name, bytes: [UInt8](data)))
                let dump = try? String(contentsOfFile: expected + "/" + name + ".read.txt", encoding: .utf8)
                counts.append(dump.map { Self.literalObjects(inDump: $0) })
            }
            (self.files, expectedObjects) = (files, counts)
        } else {
            source = "generated typedstreams (no corpus found)"
            // Said on stderr as it happens too: a run from outside the package folder finds no corpus, and its
            // figures are then of other inputs than the documented ones.
            BenchLog.progress("warning: no corpus found from here; timing generated typedstreams (give --typedstreams FOLDER)")
            let generated = (0..<35).map { Self.generated($0) }
            files = generated.enumerated().map { File(name: "generated-\($0.offset).typedstream", bytes: $0.element.bytes) }
            expectedObjects = generated.map { $0.objects }
        }
    }

    /// The `begin literal object` lines of a python-typedstream `read` dump: one per `beginObject` event.
    static func literalObjects(inDump dump: String) -> Int {
        dump.split(separator: "\n").filter { $0.contains("begin literal object") }.count
    }

    /// A small NSArchiver-shaped stream: an NSArray of `3 + i % 40` strings and numbers (one literal object each,
    /// plus the array).
    static func generated(_ i: Int) -> (bytes: [UInt8], objects: Int) {
        let count = 3 + i % 40
        let elements: [TypedValue] = (0..<count).map { j -> TypedValue in
            let element: TypedObject =
                j % 2 == 0 ? .string("element \(i).\(j)") : .number(Int64(i * 1_000 + j))
            return .object(element)
        }
        let root = TypedObject.array(elements)
        let graph = TypedGraph(groups: [TypedGroup(encoding: "@", values: [.object(root)])])
        return (graph.typedstreamBytes(), count + 1)
    }

    private var totalBytes: Int { files.reduce(0) { $0 + $1.bytes.count } }

    /// Files read and objects found, against the files and the expected objects of the files that have a count.
    private func check(read: Int, objects found: [Int]) -> String? {
        guard read == files.count else { return "FAIL: \(read) of \(files.count) files read" }
        let known = expectedObjects.indices.filter { expectedObjects[$0] != nil }
        let expected = known.reduce(0) { $0 + expectedObjects[$1]! }
        let got = known.reduce(0) { $0 + found[$1] }
        let note = "\(read)/\(files.count) files, \(got) objects"
            + (known.count == files.count ? "" : " in the \(known.count) files with a dump")
        return got == expected ? "ok (\(note))" : "FAIL: \(got) objects, expected \(expected)"
    }

    func paths() -> [BenchPath] {
        [
            BenchPath(id: "ours.typedstream-events", label: "ours engine read: Typedstream(bytes:) events, every file",
                      operation: .decode) { [unowned self] in
                PreparedPath(
                    inputBytes: totalBytes,
                    run: { [unowned self] in files.compactMap { try? Typedstream(bytes: $0.bytes) } },
                    check: { [unowned self] result in
                        let streams = result as? [Typedstream] ?? []
                        let objects = streams.map { stream in
                            stream.events.reduce(0) { count, event in
                                if case .beginObject = event { count + 1 } else { count }
                            }
                        }
                        return check(read: streams.count, objects: objects)
                    })
            },
            // The row above keeps every stream until the clock stops, so each pass writes its events into fresh
            // pages (about 3.5 MB of 24-byte events, some 700 page faults a pass); a batch reader that is done
            // with each stream before the next reuses the same memory. Its objects are counted after the clock.
            BenchPath(
                id: "ours.typedstream-events-each",
                label: "ours engine read: Typedstream(bytes:) events, each released before the next (batch)",
                operation: .decode
            ) { [unowned self] in
                PreparedPath(
                    inputBytes: totalBytes,
                    run: { [unowned self] in
                        files.map { file -> Int in (try? Typedstream(bytes: file.bytes))?.events.count ?? -1 }
                    },
                    check: { [unowned self] result in
                        let counts = result as? [Int] ?? []
                        let streams = files.compactMap { try? Typedstream(bytes: $0.bytes) }
                        guard counts.count == files.count, streams.count == files.count,
                            zip(counts, streams).allSatisfy({ $0 == $1.events.count })
                        else { return "FAIL: the events counted in the pass differ from a second read" }
                        let objects = streams.map { stream in
                            stream.events.reduce(0) { count, event in
                                if case .beginObject = event { count + 1 } else { count }
                            }
                        }
                        return check(read: counts.filter { $0 >= 0 }.count, objects: objects)
                    })
            },
            // Each graph is released before the next, its cycles broken first (NeXT nibs hold views and their
            // superviews): as W4's graph row and a batch reader do. Kept instead, the graphs on cycles would
            // outlive the run, and each pass would write into fresh pages (2.9 MB a pass, RSS growing without
            // bound over the runs). Objects are counted after the clock, from a second read.
            BenchPath(id: "ours.typed-graph", label: "ours TypedGraph(bytes:), every file, each released before the next",
                      operation: .decode) { [unowned self] in
                PreparedPath(
                    inputBytes: totalBytes,
                    run: { [unowned self] in
                        files.map { file -> Int in
                            guard let graph = try? TypedGraph(bytes: file.bytes) else { return -1 }
                            graph.breakReferenceCycles()
                            return graph.groups.count
                        }
                    },
                    check: { [unowned self] result in
                        let counts = result as? [Int] ?? []
                        let objects = files.map { file -> Int in
                            guard let graph = try? TypedGraph(bytes: file.bytes) else { return -1 }
                            defer { graph.breakReferenceCycles() }
                            return graph.objects.count
                        }
                        guard counts.count == files.count else { return "FAIL: \(counts.count) of \(files.count) files run" }
                        return check(read: counts.filter { $0 >= 0 }.count, objects: objects)
                    })
            },
        ]
    }
}
