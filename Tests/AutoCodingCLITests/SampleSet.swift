import _AutoCodingTestSupport

@testable import _AutoCodingCommands

/// Writes a small sample set (archives, other files, messages.db) with the generator, in process.
func makeSamples(count: Int = 24, rows: Int = 12) throws -> TemporaryDirectory {
    let directory = try TemporaryDirectory()
    let command = try Sample.parse(
        ["-o", directory.url.path, "--count", String(count), "--rows", String(rows), "--quiet"])
    try command.run()
    return directory
}
