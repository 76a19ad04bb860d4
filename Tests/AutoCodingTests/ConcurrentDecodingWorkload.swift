// Many tasks decoding the same bytes at once, with a shared class registry read (and written) meanwhile.
// No test framework here: scripts/sanitize.sh also compiles this file with the engine under ThreadSanitizer.
import AutoCoding
import Foundation

/// A model decoded through a registry entry (its archived class name differs from the type's).
final class SharedNote: Codable, Sendable {
    let title: String
    let tags: [String]
    let related: [SharedNote]

    init(title: String, tags: [String], related: [SharedNote]) {
        self.title = title
        self.tags = tags
        self.related = related
    }
}

enum ConcurrentDecodingWorkload {
    /// A registry shared by every task, as an application would set it up.
    static let registry: ArchiveClassRegistry = {
        let registry = ArchiveClassRegistry()
        registry.register(SharedNote.self, as: "App.Note")
        return registry
    }()

    /// One archive: a note referenced twice (shared) in a list of 200.
    static func archive() throws -> [UInt8] {
        let shared = SharedNote(title: "shared", tags: ["a", "b"], related: [])
        let notes = (0..<200).map { SharedNote(title: "note \($0)", tags: ["t\($0 % 7)"], related: [shared, shared]) }
        var encoder = KeyedArchiveEncoder()
        encoder.registry = registry
        return try encoder.encodeBytes(notes)
    }

    /// Decodes `bytes` in `tasks` tasks at once, `rounds` times each, through the typed decoder (with the shared
    /// registry), the dynamic graph and the keyed unarchiver, while one more task keeps registering new names.
    /// Returns how many decodes matched the expected shape.
    static func run(tasks: Int, rounds: Int) async throws -> Int {
        let bytes = try archive()
        return try await withThrowingTaskGroup(of: Int.self) { group in
            group.addTask {
                // Registry mutation while others read: thread-safe by design (a lock), if not recommended.
                for i in 0..<rounds * 10 { registry.register(SharedNote.self, forClassName: "App.Note\(i % 16)") }
                return 0
            }
            for _ in 0..<tasks {
                group.addTask {
                    var matched = 0
                    var decoder = KeyedArchiveDecoder()
                    decoder.registry = registry
                    for _ in 0..<rounds {
                        let notes = try decoder.decode([SharedNote].self, from: bytes)
                        let graph = try ArchiveGraph(bytes: bytes)
                        let unarchiver = try KeyedUnarchiver(bytes: bytes)
                        let any = try unarchiver.decodeObject(forKey: "root") as? [Any]
                        if notes.count == 200, notes[0].related[0] === notes[1].related[1],
                            registry.type(forClassName: "App.Note") == SharedNote.self,
                            graph.root?.object?.className == "NSArray", any?.count == 200
                        {
                            matched += 1
                        }
                    }
                    return matched
                }
            }
            return try await group.reduce(0, +)
        }
    }
}
