import AutoCodingFast

/// The output budget of everything that prints an archive (JSON, `inspect`, `get`): output at most 100 times the
/// input plus 1 MiB.
///
/// Shared references let a small input name a large output: a string referenced many times, containers that
/// share children. The printers print a repeated object or value as a reference where their form has one
/// (`$ref`, `↩︎ #n`); the budget bounds whatever still expands, so that no input costs more than a fixed
/// multiple of its size. Past it, printing throws `ArchiveError.Code.limitExceeded` naming the
/// budget. The command line lifts it with `--max-output-bytes`.
public enum OutputBudget {
    /// Output bytes allowed per input byte.
    public static let bytesPerInputByte = 100
    /// Output bytes allowed whatever the input's size, for small inputs with a fixed-size header.
    public static let baseBytes = 1 << 20

    /// The default budget for an input of `inputBytes` bytes: `100 × inputBytes + 1 MiB`, saturating.
    public static func bytes(forInputBytes inputBytes: Int) -> Int {
        let (product, overflow) = max(inputBytes, 0).multipliedReportingOverflow(by: bytesPerInputByte)
        let (sum, overflow2) = product.addingReportingOverflow(baseBytes)
        return overflow || overflow2 ? .max : sum
    }

    /// The error for output that passed `limit` bytes.
    public static func exceeded(_ limit: Int, what: String) -> ArchiveError {
        ArchiveError(
            .limitExceeded,
            "\(what) would pass the output budget maxOutputBytes = \(limit) bytes (100 × the input + 1 MiB by "
                + "default): shared references expand; raise it with --max-output-bytes for input you trust")
    }
}
