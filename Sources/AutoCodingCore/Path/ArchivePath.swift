/// A path into an archived object graph or a property list, in one of two syntaxes told apart by their start:
///
/// - **Paths** start with `$top` and use the keys exactly as stored: `$top.root["NS.objects"][3].name`,
///   `$top.root[*].friends[-1]`. Inside `["…"]`, `\"` and `\\` stand for `"` and `\`.
/// - **Key paths** (as `plutil -extract` takes them) are any other text: dot-separated keys from `$top`, such as
///   `root.0.name`. A `\` makes the next `.` or `\` part of the key (`root.NS\.objects`). Every component is a
///   ``Step/key(_:)`` step, so `root.0.name` is `$top.root.0.name`.
///
/// | step      | on `$top`         | on an instance                           | on a dictionary | on an array |
/// |-----------|-------------------|------------------------------------------|-----------------|-------------|
/// | `.key`    | the entry `key`   | the field `key`, else the `NSDictionary` element whose key is `key`, else (an integer key on an `NSArray`-like instance) element `key` | the entry `key` | element `key` when `key` is an integer |
/// | `[i]`     | error             | element `i` of `NS.objects`              | error           | element `i` |
/// | `[*]`     | every entry       | every element of `NS.objects`            | every value     | every element |
///
/// UIDs are followed before every step, so `.root.name` reads the `name` field of the object `root` refers to.
/// A negative index counts from the end: `[-1]` is the last element. In a keyed archive `$top` holds the
/// `$top` keys (`root`, `$0` …); in a plain property list, `$top` is the property list's root value. The walk
/// is the same for every reader (see ``AutoCodingFast/LazyKeyedArchive/values(at:)-(ArchivePath)``,
/// ``ArchiveGraph/values(at:maxValues:)`` and ``AutoCodingFast/ArchiveValue/values(at:maxValues:)``).
public struct ArchivePath: Sendable, Hashable, CustomStringConvertible {
    /// One step after `$top`.
    public enum Step: Sendable, Hashable, CustomStringConvertible {
        /// `.key`, or `["key"]` for a key that is not a plain name: an entry of `$top` or of a dictionary, a field
        /// of an instance, an element of an `NSDictionary`-like instance by key, or (for an integer key, as
        /// plutil reads `root.0`) an element of an array.
        case key(String)
        /// `[i]`: an element of an array or of an `NSArray`-like instance; negative counts from the end.
        case index(Int)
        /// `[*]`: every element.
        case all

        /// The step as written in a path: `.key` when the key is a plain name, else `["key"]`.
        public var description: String {
            switch self {
            case .key(let key) where Self.isPlainName(key): return "." + key
            case .key(let key):
                // Escaped scalar by scalar: a `"` followed by a combining mark is one Character, which a
                // Character-level replacement would not see.
                var quoted = String.UnicodeScalarView()
                for scalar in key.unicodeScalars {
                    if scalar == "\"" || scalar == "\\" { quoted.append("\\") }
                    quoted.append(scalar)
                }
                return "[\"" + String(quoted) + "\"]"
            case .index(let i): return "[\(i)]"
            case .all: return "[*]"
            }
        }

        /// Whether `key` prints bare after a `.`: not empty, and only letters, digits and `_ $ - : @ + /`. The
        /// parser would take more (everything up to the next `.` or `[`), but spaces, quotes and brackets in a
        /// bare key read badly, so those keys print quoted.
        static func isPlainName(_ key: String) -> Bool {
            !key.isEmpty
                && key.unicodeScalars.allSatisfy { scalar in
                    switch scalar {
                    case "a"..."z", "A"..."Z", "0"..."9", "_", "$", "-", ":", "@", "+", "/": true
                    default: !scalar.isASCII && (scalar.properties.isAlphabetic || scalar.properties.numericType != nil)
                    }
                }
        }
    }

    /// The steps after `$top`.
    public var steps: [Step]

    /// The path's text in the `$top` syntax; it parses back to an equal path.
    public var description: String { "$top" + steps.map(\.description).joined() }

    /// How many values a path may reach in an archive of `inputBytes` bytes: one per byte, and at least 4,096.
    ///
    /// Values reached along distinct references cost at least a byte of reference each, so a path over a tree
    /// stays within it; only `[*]` fanning out again over shared references (an array holding one array a
    /// thousand times, twice over) passes it, and would otherwise multiply its results at every step.
    public static func fanOutBudget(forInputBytes inputBytes: Int) -> Int { max(inputBytes, 4096) }

    /// Whether a step fans out, so the path can give any number of values.
    public var fansOut: Bool { steps.contains(.all) }

    /// Creates a path from steps.
    public init(steps: [Step]) { self.steps = steps }

    /// Parses a path (`$top.root["NS.objects"][*].name`) or, for text that does not start with `$top`, a key
    /// path (`root.0.name`). Throws ``ArchivePathError`` with the byte offset of the first character that
    /// does not fit.
    public init(parsing text: String) throws(ArchivePathError) {
        var parser = ArchivePathParser(text: text)
        steps = try text.utf8.starts(with: ArchivePathParser.top) ? parser.parsePath() : parser.parseKeyPath()
    }

    /// Parses a key path (`root.0.name`) only: every component a ``Step/key(_:)``, `\.` and `\\` for a dot
    /// and a backslash inside a key.
    public init(keyPath text: String) throws(ArchivePathError) {
        var parser = ArchivePathParser(text: text)
        steps = try parser.parseKeyPath()
    }
}
