import ArgumentParser
import AutoCodingCore
import Foundation

/// `autocoding sample`: writes a deterministic set of sample archives, for the main job, tests and benchmarks.
struct Sample: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a deterministic set of sample archives, other files and a SQLite database of blobs.",
        discussion: """
            Writes into DIR:
              archives/    --count keyed archives, cycling through eight kinds: people (Codable classes with \
            shared friends and cycles), notes (folders and notes with parent links, dates, URLs, UUIDs, data), \
            graph (a ring of objects built with the object layer), collections (NSDictionary, NSArray, NSSet, \
            NSOrderedSet, NSDate, NSNull, NSData), blob (NSData), attributed (NSAttributedString), accounts \
            (NSCoding-style classes), chain (a linked list of up to 1,000 objects); every tenth is XML
              other/       9 files that are not valid archives: text, random bytes, an empty file, JSON, XML, \
            plain property lists, a truncated archive and one with a UID out of range
              messages.db  a chat.db-like SQLite database: table message (ROWID, guid, text, handle_id, \
            service, date, is_from_me, attributedBody, payload_data) with --rows rows whose attributedBody is a \
            keyed archive (NSAttributedString) and, every fifth row, payload_data too
              chat.db      a Messages database with the real schema (message, handle, attachment, \
            message_attachment_join, chat, chat_message_join …) and --rows messages in real forms: \
            attributedBody an NSArchiver typedstream (text NULL), payload_data a keyed archive on link rows, \
            message_summary_info a plain property list on edited and unsent rows, attachments, and older \
            rows with only text; read it with `autocoding messages`

            The same --seed gives the same bytes on every run and machine. Existing archives/, other/ and \
            messages.db and chat.db in DIR are replaced only with --force.
            """
    )

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp("The directory to write into (created if missing).", valueName: "dir")
    )
    var output: String

    @Option(help: "How many archives to write.")
    var count: Int = 1000

    @Option(help: "How many rows messages.db and chat.db get (default: --count).")
    var rows: Int?

    @Option(help: "The seed of the generator.")
    var seed: UInt64 = 1

    @Flag(help: "Replace archives/, other/, messages.db and chat.db if DIR has them.")
    var force = false

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    func validate() throws {
        guard count >= 0 else { throw ValidationError("--count must be 0 or more.") }
        if let rows, rows < 0 { throw ValidationError("--rows must be 0 or more.") }
    }

    func run() throws {
        let manager = FileManager.default
        let root = URL(fileURLWithPath: output)
        let archives = root.appendingPathComponent("archives")
        let other = root.appendingPathComponent("other")
        let database = root.appendingPathComponent("messages.db")
        let chat = root.appendingPathComponent("chat.db")
        let existing = [archives, other, database, chat].filter { manager.fileExists(atPath: $0.path) }
        if !existing.isEmpty {
            guard force else {
                let names = existing.map(\.lastPathComponent).joined(separator: ", ")
                StandardError.write("error: \(output) already has \(names); use --force to replace")
                throw ExitCode(2)
            }
            for url in existing { try manager.removeItem(at: url) }
        }
        try manager.createDirectory(at: archives, withIntermediateDirectories: true)
        try manager.createDirectory(at: other, withIntermediateDirectories: true)

        let start = Monotonic.nanoseconds()
        let generator = SampleGenerator(seed: seed)
        var bytes = 0
        for index in 0..<count {
            let data = try generator.archive(index)
            try ArchiveFile.write(
                data,
                to: archives.appendingPathComponent(generator.fileName(index).1).path,
                atomically: false
            )
            bytes += data.count
        }
        let others = try generator.otherFiles()
        for file in others {
            try ArchiveFile.write(file.bytes, to: other.appendingPathComponent(file.name).path, atomically: false)
        }
        let rowCount = rows ?? count
        try generator.writeDatabase(at: database.path, rows: rowCount)
        try generator.writeChatDatabase(at: chat.path, rows: rowCount)
        let seconds = Double(Monotonic.nanoseconds() - start) / 1e9
        if !quiet {
            print(
                "sample: \(count) archives (\(bytes) bytes) in \(archives.path), \(others.count) other files in "
                    + "\(other.path), \(rowCount) rows in \(database.path) and \(chat.path)"
                    + String(format: " (%.2f s)", seconds)
            )
        }
    }
}
