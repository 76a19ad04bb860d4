import Foundation

/// Folders of the package's checkout, found from this file's path, for tests that read committed files or
/// run scripts (`swift test` always runs from a checkout).
package enum PackagePaths {
    /// The package root: `<root>/Tests/_AutoCodingTestSupport/PackagePaths.swift` up three levels.
    package static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // _AutoCodingTestSupport
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// `path` under the package root.
    package static func url(_ path: String) -> URL { root.appendingPathComponent(path) }
}
