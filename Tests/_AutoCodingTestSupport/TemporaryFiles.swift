import Foundation

/// A new file in the temporary directory holding `bytes`; the caller removes it.
package func temporaryFile(_ bytes: [UInt8], suffix: String = ".bplist") throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("autocoding-\(UUID().uuidString)\(suffix)")
    try Data(bytes).write(to: url)
    return url
}

/// A fresh directory under the system's temporary directory, removed when the value goes away.
package final class TemporaryDirectory: Sendable {
    /// The directory.
    package let url: URL

    /// Creates the directory.
    package init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("autocoding-tests-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// The path of `name` inside the directory.
    package func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}
