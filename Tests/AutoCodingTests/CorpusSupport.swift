import Foundation

/// The shared corpus of real archives (`../shared/corpus` beside the package), present on the team's
/// machines and CI but not in a user's fresh clone; tests that need it are skipped visibly without it.
enum Corpus {
    /// `<package root>/../shared/corpus`.
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/corpus")

    /// Whether the corpus is present.
    static var isAvailable: Bool { FileManager.default.fileExists(atPath: root.appendingPathComponent("apple").path) }

    /// The bytes of `folder/name`.
    static func bytes(_ folder: String, _ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(folder).appendingPathComponent(name)))
    }

    /// The file names in `folder`, sorted; empty without the corpus.
    static func files(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)) ?? []).sorted()
    }
}
