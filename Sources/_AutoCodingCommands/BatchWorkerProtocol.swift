/// The conversation between `batch --isolate` and each of its workers (`autocoding batch-worker`), over one
/// socket that is the worker's standard input and standard output.
///
/// 1. The worker starts, applies its limits and writes `ready\n`.
/// 2. Each request is one kind byte (`F`: a path for the worker to read; `B`: bytes; `P`: bytes in which a plain
///    property list is an ok record), an 8-byte big-endian length and that many bytes.
/// 3. Each answer is one line: `<ok 0|1> <bytes> <error code or ->`, a tab, the record's fields after its
///    identity (``BatchResult/fields``, JSON text with no newline), and `\n`.
/// 4. The parent closes the socket when it has no more inputs; the worker then exits.
///
/// Everything in an answer is made by the worker's own decoder; the parent only checks its shape.
enum WorkerProtocol {
    /// The worker's first line.
    static let ready = "ready"

    /// The request kinds.
    enum Kind: UInt8 {
        case file = 0x46  // F
        case bytes = 0x42  // B
        case bytesPlainAllowed = 0x50  // P
    }

    /// The request for `payload`, or nil for a failure known before decoding (the parent records it itself).
    static func request(for payload: BatchPayload) -> [UInt8]? {
        let kind: Kind
        let body: [UInt8]
        switch payload {
        case .file(let path): (kind, body) = (.file, Array(path.utf8))
        case .bytes(let bytes, let plainAllowed): (kind, body) = (plainAllowed ? .bytesPlainAllowed : .bytes, bytes)
        case .failed: return nil
        }
        var request = [kind.rawValue] + DescriptorIO.bigEndian(UInt64(body.count))
        request.append(contentsOf: body)
        return request
    }

    /// The payload of a request, or nil for an unknown kind.
    static func payload(kind: UInt8, body: [UInt8]) -> BatchPayload? {
        switch Kind(rawValue: kind) {
        case .file?: .file(String(decoding: body, as: UTF8.self))
        case .bytes?: .bytes(body, plainAllowed: false)
        case .bytesPlainAllowed?: .bytes(body, plainAllowed: true)
        case nil: nil
        }
    }

    /// The answer line for `result`, with its newline.
    static func answer(_ result: BatchResult) -> [UInt8] {
        let code = result.errorCode ?? "-"
        return Array("\(result.ok ? 1 : 0) \(result.bytes) \(code)\t\(result.fields)\n".utf8)
    }

    /// The result in an answer line (without its newline), or nil when the line does not have the shape above.
    static func parseAnswer(_ line: String) -> BatchResult? {
        guard let tab = line.firstIndex(of: "\t") else { return nil }
        let head = line[..<tab].split(separator: " ")
        let fields = String(line[line.index(after: tab)...])
        guard head.count == 3, head[0] == "0" || head[0] == "1", let bytes = Int(head[1]), bytes >= 0,
            fields.hasPrefix("\"ok\":")
        else { return nil }
        return BatchResult(
            fields: fields,
            ok: head[0] == "1",
            errorCode: head[2] == "-" ? nil : String(head[2]),
            bytes: bytes
        )
    }
}
