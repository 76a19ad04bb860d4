import AutoCodingCore
import Foundation
import Testing
import _AutoCodingTestSupport

@testable import _AutoCodingCommands

/// The one version constant, the `--version` flag, and the changelog agree.
@Suite("Version")
struct VersionTests {
    @Test func versionIsSemantic() {
        let parts = AutoCodingVersion.current.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3)
        #expect(parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) })
    }

    @Test func rootCommandDeclaresTheVersion() {
        #expect(AutoCodingCommand.configuration.version == AutoCodingVersion.current)
    }

    @Test func versionFlagPrintsTheVersion() throws {
        let result = try CLI.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout == AutoCodingVersion.current + "\n")
    }

    @Test func changelogHasASectionForTheVersion() throws {
        let changelog = try String(contentsOf: PackagePaths.url("CHANGELOG.md"), encoding: .utf8)
        #expect(changelog.contains("\n## [\(AutoCodingVersion.current)]"))
    }
}
