import AutoCodingCore
import Foundation

/// One input of `batch`: a file, or the blob column of one SQLite row.
enum BatchInput {
    case file(String)
    /// A row of `--sqlite DB --query SQL`: the database path, the row's other columns (in query order), the blob
    /// column's name and its value.
    case row(database: String, columns: [(name: String, value: SQLiteValue)], column: String, blob: SQLiteValue)
}

/// What decoding one input gave, ready to print as one NDJSON record.
struct BatchRecord {
    /// The record's JSON text, without the newline.
    var line: String
    var ok: Bool
    var errorCode: String?
    var bytes: Int
}

/// Decodes one input into its record: read, validate, resolve the whole object graph (every UID followed),
/// and report the root class and the object count. Never throws: every failure becomes the record's `error`.
struct BatchDecoder {
    var options: ArchiveReadingOptions
    var withJSON: Bool

    func record(for input: BatchInput) -> BatchRecord {
        let start = Monotonic.nanoseconds()
        var line = JSONLine()
        var bytes: [UInt8] = []
        var outcome: Outcome
        switch input {
        case .file(let path):
            line.string("path", path)
            do {
                bytes = try InputFiles.read(path, limit: options.maxInputBytes)
                outcome = decode(bytes)
            } catch {
                outcome = Outcome(error: ErrorReport(error))
            }
        case .row(let database, let columns, let column, let blob):
            line.string("path", database)
            var row = JSONLine()
            for (name, value) in columns { row.raw(name, Self.json(value)) }
            line.raw("row", row.finished)
            line.string("column", column)
            switch blob {
            case .blob(let value):
                bytes = value
                outcome = decode(bytes)
            case .null:
                outcome = Outcome(error: ErrorReport(code: "nullValue", reason: "column \(column) is NULL"))
            case .text(let text):
                bytes = Array(text.utf8)
                outcome = decode(bytes)
            default:
                outcome = Outcome(
                    error: ErrorReport(code: "notPropertyList", reason: "column \(column) holds a number, not a blob")
                )
            }
        }
        let milliseconds = Double(Monotonic.nanoseconds() - start) / 1e6
        line.bool("ok", outcome.error == nil)
        line.string("format", outcome.format)
        line.string("archiver", outcome.archiver)
        line.string("root_class", outcome.rootClass)
        line.int("objects", outcome.objects)
        line.int("bytes", bytes.count)
        line.milliseconds("ms", milliseconds)
        line.raw("error", outcome.error?.json ?? "null")
        if withJSON { line.raw("graph", outcome.graphJSON ?? "null") }
        return BatchRecord(
            line: line.finished,
            ok: outcome.error == nil,
            errorCode: outcome.error?.code,
            bytes: bytes.count
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

    /// Validates the bytes as a keyed archive and resolves its graph.
    func decode(_ bytes: [UInt8]) -> Outcome {
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
            let graph = try ArchiveGraph(archive: view.keyedArchive())
            outcome.rootClass = Self.className(of: graph.root)
            if withJSON { outcome.graphJSON = graph.json(prettyPrinted: false) }
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
            _ = graph.root?.foundation
            if withJSON { outcome.graphJSON = try TypedstreamJSON.json(bytes, options: options) }
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
        case .real(let v): v.isFinite ? "\(v)" : JSONLine.quoted("\(v)")
        case .text(let v): JSONLine.quoted(v)
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
