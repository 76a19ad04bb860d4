/// The marker keys of the JSON form, and the escaping that keeps ordinary keys apart from them.
enum GraphJSONKey {
    static let archiver = "$archiver"
    static let top = "$top"
    static let className = "$class"
    static let classes = "$classes"
    static let uid = "$uid"
    static let ref = "$ref"
    static let inline = "$inline"
    static let entry = "$entry"
    static let data = "$data"
    static let date = "$date"
    static let time = "$time"
    static let real = "$real"
    static let cfuid = "$cfuid"

    /// Marker names without their `$`.
    private static let reserved: Set<Substring> = [
        "class", "classes", "uid", "ref", "inline", "entry", "data", "date", "time", "real", "cfuid",
    ]

    /// The number of leading `$` when the rest of `key` is a reserved name, else 0.
    private static func markerDollars(_ key: String) -> Int {
        // Most keys do not start with `$`; looking at one byte keeps them off the slow path.
        guard key.utf8.first == UInt8(ascii: "$") else { return 0 }
        let base = key.drop { $0 == "$" }
        return reserved.contains(base) ? key.count - base.count : 0
    }

    /// Whether `key` is a marker (`$data`), as opposed to an ordinary key or an escaped one (`$$data`).
    static func isMarker(_ key: String) -> Bool { markerDollars(key) == 1 }

    /// The key as printed: one more `$` for keys that would read as markers.
    static func escape(_ key: String) -> String { markerDollars(key) >= 1 ? "$" + key : key }

    /// The key as stored: one `$` fewer for escaped keys. Callers reject unescaped markers first.
    static func unescape(_ key: String) -> String { markerDollars(key) >= 2 ? String(key.dropFirst()) : key }
}
