import ArgumentParser
import AutoCodingCore

/// `--max-output-bytes`: the output budget of the commands that print an archive (`json`, `inspect`, `get`).
struct OutputBudgetOption: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Stop with an error once the output passes this many bytes (default: 100 × the input + 1 MiB).",
            valueName: "bytes"))
    var maxOutputBytes: Int?

    func validate() throws {
        if let maxOutputBytes, maxOutputBytes < 0 { throw ValidationError("--max-output-bytes must be 0 or more.") }
    }

    /// The budget for an input of `inputBytes` bytes: the flag, else ``OutputBudget/bytes(forInputBytes:)``.
    func bytes(forInputBytes inputBytes: Int) -> Int {
        maxOutputBytes ?? OutputBudget.bytes(forInputBytes: inputBytes)
    }
}
