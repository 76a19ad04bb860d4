import AutoCodingCore
import Foundation

/// One message of a Messages database (`chat.db`), as `autocoding messages` prints it.
struct ChatMessage {
    /// One edit of a message part, from `message_summary_info`'s `ec` map.
    struct Edit {
        var part: Int
        var date: String?
        var text: String?
        var guid: String?
    }

    var rowid: Int64
    var guid: String?
    /// ISO 8601, UTC.
    var date: String?
    var isFromMe: Bool
    /// The `handle` table's `id` (a phone number or e-mail address).
    var handle: String?
    var service: String?
    var text: String?
    /// Where ``text`` came from: `attributedBody` or `text`.
    var textSource: String?
    var edits: [Edit] = []
    /// The message parts that were unsent (`rp`).
    var unsentParts: [Int] = []
    var attachments: [String] = []
    /// `payload_data` (a keyed archive: a link preview, an app message) as plain JSON text, when the row has one.
    var payload: String?
    /// The first problem with one of the row's blobs: its column, code and reason.
    var error: (column: String, report: ErrorReport)?

    var isEdited: Bool { !edits.isEmpty }
    var isUnsent: Bool { !unsentParts.isEmpty }

    /// Keeps the first error only; later ones are of lesser interest than the first.
    mutating func fail(_ column: String, _ error: any Error) {
        if self.error == nil { self.error = (column, ErrorReport(error)) }
    }

    /// The NDJSON record.
    var json: String {
        var line = JSONLine()
        line.raw("rowid", String(rowid))
        line.string("guid", guid)
        line.string("date", date)
        line.bool("is_from_me", isFromMe)
        line.string("handle", handle)
        line.string("service", service)
        line.string("text", text)
        line.string("text_source", textSource)
        line.bool("edited", isEdited)
        if isEdited {
            let items = edits.map { edit -> String in
                var item = JSONLine()
                item.int("part", edit.part)
                item.string("date", edit.date)
                item.string("text", edit.text)
                if let guid = edit.guid { item.string("guid", guid) }
                return item.finished
            }
            line.raw("edits", "[" + items.joined(separator: ",") + "]")
        }
        line.bool("unsent", isUnsent)
        if isUnsent { line.raw("unsent_parts", "[" + unsentParts.map(String.init).joined(separator: ",") + "]") }
        line.raw("attachments", "[" + attachments.map { JSONStringLiteral.quoted($0) }.joined(separator: ",") + "]")
        if let payload { line.raw("payload", payload) }
        if let error {
            var item = JSONLine()
            item.string("column", error.column)
            item.string("code", error.report.code)
            item.string("reason", error.report.reason)
            line.raw("error", item.finished)
        }
        return line.finished
    }

    /// The CSV columns, in order.
    static let csvHeader = [
        "rowid", "guid", "date", "is_from_me", "handle", "service", "text", "text_source", "edited", "edits",
        "unsent", "unsent_parts", "attachments", "error",
    ]

    /// The CSV fields (``csvHeader``'s order): edits as their count, lists joined with `; `, the error as
    /// `column: code: reason`.
    var csvFields: [String] {
        [
            String(rowid), guid ?? "", date ?? "", isFromMe ? "1" : "0", handle ?? "", service ?? "", text ?? "",
            textSource ?? "", isEdited ? "1" : "0", String(edits.count), isUnsent ? "1" : "0",
            unsentParts.map(String.init).joined(separator: "; "), attachments.joined(separator: "; "),
            error.map { "\($0.column): \($0.report.code): \($0.report.reason)" } ?? "",
        ]
    }
}

/// Reads the messages of a `chat.db` in ROWID order, one at a time, from a connection opened read-only
/// (``SQLiteDatabase`` opens a WAL database whose side files are absent `immutable`, so nothing is created
/// beside it).
///
/// The schema is checked first: the `message` table and its columns `guid`, `text`, `date`, `is_from_me`,
/// `handle_id`, `service` and `attributedBody` must exist; `message_summary_info`, the `handle` table and
/// the attachment tables are used when present (older databases lack them).
final class ChatDatabase {
    /// Attachment names listed per message, at most (a hostile join table cannot make one record huge).
    static let attachmentLimit = 10_000

    static let requiredColumns = ["guid", "text", "date", "is_from_me", "handle_id", "service", "attributedBody"]

    private let connection: SQLiteDatabase
    private let messages: SQLiteStatement
    private let attachmentNames: SQLiteStatement?
    private let hasSummary: Bool
    private let options: ArchiveReadingOptions
    /// Whether ``messages`` stands on a row not yet returned (the first row is stepped in `init`).
    private var pending: Bool

    /// Opens `path` read-only, checks the schema and steps to the first row, so that every problem with the
    /// database (not SQLite, locked, a missing table or column) is an error here, before any record.
    init(path: String, timeLimit: Double, options: ArchiveReadingOptions = ArchiveReadingOptions()) throws {
        self.options = options
        connection = try SQLiteDatabase(path: path)
        connection.timeLimit = timeLimit
        let columns = try Self.columns(of: "message", in: connection)
        guard !columns.isEmpty else {
            throw MessageBody.Failure("there is no table message (not a Messages database?)")
        }
        let missing = Self.requiredColumns.filter { !columns.contains($0) }
        guard missing.isEmpty else {
            throw MessageBody.Failure(
                "table message has no column \(missing.joined(separator: ", "))"
                    + " (a Messages database has \(Self.requiredColumns.joined(separator: ", ")))"
            )
        }
        hasSummary = columns.contains("message_summary_info")
        let handleColumns = try Self.columns(of: "handle", in: connection)
        let hasHandles = handleColumns.contains("ROWID") || handleColumns.contains("id")
        let handle = hasHandles ? "(SELECT h.id FROM handle h WHERE h.ROWID = m.handle_id)" : "NULL"
        let summary = hasSummary ? "m.message_summary_info" : "NULL"
        let payload = columns.contains("payload_data") ? "m.payload_data" : "NULL"
        messages = try connection.prepare(
            """
            SELECT m.ROWID, m.guid, m.date, m.is_from_me, \(handle), m.service, m.text, m.attributedBody, \(summary),
            \(payload)
            FROM message m ORDER BY m.ROWID
            """
        )
        let join = try Self.columns(of: "message_attachment_join", in: connection)
        let attachment = try Self.columns(of: "attachment", in: connection)
        if join.isSuperset(of: ["message_id", "attachment_id"]), attachment.isSuperset(of: ["transfer_name", "filename"]) {
            attachmentNames = try connection.prepare(
                """
                SELECT a.transfer_name, a.filename FROM message_attachment_join j
                JOIN attachment a ON a.ROWID = j.attachment_id WHERE j.message_id = ?1 ORDER BY a.ROWID
                """
            )
        } else {
            attachmentNames = nil
        }
        pending = try messages.step()
    }

    private static func columns(of table: String, in connection: SQLiteDatabase) throws -> Set<String> {
        let info = try connection.prepare("SELECT name FROM pragma_table_info(?1)")
        try info.bind([.text(table)])
        var names: Set<String> = []
        while try info.step() {
            if case .text(let name) = info.value(0) { names.insert(name) }
        }
        return names
    }

    /// The next message, or nil after the last. SQLite failures (a corrupt page, the time limit) throw;
    /// problems with a row's blobs are that message's ``ChatMessage/error``.
    func next() throws -> ChatMessage? {
        guard pending else { return nil }
        var message = ChatMessage(rowid: 0, isFromMe: false)
        if case .integer(let rowid) = messages.value(0) { message.rowid = rowid }
        message.guid = Self.text(messages.value(1))
        if case .integer(let date) = messages.value(2) { message.date = AppleDate.iso8601(date) }
        if case .integer(let flag) = messages.value(3) { message.isFromMe = flag != 0 }
        message.handle = Self.text(messages.value(4))
        message.service = Self.text(messages.value(5))
        let plainText = Self.text(messages.value(6))
        switch messages.value(7) {
        case .blob(let bytes) where !bytes.isEmpty:
            do {
                message.text = try MessageBody.text(bytes, options: options)
                message.textSource = "attributedBody"
            } catch {
                message.fail("attributedBody", error)
            }
        case .null, .blob: break
        case let other: message.fail("attributedBody", MessageBody.Failure("a \(other.typeName), not a blob"))
        }
        if message.text == nil, let plainText {
            message.text = plainText
            message.textSource = "text"
        }
        switch messages.value(8) {
        case .blob(let bytes) where !bytes.isEmpty:
            do {
                try MessageSummary.read(bytes, into: &message, options: options)
            } catch {
                message.fail("message_summary_info", error)
            }
        default: break
        }
        if case .blob(let bytes) = messages.value(9), !bytes.isEmpty {
            do {
                // Plain JSON within the output budget of the blob (a link preview is a small keyed archive).
                let graph = try ArchiveGraph(bytes: bytes, options: options)
                // One graph per message: its cycles must not outlive it.
                defer { graph.breakReferenceCycles() }
                message.payload = try graph.plainJSON(
                    prettyPrinted: false, maxOutputBytes: OutputBudget.bytes(forInputBytes: bytes.count))
            } catch {
                message.fail("payload_data", error)
            }
        }
        if let attachmentNames {
            attachmentNames.reset()
            try attachmentNames.bind([.integer(message.rowid)])
            while try attachmentNames.step() {
                guard message.attachments.count < Self.attachmentLimit else {
                    message.fail(
                        "attachment",
                        MessageBody.Failure("more than \(Self.attachmentLimit) attachments; the rest are left out")
                    )
                    break
                }
                if let name = Self.text(attachmentNames.value(0)) ?? Self.text(attachmentNames.value(1)).map({
                    String($0.split(separator: "/").last ?? Substring($0))
                }) {
                    message.attachments.append(name)
                }
            }
        }
        pending = try messages.step()
        return message
    }

    private static func text(_ value: SQLiteValue) -> String? {
        switch value {
        case .text(let s): s
        case .integer(let i): String(i)
        case .real(let d): String(d)
        case .blob(let b): String(decoding: b, as: UTF8.self)
        case .null: nil
        }
    }
}

extension SQLiteValue {
    var typeName: String {
        switch self {
        case .null: "NULL"
        case .integer: "integer"
        case .real: "real"
        case .text: "text"
        case .blob: "blob"
        }
    }
}

/// The text of an `attributedBody`: an NSArchiver typedstream of an `NSAttributedString` in a real chat.db;
/// a keyed archive of one in some copies and in older samples.
enum MessageBody {
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    static func text(_ bytes: [UInt8], options: ArchiveReadingOptions) throws -> String {
        guard bytes.count <= options.maxInputBytes else {
            throw Failure("\(bytes.count) bytes, more than the \(options.maxInputBytes)-byte input limit")
        }
        if Typedstream.hasSignature(bytes) {
            let message = try IMessageText(attributedBody: bytes, options: options)
            defer { message.breakReferenceCycles() }
            return message.text
        }
        let graph = try ArchiveGraph(bytes: bytes, options: options)
        defer { graph.breakReferenceCycles() }
        guard case .object(let root)? = graph.root else {
            throw Failure("the keyed archive's root is not an object")
        }
        // NSAttributedString keeps its text under NSString (a string, or an NSString object's NS.string).
        func string(_ value: ArchivedValue?) -> String? {
            switch value {
            case .reference(.string(let s))?, .inline(.string(let s))?: return s
            case .object(let inner)?:
                switch inner.fields["NS.string"] {
                case .reference(.string(let s))?, .inline(.string(let s))?: return s
                default: return nil
                }
            default: return nil
            }
        }
        if let text = string(root.fields["NSString"]) ?? string(root.fields["NS.string"]) { return text }
        throw Failure("the root is \(root.className), not an attributed string")
    }
}

/// `message_summary_info`: a plain binary property list. `ec` maps a message part's index (as a string) to
/// its edit history, oldest first, each entry a dictionary of `d` (the edit's date, seconds since 2001) and
/// `t` (the part's text then, an `attributedBody` typedstream), sometimes `bcg` (a GUID); `rp` lists the
/// indexes of the parts that were unsent (retracted). Other keys (`otr`, `euh`, `ust` …) are ignored.
enum MessageSummary {
    static func read(_ bytes: [UInt8], into message: inout ChatMessage, options: ArchiveReadingOptions) throws {
        let value = try ArchiveValue(propertyList: bytes, options: options)
        guard case .dictionary(let root) = value else {
            throw MessageBody.Failure("message_summary_info is a \(value.typeName), not a dictionary")
        }
        if let edited = root["ec"] {
            guard case .dictionary(let parts) = edited else {
                throw MessageBody.Failure("ec is a \(edited.typeName), not a dictionary")
            }
            for (key, history) in parts {
                guard let part = Int(key), case .array(let entries) = history else {
                    throw MessageBody.Failure("ec[\(JSONStringLiteral.quoted(key))] is not a part's list of edits")
                }
                for entry in entries {
                    guard case .dictionary(let fields) = entry else {
                        throw MessageBody.Failure("an edit of part \(part) is a \(entry.typeName), not a dictionary")
                    }
                    var edit = ChatMessage.Edit(part: part)
                    switch fields["d"] {
                    case .real(let seconds)?: edit.date = AppleDate.iso8601(seconds: seconds)
                    case .integer(let seconds)?: edit.date = AppleDate.iso8601(seconds: Double(seconds))
                    case .date(let date)?: edit.date = AppleDate.iso8601(seconds: date.timeIntervalSinceReferenceDate)
                    default: break
                    }
                    if case .string(let guid)? = fields["bcg"] { edit.guid = guid }
                    if case .data(let body)? = fields["t"] {
                        do {
                            edit.text = try MessageBody.text(body, options: options)
                        } catch {
                            message.fail("message_summary_info", MessageBody.Failure("ec[\(part)] t: \(ErrorReport(error).reason)"))
                        }
                    }
                    message.edits.append(edit)
                }
            }
        }
        if let retracted = root["rp"] {
            guard case .array(let parts) = retracted else {
                throw MessageBody.Failure("rp is a \(retracted.typeName), not an array")
            }
            message.unsentParts = parts.compactMap { $0.int64Value.flatMap { Int(exactly: $0) } }
        }
    }
}

/// Apple's timestamps: seconds since 2001-01-01 (Core Data, `NSDate`); chat.db since macOS 10.13 stores
/// nanoseconds, older databases seconds.
enum AppleDate {
    /// A chat.db `date`: nanoseconds when its magnitude is at least 10^12 (seconds that large are more than
    /// 31,000 years), else seconds. Nil when the date is outside the years 1 to 9999.
    static func iso8601(_ raw: Int64) -> String? {
        if raw.magnitude >= 1_000_000_000_000 {
            let (seconds, nanoseconds) = raw.quotientAndRemainder(dividingBy: 1_000_000_000)
            // Round toward minus infinity so that the fraction is never negative.
            let whole = nanoseconds < 0 ? seconds - 1 : seconds
            let fraction = nanoseconds < 0 ? nanoseconds + 1_000_000_000 : nanoseconds
            return iso8601(whole: whole, milliseconds: Int(fraction / 1_000_000))
        }
        return iso8601(whole: raw, milliseconds: 0)
    }

    /// Seconds since 2001 as a double (plist dates and `d` values).
    static func iso8601(seconds: Double) -> String? {
        guard seconds.isFinite, seconds.magnitude < 1e15 else { return nil }
        let whole = seconds.rounded(.down)
        let milliseconds = min(999, Int(((seconds - whole) * 1000).rounded()))
        return iso8601(whole: Int64(whole), milliseconds: milliseconds)
    }

    /// `YYYY-MM-DDTHH:MM:SS[.mmm]Z` of `whole` seconds since 2001 (proleptic Gregorian), `milliseconds` from 0
    /// to 999.
    static func iso8601(whole: Int64, milliseconds: Int) -> String? {
        guard let text = ISO8601Text.dateTime(secondsSince2001: whole) else { return nil }
        return milliseconds > 0 ? text + "." + ISO8601Text.pad(Int64(milliseconds), 3) + "Z" : text + "Z"
    }
}
