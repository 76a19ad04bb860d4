import AutoCodingCore
import Foundation

/// One input of `batch`: a file, the blob column of one SQLite row, or one frame of `--stdin-frames`.
enum BatchInput {
    case file(String)
    /// A row of `--sqlite DB --query SQL`: the database path, the row's other columns (in query order), the blob
    /// column's name and its value.
    case row(database: String, columns: [(name: String, value: SQLiteValue)], column: String, blob: SQLiteValue)
    /// A frame of `--stdin-frames`: its id and its payload.
    case frame(id: String, bytes: [UInt8])
}

/// What decoding one input gave, ready to print as one NDJSON record.
struct BatchRecord {
    /// The record's JSON text, without the newline.
    var line: String
    var ok: Bool
    var errorCode: String?
    var bytes: Int
}

/// What is decoded for one input: a file (read by whoever decodes, so that a slow or hostile file costs the
/// decoding process, not the caller), bytes already in hand, or a failure known before decoding.
enum BatchPayload {
    case file(String)
    /// Bytes to decode; `plainAllowed` makes a property list that is not a keyed archive an ok record with
    /// `"format": "plain"` (SQLite columns, where plain plists are ordinary content).
    case bytes([UInt8], plainAllowed: Bool)
    case failed(ErrorReport, bytes: Int)
}

/// The fields of a record after its identity (`"ok"` … `"error"`, and `"graph"`), as JSON text without braces:
/// what a worker process sends back for one input.
struct BatchResult {
    var fields: String
    var ok: Bool
    var errorCode: String?
    var bytes: Int
}

/// Decodes one input into its record: read, validate, resolve the whole object graph (every UID followed),
/// and report the root class and the object count. Never throws: every failure becomes the record's `error`.
///
/// A record is its identity (``identity(of:)``: `path`, `row` and `column`, or `id`), which the caller knows
/// without decoding, followed by the fields of ``result(for:)``, which `batch --isolate` computes in a worker.
struct BatchDecoder {
    var options: ArchiveReadingOptions
    var withJSON: Bool

    func record(for input: BatchInput) -> BatchRecord {
        Self.record(identity: Self.identity(of: input), result: result(for: Self.payload(of: input)))
    }

    /// Joins an identity and a result into one record.
    static func record(identity: String, result: BatchResult) -> BatchRecord {
        BatchRecord(
            line: identity + "," + result.fields + "}",
            ok: result.ok,
            errorCode: result.errorCode,
            bytes: result.bytes
        )
    }

    /// The record's opening: `{"path":…` (with `"row"` and `"column"` for a SQLite row) or `{"id":…`, without
    /// the closing brace. `--resume` recognizes inputs already done by this text.
    static func identity(of input: BatchInput) -> String {
        var line = JSONLine()
        switch input {
        case .file(let path):
            line.string("path", path)
        case .row(let database, let columns, let column, _):
            line.string("path", database)
            var row = JSONLine()
            for (name, value) in columns { row.raw(name, Self.json(value)) }
            line.raw("row", row.finished)
            line.string("column", column)
        case .frame(let id, _):
            line.string("id", id)
        }
        return line.text
    }

    /// What to decode for `input`.
    static func payload(of input: BatchInput) -> BatchPayload {
        switch input {
        case .file(let path): return .file(path)
        case .frame(_, let bytes): return .bytes(bytes, plainAllowed: false)
        case .row(_, _, let column, let blob):
            switch blob {
            case .blob(let value): return .bytes(value, plainAllowed: true)
            case .text(let text): return .bytes(Array(text.utf8), plainAllowed: true)
            case .null:
                return .failed(ErrorReport(code: "nullValue", reason: "column \(column) is NULL"), bytes: 0)
            case .integer, .real:
                let reason = "column \(column) holds a number, not a blob"
                return .failed(ErrorReport(code: "notPropertyList", reason: reason), bytes: 0)
            }
        }
    }

    /// Reads (for a file) and decodes the payload; the result's fields start with `"ok"`.
    func result(for payload: BatchPayload) -> BatchResult {
        let start = Monotonic.nanoseconds()
        var bytes: [UInt8] = []
        var count = 0
        let outcome: Outcome
        switch payload {
        case .file(let path):
            do {
                bytes = try InputFiles.read(path, limit: options.maxInputBytes)
                outcome = decode(bytes, plainAllowed: false)
            } catch {
                outcome = Outcome(error: ErrorReport(error))
            }
            count = bytes.count
        case .bytes(let value, let plainAllowed):
            outcome = decode(value, plainAllowed: plainAllowed)
            count = value.count
        case .failed(let error, let size):
            outcome = Outcome(error: error)
            count = size
        }
        let milliseconds = Double(Monotonic.nanoseconds() - start) / 1e6
        return result(outcome, bytes: count, milliseconds: milliseconds)
    }

    /// The result of an input that failed outside the decoder (its worker crashed, hit a limit or timed out).
    func failure(_ error: ErrorReport, bytes: Int, milliseconds: Double) -> BatchResult {
        result(Outcome(error: error), bytes: bytes, milliseconds: milliseconds)
    }

    private func result(_ outcome: Outcome, bytes count: Int, milliseconds: Double) -> BatchResult {
        var line = JSONLine()
        line.bool("ok", outcome.error == nil)
        line.string("format", outcome.format)
        line.string("archiver", outcome.archiver)
        line.string("root_class", outcome.rootClass)
        line.int("objects", outcome.objects)
        line.int("bytes", count)
        line.milliseconds("ms", milliseconds)
        line.raw("error", outcome.error?.json ?? "null")
        if withJSON { line.raw("graph", outcome.graphJSON ?? "null") }
        return BatchResult(
            fields: String(line.text.dropFirst()),
            ok: outcome.error == nil,
            errorCode: outcome.error?.code,
            bytes: count
        )
    }

    struct Outcome {
        var format: String?
        var archiver: String?
        var rootClass: String?
        var objects: Int?
        var graphJSON: String?
        var error: ErrorReport?
    }

    /// Validates the bytes as a keyed archive and resolves its graph; with `plainAllowed`, a property list that
    /// is not a keyed archive is read whole and reported as `"format": "plain"`.
    func decode(_ bytes: [UInt8], plainAllowed: Bool = false) -> Outcome {
        if Typedstream.hasSignature(bytes) { return decodeTypedstream(bytes) }
        guard let format = ArchiveFormat.detect(bytes) else {
            let reason =
                bytes.isEmpty
                ? "the input is empty" : "the input is neither a binary (bplist00) nor an XML property list"
            return Outcome(error: ErrorReport(code: ArchiveError.Code.notPropertyList.description, reason: reason))
        }
        var outcome = Outcome(format: format == .binaryPlist ? "binary" : "xml")
        do {
            let view = try KeyedArchiveView(bytes: bytes, options: options)
            outcome.archiver = view.archiver
            outcome.objects = view.objectCount
            let graph = try ArchiveGraph(view: view)
            // A worker reads input after input: a graph's cycles must not outlive its record.
            defer { graph.breakReferenceCycles() }
            outcome.rootClass = Self.className(of: graph.root)
            if withJSON {
                // The same output budget as `json`: a record past it carries `limitExceeded`, not gigabytes.
                outcome.graphJSON = try graph.json(
                    prettyPrinted: false, maxOutputBytes: OutputBudget.bytes(forInputBytes: bytes.count))
            }
        } catch where plainAllowed && error.code == .notKeyedArchive {
            return decodePlain(bytes)
        } catch {
            outcome.error = ErrorReport(error)
        }
        return outcome
    }

    /// Reads a property list that is not a keyed archive (a plain dictionary, array or scalar) through the
    /// same validating reader; its root class is the Foundation class of its top value.
    func decodePlain(_ bytes: [UInt8]) -> Outcome {
        var outcome = Outcome(format: "plain")
        do {
            let value = try ArchiveValue(propertyList: bytes, options: options)
            outcome.rootClass = Self.className(of: .inline(value))
        } catch {
            outcome.error = ErrorReport(error)
        }
        return outcome
    }

    /// Validates the bytes as a typedstream (iMessage `attributedBody`, NSArchiver files) and resolves its
    /// object graph (every reference followed; the root's Foundation value mapped).
    func decodeTypedstream(_ bytes: [UInt8]) -> Outcome {
        var outcome = Outcome(format: "typedstream")
        do {
            let stream = try Typedstream(bytes: bytes, options: options)
            outcome.objects = stream.objectCount
            outcome.rootClass = stream.rootClassName
            let graph = try TypedGraph(stream: stream)
            defer { graph.breakReferenceCycles() }
            _ = graph.root?.foundation
            if withJSON {
                outcome.graphJSON = try TypedstreamJSON.json(
                    graph, inputBytes: bytes.count, options: options,
                    maxOutputBytes: OutputBudget.bytes(forInputBytes: bytes.count))
            }
        } catch {
            outcome.error = ErrorReport(error)
        }
        return outcome
    }

    /// The class of the root: an instance's class, or for a scalar root (a string, number, data or date
    /// stored as a plain `$objects` entry) the Foundation class it decodes to; nil without a single root.
    static func className(of root: ArchivedValue?) -> String? {
        switch root {
        case .object(let object)?: return object.className
        case .reference(let value)?, .inline(let value)?:
            switch value {
            case .string: return "NSString"
            case .integer, .unsignedInteger, .real, .bool: return "NSNumber"
            case .data: return "NSData"
            case .date: return "NSDate"
            case .array: return "NSArray"
            case .dictionary: return "NSDictionary"
            case .uid: return nil
            }
        case .array?: return "NSArray"
        case .dictionary?: return "NSDictionary"
        case .null?, nil: return nil
        }
    }

    /// A SQLite value as JSON: blobs as `{"$data": "<base64>"}`, the form `autocoding json` uses for data.
    static func json(_ value: SQLiteValue) -> String {
        switch value {
        case .null: "null"
        case .integer(let v): String(v)
        case .real(let v): v.isFinite ? "\(v)" : JSONStringLiteral.quoted("\(v)")
        case .text(let v): JSONStringLiteral.quoted(v)
        case .blob(let v): "{\"$data\":\"\(Data(v).base64EncodedString())\"}"
        }
    }
}

/// A monotonic clock in nanoseconds, for `ms` and throughput.
enum Monotonic {
    static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}
