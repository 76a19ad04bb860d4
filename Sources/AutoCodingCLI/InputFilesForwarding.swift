#if canImport(_AutoCodingCommands)
import _AutoCodingCommands

/// The file helpers of the commands library, under the name the executable's own commands (`bench`) use.
enum InputFiles {
    /// Regular files under `paths`, directories walked recursively in sorted order.
    static func expand(_ paths: [String]) -> [String] { _AutoCodingCommands.InputFiles.expand(paths) }

    /// The whole file as bytes.
    static func read(_ path: String) throws -> [UInt8] { try _AutoCodingCommands.InputFiles.read(path) }
}
#endif
