import ArgumentParser
import AutoCodingCore
import Foundation

/// `autocoding messages`: the messages of a Messages database (`chat.db`), one record each.
struct Messages: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the messages of a Messages database (chat.db) as NDJSON or CSV.",
        discussion: """
            One record per row of the message table, in ROWID order: rowid, guid, date (ISO 8601, UTC; \
            chat.db's nanoseconds since 2001, or seconds in older databases), is_from_me, handle (the handle \
            table's id), service, text (from attributedBody, an NSArchiver typedstream, else the text column; \
            text_source says which), edited and edits (part, date, text, from message_summary_info's ec), \
            unsent and unsent_parts (its rp), attachments (transfer_name, else filename), and in NDJSON \
            payload, the keyed archive of payload_data (link previews, app messages) as plain JSON (as json \
            --plain prints it), when the row has one. A row whose attributedBody, message_summary_info or \
            payload_data cannot be read gets an error field ({column, code, reason}) and the run goes on. \
            --csv prints the same as RFC 4180 CSV with a header row (edits as their count, lists joined with \
            '; ', no payload).

            The database is opened read-only and never written; a WAL database without its side files is \
            read as it is, without creating -wal or -shm files. Rows are read one at a time (bounded memory).

            Exit status: 0 when every row was read, 1 when some row has an error, 2 on a usage error or a \
            database that cannot be read (not SQLite, locked, no message table or column).
            """
    )

    @Flag(help: "Print CSV (RFC 4180, with a header row) instead of NDJSON.")
    var csv = false

    @Option(name: .shortAndLong, help: ArgumentHelp("The file to write (default: standard output).", valueName: "file"))
    var output: String?

    @Option(help: "The most seconds one step of the query may take.")
    var timeout: Double = 10

    @Argument(help: "The chat.db to read.")
    var database: String

    func validate() throws {
        guard timeout > 0 else { throw ValidationError("--timeout must be more than 0.") }
    }

    func run() throws {
        let reader: ChatDatabase
        do {
            reader = try ChatDatabase(path: database, timeLimit: timeout)
        } catch {
            StandardError.write("error: \(TerminalText.escaped(database)): \(Self.reason(error))")
            throw ExitCode(2)
        }
        let sink: OutputSink
        do {
            sink = try output.map { $0 == "-" ? OutputSink.standardOutput() : try OutputSink.file($0) }
                ?? OutputSink.standardOutput()
        } catch {
            StandardError.write("error: \(ErrorReport(error).reason)")
            throw ExitCode(2)
        }
        let toTerminal = output == nil && isatty(1) == 1
        var count = 0
        var failed = 0
        do {
            if csv { try sink.write(CSV.line(ChatMessage.csvHeader)) }
            while let message = try reader.next() {
                count += 1
                if message.error != nil { failed += 1 }
                if csv {
                    let fields = toTerminal ? message.csvFields.map { TerminalText.escaped($0, keepingNewlines: true) } : message.csvFields
                    try sink.write(CSV.line(fields))
                } else {
                    try sink.writeLine(toTerminal ? TerminalText.jsonEscaped(message.json) : message.json)
                }
            }
            try sink.flush()
        } catch {
            try? sink.flush()
            StandardError.write("error: \(TerminalText.escaped(database)): \(Self.reason(error))")
            throw ExitCode(1)
        }
        StandardError.write("messages: \(count) messages, \(failed) with errors")
        if failed > 0 { throw ExitCode(1) }
    }

    /// SQLite's message with what failed, on one line.
    static func reason(_ error: any Error) -> String {
        let text: String
        if let error = error as? SQLiteError {
            text = error.operation.hasPrefix("open ") ? error.message + " (SQLite code \(error.code))" : error.description
        } else {
            text = ErrorReport(error).reason
        }
        return TerminalText.escaped(text)
    }
}

/// RFC 4180 CSV: fields with a comma, quote, CR or LF are quoted, quotes doubled; lines end in CRLF.
enum CSV {
    static func field(_ value: String) -> String {
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) else {
            return value
        }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func line(_ fields: [String]) -> String {
        fields.map(field).joined(separator: ",") + "\r\n"
    }
}
