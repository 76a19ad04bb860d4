import Foundation
import Testing

/// The corpus of real-world files in `../shared/corpus` beside the package (see its MANIFEST.md), present on
/// the team's machines and in CI but not in a user's fresh clone. Tests over it are skipped, visibly, when it
/// is absent: `@Test(.enabled(if: SharedCorpus.isAvailable, SharedCorpus.skipReason))`.
package enum SharedCorpus {
    /// `<package root>/../shared/corpus`.
    package static let directory = PackagePaths.root.deletingLastPathComponent().appendingPathComponent("shared/corpus")

    /// Whether the corpus is there (its `apple/` folder).
    package static let isAvailable: Bool = {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(
            atPath: directory.appendingPathComponent("apple").path,
            isDirectory: &isDirectory
        )
            && isDirectory.boolValue
    }()

    /// The reason printed for skipped corpus tests.
    package static let skipReason: Comment = "../shared/corpus is not beside the package"

    /// The files of one corpus folder, sorted (READMEs, manifests and hidden files excluded); empty when the
    /// corpus is absent.
    package static func files(in folder: String) -> [String] {
        let url = directory.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.filter { !$0.hasPrefix(".") && !$0.hasSuffix(".md") }.sorted()
    }

    /// `folder/name` for every file of the folders, for test arguments that read well in the results.
    package static func paths(in folders: String...) -> [String] {
        folders.flatMap { folder in files(in: folder).map { "\(folder)/\($0)" } }
    }

    /// The bytes of `folder/name`, given as one path.
    package static func bytes(_ path: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: directory.appendingPathComponent(path)))
    }

    /// The bytes of `name` in `folder`.
    package static func bytes(_ folder: String, _ name: String) throws -> [UInt8] {
        try bytes("\(folder)/\(name)")
    }
}
