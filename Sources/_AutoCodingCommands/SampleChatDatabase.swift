import AutoCodingCore
import Foundation

/// The sample `chat.db`: the tables and columns of a real Messages database that readers use, with the forms
/// real rows hold: `attributedBody` an NSArchiver typedstream of an attributed string (and `text` NULL, as
/// macOS 13 and later write it), `payload_data` a keyed archive on link-preview rows, `message_summary_info` a
/// plain binary property list on edited and unsent rows, attachments through `message_attachment_join`, and
/// some older rows with only `text`.
extension SampleGenerator {
    /// The schema: the real tables with the columns that matter (real databases have many more).
    static let chatSchema = """
        PRAGMA page_size = 4096;
        CREATE TABLE _SqliteDatabaseProperties (key TEXT, value TEXT, UNIQUE(key));
        CREATE TABLE handle (ROWID INTEGER PRIMARY KEY AUTOINCREMENT UNIQUE, id TEXT NOT NULL, country TEXT,
            service TEXT NOT NULL, uncanonicalized_id TEXT, person_centric_id TEXT, UNIQUE (id, service));
        CREATE TABLE message (ROWID INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT UNIQUE NOT NULL, text TEXT,
            replace INTEGER DEFAULT 0, service_center TEXT, handle_id INTEGER DEFAULT 0, subject TEXT, country TEXT,
            attributedBody BLOB, version INTEGER DEFAULT 0, type INTEGER DEFAULT 0, service TEXT, account TEXT,
            account_guid TEXT, error INTEGER DEFAULT 0, date INTEGER, date_read INTEGER, date_delivered INTEGER,
            is_delivered INTEGER DEFAULT 0, is_finished INTEGER DEFAULT 0, is_emote INTEGER DEFAULT 0,
            is_from_me INTEGER DEFAULT 0, is_empty INTEGER DEFAULT 0, is_read INTEGER DEFAULT 0,
            is_sent INTEGER DEFAULT 0, cache_has_attachments INTEGER DEFAULT 0, item_type INTEGER DEFAULT 0,
            associated_message_guid TEXT, associated_message_type INTEGER DEFAULT 0, balloon_bundle_id TEXT,
            payload_data BLOB, expressive_send_style_id TEXT, message_summary_info BLOB,
            reply_to_guid TEXT DEFAULT NULL, thread_originator_guid TEXT DEFAULT NULL,
            date_retracted INTEGER DEFAULT 0, date_edited INTEGER DEFAULT 0, part_count INTEGER);
        CREATE TABLE attachment (ROWID INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT UNIQUE NOT NULL,
            created_date INTEGER DEFAULT 0, start_date INTEGER DEFAULT 0, filename TEXT, uti TEXT, mime_type TEXT,
            transfer_state INTEGER DEFAULT 0, is_outgoing INTEGER DEFAULT 0, user_info BLOB, transfer_name TEXT,
            total_bytes INTEGER DEFAULT 0, is_sticker INTEGER DEFAULT 0, hide_attachment INTEGER DEFAULT 0);
        CREATE TABLE message_attachment_join (message_id INTEGER REFERENCES message (ROWID) ON DELETE CASCADE,
            attachment_id INTEGER REFERENCES attachment (ROWID) ON DELETE CASCADE, UNIQUE(message_id, attachment_id));
        CREATE TABLE chat (ROWID INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT UNIQUE NOT NULL, style INTEGER,
            state INTEGER, account_id TEXT, properties BLOB, chat_identifier TEXT, service_name TEXT,
            room_name TEXT, account_login TEXT, is_archived INTEGER DEFAULT 0, last_addressed_handle TEXT,
            display_name TEXT, group_id TEXT, is_filtered INTEGER DEFAULT 0);
        CREATE TABLE chat_handle_join (chat_id INTEGER REFERENCES chat (ROWID) ON DELETE CASCADE,
            handle_id INTEGER REFERENCES handle (ROWID) ON DELETE CASCADE, UNIQUE(chat_id, handle_id));
        CREATE TABLE chat_message_join (chat_id INTEGER REFERENCES chat (ROWID) ON DELETE CASCADE,
            message_id INTEGER REFERENCES message (ROWID) ON DELETE CASCADE, message_date INTEGER DEFAULT 0,
            PRIMARY KEY (chat_id, message_id));
        CREATE INDEX message_idx_handle ON message(handle_id, date);
        CREATE INDEX message_attachment_join_idx_message_id ON message_attachment_join(message_id);
        CREATE INDEX chat_message_join_idx_message_id_only ON chat_message_join(message_id);
        """

    /// An `attributedBody` as Messages writes it: an `NSMutableAttributedString` of an `NSString`, each run
    /// with its `__kIMMessagePartAttributeName`; an attachment's run is U+FFFC with the transfer's GUID.
    static func attributedBody(_ parts: [(text: String, extra: [(String, TypedObject)])]) -> [UInt8] {
        var runs: [(length: Int, attributes: TypedObject)] = []
        var text = ""
        for (index, part) in parts.enumerated() {
            var pairs: [(key: TypedValue, value: TypedValue)] = [
                (.object(.string(IMessageText.Key.messagePart)), .object(.number(Int64(index))))
            ]
            for (key, value) in part.extra { pairs.append((.object(.string(key)), .object(value))) }
            runs.append((part.text.utf16.count, .dictionary(pairs)))
            text += part.text
        }
        let body = TypedObject.attributedString(text, runs: runs, mutable: true)
        body.groups[0] = TypedGroup(encoding: "@", value: .object(.string(text)))
        let archiver = TypedstreamArchiver()
        archiver.encodeObject(body)
        return archiver.archivedBytes()
    }

    /// Writes the sample chat.db: `rows` messages in conversations with a few handles. Every seventh message
    /// has been edited, every eleventh unsent, every ninth is a link with a preview (`payload_data`), every
    /// sixth has an attachment, every eighth is an older SMS row with `text` and no `attributedBody`.
    func writeChatDatabase(at path: String, rows: Int) throws {
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(path + suffix) }
        let database = try SQLiteDatabase(path: path, create: true)
        try database.execute(Self.chatSchema + "\nBEGIN;")
        try database.execute(
            "INSERT INTO _SqliteDatabaseProperties VALUES ('_ClientVersion', '17002'), ('counter_in_all', '\(rows)');"
        )
        var random = SampleRandom(seed: seed ^ 0x1C4A_77DB_03E5_B6A9)
        let handleCount = max(1, min(20, rows / 10))
        let handles = try database.prepare(
            "INSERT INTO handle (id, country, service, uncanonicalized_id) VALUES (?1, 'us', ?2, ?3)"
        )
        let chats = try database.prepare(
            """
            INSERT INTO chat (guid, style, state, account_id, chat_identifier, service_name, display_name)
            VALUES (?1, 45, 3, ?2, ?3, ?4, '')
            """
        )
        let chatHandles = try database.prepare("INSERT INTO chat_handle_join VALUES (?1, ?2)")
        var services: [String] = []
        for i in 0..<handleCount {
            let email = i % 4 == 3
            let id = email ? "\(Self.firstNames[i % Self.firstNames.count].lowercased())\(i)@example.com"
                : "+1555\(String(format: "%07d", 2_000_000 + i * 6007))"
            let service = random.bool(0.8) ? "iMessage" : "SMS"
            services.append(service)
            try handles.run([.text(id), .text(service), email ? .null : .text(String(id.dropFirst(2)))])
            try chats.run([.text("\(service);-;\(id)"), .text(random.uuid().uuidString), .text(id), .text(service)])
            try chatHandles.run([.integer(Int64(i + 1)), .integer(Int64(i + 1))])
        }
        let messages = try database.prepare(
            """
            INSERT INTO message (guid, text, handle_id, attributedBody, service, account, date, date_read,
                date_delivered, is_delivered, is_finished, is_from_me, is_read, is_sent, cache_has_attachments,
                balloon_bundle_id, payload_data, message_summary_info, date_retracted, date_edited, part_count)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 1, 1, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)
            """
        )
        let attachments = try database.prepare(
            """
            INSERT INTO attachment (guid, created_date, filename, uti, mime_type, transfer_state, is_outgoing,
                transfer_name, total_bytes) VALUES (?1, ?2, ?3, ?4, ?5, 5, ?6, ?7, ?8)
            """
        )
        let attachmentJoin = try database.prepare("INSERT INTO message_attachment_join VALUES (?1, ?2)")
        let chatJoin = try database.prepare("INSERT INTO chat_message_join VALUES (?1, ?2, ?3)")
        var date = Int64(random.date().timeIntervalSinceReferenceDate) * 1_000_000_000
        var attachmentCount: Int64 = 0
        for i in 0..<rows {
            let rowid = Int64(i + 1)
            let handle = random.int(1...handleCount)
            let fromMe = random.bool()
            date += Int64(random.int(1...3600)) * 1_000_000_000 + Int64(random.int(0...999)) * 1_000_000
            let words = (0..<random.int(1...9)).map { _ in random.pick(Self.words) }.joined(separator: " ")
            var text: SQLiteValue = .null
            var body: SQLiteValue = .null
            var payload: SQLiteValue = .null
            var summary: SQLiteValue = .null
            var balloon: SQLiteValue = .null
            var retracted: Int64 = 0
            var edited: Int64 = 0
            var hasAttachment = false
            if i % 8 == 7 {
                // An older SMS-era row: the text column only.
                text = .text(words)
            } else if i % 11 == 10 {
                // Unsent: no text, no body, the retracted part in rp.
                retracted = date + 60_000_000_000
                summary = .blob(
                    ArchiveValue.dictionary([
                        "rp": .array([.integer(0)]),
                        "otr": .dictionary(["0": .dictionary(["lo": .integer(0), "le": .integer(Int64(words.utf16.count))])]),
                    ]).binaryPropertyList()
                )
            } else if i % 7 == 6 {
                // Edited: the body is the last version; ec holds every version, oldest first.
                let versions = [words, words + " (" + random.pick(Self.words) + ")", words.uppercased()]
                    .prefix(random.int(2...3))
                edited = date + Int64(versions.count) * 30_000_000_000
                body = .blob(Self.attributedBody([(versions.last!, [])]))
                let history = versions.enumerated().map { index, version -> ArchiveValue in
                    .dictionary([
                        "d": .real(Double(date / 1_000_000_000 + Int64(index) * 30)),
                        "t": .data(Self.attributedBody([(version, [])])),
                    ])
                }
                summary = .blob(
                    ArchiveValue.dictionary([
                        "ec": .dictionary(["0": .array(history)]),
                        "otr": .dictionary(["0": .dictionary(["lo": .integer(0), "le": .integer(Int64(words.utf16.count))])]),
                    ]).binaryPropertyList()
                )
            } else if i % 9 == 8 {
                // A link with its preview in payload_data (a keyed archive).
                let url = "https://example.org/\(random.pick(Self.words))"
                balloon = .text("com.apple.messages.URLBalloonProvider")
                body = .blob(
                    Self.attributedBody([(url, [(IMessageText.Key.link, TypedObject.string(url))])])
                )
                payload = .blob(
                    [UInt8](
                        try KeyedArchiver.archivedData(withRootObject: [
                            "richLinkMetadata": ["URL": url, "title": words, "version": 1] as [String: Any]
                        ])
                    )
                )
            } else if i % 6 == 5 {
                // An attachment: U+FFFC with the transfer's GUID, then a caption.
                hasAttachment = true
                attachmentCount += 1
                let guid = "at_0_" + random.uuid().uuidString
                let name = "IMG_\(String(format: "%04d", 1000 + Int(attachmentCount))).HEIC"
                body = .blob(
                    Self.attributedBody([
                        ("\u{FFFC}", [(IMessageText.Key.fileTransferGUID, TypedObject.string(guid))]), (words, []),
                    ])
                )
                try attachments.run([
                    .text(guid), .integer(date / 1_000_000_000), .text("~/Library/Messages/Attachments/\(guid)/\(name)"),
                    .text("public.heic"), .text("image/heic"), .integer(fromMe ? 1 : 0), .text(name),
                    .integer(Int64(random.int(40_000...4_000_000))),
                ])
                try attachmentJoin.run([.integer(rowid), .integer(attachmentCount)])
            } else {
                body = .blob(Self.attributedBody([(words, [])]))
            }
            let service = i % 8 == 7 ? "SMS" : services[handle - 1]
            try messages.run([
                .text("\(String(format: "%08X", i))-" + random.uuid().uuidString.dropFirst(9)), text,
                .integer(Int64(handle)), body, .text(service), .text(fromMe ? "e:" : "p:+15550000000"),
                .integer(date), .integer(fromMe ? 0 : date + 5_000_000_000), .integer(fromMe ? date + 1_000_000_000 : 0),
                .integer(fromMe ? 1 : 0), .integer(fromMe ? 0 : 1), .integer(fromMe ? 1 : 0), .integer(hasAttachment ? 1 : 0),
                balloon, payload, summary, .integer(retracted), .integer(edited), .integer(hasAttachment ? 2 : 1),
            ])
            try chatJoin.run([.integer(Int64(handle)), .integer(rowid), .integer(date)])
        }
        try database.execute("COMMIT;")
    }
}
