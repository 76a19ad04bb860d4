import AutoCodingFast
import Foundation

/// The fixtures committed in `Tests/AutoCodingFastTests/Fixtures` (see its README.md): small archives and
/// plain property lists made by `scripts/make-fixtures.py` and `scripts/make-foundation-fixtures.swift`.
package enum Fixtures {
    /// The `Fixtures` folder of the checkout.
    package static let directory = PackagePaths.url("Tests/AutoCodingFastTests/Fixtures")

    /// Every fixture file name (README.md excluded), sorted.
    package static let all: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") && !$0.hasSuffix(".md") }.sorted()
    }()

    /// Fixtures that are keyed archives: the plistlib-made `keyed-*` and the NSKeyedArchiver-made `foundation-*`.
    package static var keyed: [String] { all.filter { $0.hasPrefix("keyed-") || $0.hasPrefix("foundation-") } }

    /// Fixtures that are plain property lists.
    package static var plain: [String] { all.filter { $0.hasPrefix("plain-") } }

    /// The path of one fixture.
    package static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// The bytes of one fixture.
    package static func bytes(_ name: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: directory.appendingPathComponent(name)))
    }

    /// One fixture read as a property list.
    package static func value(_ name: String, options: ArchiveReadingOptions = .init()) throws -> ArchiveValue {
        try ArchiveValue(propertyList: bytes(name), options: options)
    }

    /// One fixture read as a keyed archive.
    package static func archive(_ name: String) throws -> KeyedArchive {
        try KeyedArchive(bytes: bytes(name))
    }
}
