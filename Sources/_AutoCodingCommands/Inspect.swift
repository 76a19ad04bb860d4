import ArgumentParser
import AutoCodingCore
import Foundation

/// `autocoding inspect`: the object graph of an archive as a tree, or a table of its classes.
struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a keyed archive's object graph as a tree, or count its classes.",
        discussion: """
            Each object prints once, as `Class #uid` with its fields below it; every later reference to it \
            (shared objects and cycles) prints as `↩︎ #uid Class`. The #uid is the object's index in the \
            archive's $objects table. Strings and data are shortened; a plain array or dictionary entry \
            referenced again prints as `↩︎ #uid`, indentation stops growing after 32 levels, and the tree stops \
            with an error past --max-output-bytes (default 100 × the input + 1 MiB). A plain property list prints as a tree \
            of its values.

            Exit status: 0 on success, 1 when the file cannot be read or is not a property list, 2 on a usage error.
            """
    )

    @Option(help: "Print at most this many levels below each root.")
    var depth: Int?

    @Flag(help: "Print a table of classes and instance counts instead of the tree.")
    var classes = false

    @Flag(help: "Print the object graph as Graphviz DOT (render it with: dot -Tpng -o graph.png).")
    var dot = false

    @Option(help: "The binary-plist parser: native or libplist.")
    var backend: ArchiveReadingOptions.Backend = .native

    @OptionGroup var budget: OutputBudgetOption

    @Argument(help: "A keyed archive or property list (binary or XML), or '-' for standard input.")
    var path: String

    func validate() throws {
        if let depth, depth < 0 { throw ValidationError("--depth must be 0 or more.") }
        if dot && classes { throw ValidationError("--dot and --classes cannot be combined.") }
    }

    func run() throws {
        var options = ArchiveReadingOptions()
        options.backend = backend
        let sink = OutputSink.standardOutput()
        do {
            let bytes = try InputFiles.read(path, limit: options.maxInputBytes)
            let maxOutputBytes = budget.bytes(forInputBytes: bytes.count)
            if Typedstream.hasSignature(bytes) {
                // Foundation-aware (InspectTypedstream.swift, InspectDot.swift); `events` prints the event layer.
                try TypedTree.inspect(
                    bytes, options: options, depth: depth, classes: classes, dot: dot, maxOutputBytes: maxOutputBytes)
                return
            }
            let value = try ArchiveValue(propertyList: bytes, options: options)
            let archive = try FileCheck.keyedArchive(value, options: options)
            if dot { return try DotGraph.inspect(archive, path: path, maxDepth: depth) }
            let tree = ArchiveTree(archive: archive, maxDepth: depth, maxOutputBytes: maxOutputBytes)
            if let archive {
                if classes {
                    try sink.write(TerminalText.escaped(ArchiveTree.classTable(archive), keepingNewlines: true))
                } else {
                    try tree.write(to: sink)
                }
            } else {
                if classes {
                    try sink.write("plain \(value.typeName) property list: no classes\n")
                } else {
                    try tree.write(plain: value, to: sink)
                }
            }
            try sink.flush()
        } catch {
            try? sink.flush()
            StandardError.write("error: \(path): \(ErrorReport(error).reason)")
            throw ExitCode(1)
        }
    }
}

/// Prints archives and property lists as trees, with an explicit stack so that a chain a million objects
/// long or a deep plist costs no call stack.
struct ArchiveTree {
    let archive: KeyedArchive?
    let maxDepth: Int?
    /// The output budget (see ``OutputBudget``): a tree that would print more throws `limitExceeded`.
    var maxOutputBytes: Int = .max
    /// Indentation stops growing after this many levels (a deeper line shows its depth instead), so that a
    /// chain of n objects prints in O(n) bytes, not O(n²).
    static let maxIndentLevels = 32
    /// Strings longer than this are shortened.
    static let stringLimit = 60

    /// One line waiting to be printed: the text before the connector, the label, the value and its depth.
    private struct Item {
        var prefix: String
        var isLast: Bool
        var label: String
        var value: ArchiveValue
        var depth: Int
    }

    func write(to sink: OutputSink) throws {
        guard let archive else { return }
        try sink.write(
            TerminalText.escaped(
                "\(archive.archiver), \(archive.objects.count) objects, $top: \(archive.top.keys.joined(separator: ", "))")
                + "\n")
        try walk(roots: archive.top.map { ($0.key, $0.value) }, to: sink)
    }

    func write(plain value: ArchiveValue, to sink: OutputSink) throws {
        try sink.write("plain \(value.typeName) property list\n")
        try walk(roots: [("root", value)], to: sink)
    }

    private func walk(roots: [(String, ArchiveValue)], to sink: OutputSink) throws {
        var printed = Set<UInt32>()
        var written = 0
        /// Every line goes through here: escaped for the terminal, and counted against the budget.
        func line(_ text: String) throws {
            let text = TerminalText.escaped(text) + "\n"
            written += text.utf8.count
            guard written <= maxOutputBytes else { throw OutputBudget.exceeded(maxOutputBytes, what: "the tree") }
            try sink.write(text)
        }
        var stack: [Item] = roots.reversed().map { Item(prefix: "", isLast: true, label: $0.0, value: $0.1, depth: 0) }
        while let item = stack.popLast() {
            // Roots print without connectors; everything below them hangs from `├─`/`└─`.
            let depthOfRoot = item.depth == 0
            let connector = depthOfRoot ? "" : (item.isLast ? "└─ " : "├─ ")
            let indents = item.depth <= Self.maxIndentLevels
            let childPrefix = depthOfRoot ? "" : (indents ? item.prefix + (item.isLast ? "   " : "│  ") : item.prefix)
            let depthMark = indents ? "" : "(depth \(item.depth)) "
            let (text, children) = describe(item.value, printed: &printed)
            try line(item.prefix + connector + depthMark + item.label + ": " + text)
            guard !children.isEmpty else { continue }
            if let maxDepth, item.depth >= maxDepth {
                try line(childPrefix + "└─ … \(children.count) more")
                continue
            }
            for (offset, child) in children.enumerated().reversed() {
                stack.append(
                    Item(
                        prefix: childPrefix,
                        isLast: offset == children.count - 1,
                        label: child.0,
                        value: child.1,
                        depth: item.depth + 1
                    )
                )
            }
        }
    }

    /// The text of one value and its children (fields, elements or entries) to print below it.
    private func describe(_ value: ArchiveValue, printed: inout Set<UInt32>) -> (String, [(String, ArchiveValue)]) {
        switch value {
        case .uid(let uid):
            guard let archive else { return ("UID \(uid.rawValue)", []) }
            if uid.isNull { return ("nil", []) }
            guard let entry = archive[uid] else { return ("UID \(uid.rawValue) (out of range)", []) }
            guard let archiveClass = archive.archiveClass(of: uid), case .dictionary(let fields) = entry else {
                if entry.stringValue == ArchiveKey.null && uid.rawValue == 0 { return ("nil", []) }
                if case .dictionary = entry, archive.isClassDescriptor(uid) {
                    return ("class \(ArchiveClass(descriptor: entry)?.name ?? "?") #\(uid.rawValue)", [])
                }
                // A container entry referenced again prints as a reference, like an object: expanding it at every
                // reference would print it as many times as it is referenced.
                switch entry {
                case .array, .dictionary:
                    if !printed.insert(uid.rawValue).inserted { return ("↩︎ #\(uid.rawValue) \(entry.typeName)", []) }
                default: break
                }
                return describe(entry, printed: &printed)
            }
            if !printed.insert(uid.rawValue).inserted { return ("↩︎ #\(uid.rawValue) \(archiveClass.name)", []) }
            let children = fields.filter { $0.key != ArchiveKey.class }.map { ($0.key, $0.value) }
            return ("\(archiveClass.name) #\(uid.rawValue)", children)
        case .array(let elements):
            return ("[\(elements.count)]", elements.enumerated().map { ("[\($0.offset)]", $0.element) })
        case .dictionary(let entries):
            return ("{\(entries.count)}", entries.map { ($0.key, $0.value) })
        default:
            return (Self.scalar(value), [])
        }
    }

    /// A scalar, shortened: long strings cut with `…`, data as its size and first bytes.
    static func scalar(_ value: ArchiveValue) -> String {
        switch value {
        case .string(let s):
            // Only the head is looked at: counting the characters of a 1 MiB string referenced a thousand times
            // would cost seconds. The size of a long one is its UTF-8 byte count, which a native string knows.
            let head = s.prefix(stringLimit + 1)
            guard head.count > stringLimit else { return JSONStringLiteral.quoted(s) }
            return String(JSONStringLiteral.quoted(String(head.dropLast())).dropLast()) + "…\" (\(s.utf8.count) bytes)"
        case .data(let bytes):
            let head = bytes.prefix(8).map { String(format: "%02x", $0) }.joined()
            return "<\(bytes.count) bytes\(bytes.isEmpty ? "" : ": " + head + (bytes.count > 8 ? "…" : ""))>"
        case .date(let date): return date.formatted(.iso8601)
        case .bool(let b): return b ? "true" : "false"
        case .integer(let i): return String(i)
        case .unsignedInteger(let u): return String(u)
        case .real(let d): return "\(d)"
        case .uid(let uid): return "UID \(uid.rawValue)"
        case .array(let a): return "[\(a.count)]"
        case .dictionary(let d): return "{\(d.count)}"
        }
    }

    /// A table of the classes of the archive's instances, most frequent first.
    static func classTable(_ archive: KeyedArchive) -> String {
        var counts: [String: (count: Int, chain: [String])] = [:]
        var instances = 0
        for index in archive.objects.indices {
            guard let archiveClass = archive.archiveClass(of: ArchiveUID(UInt32(index))) else { continue }
            counts[archiveClass.name, default: (0, archiveClass.chain)].count += 1
            instances += 1
        }
        let rows = counts.sorted { ($0.value.count, $1.key) > ($1.value.count, $0.key) }
        let width = max(5, String(instances).count)
        var text = String(repeating: " ", count: width - 5) + "count  class\n"
        for (name, entry) in rows {
            let count = String(entry.count)
            let chain = entry.chain.count > 1 ? "  (" + entry.chain.joined(separator: " → ") + ")" : ""
            // Escaped here, one row at a time: the caller keeps the table's own line breaks, not a name's.
            text += String(repeating: " ", count: width - count.count) + count + "  "
                + TerminalText.escaped(name + chain) + "\n"
        }
        text += String(repeating: " ", count: width - String(instances).count) + "\(instances)  instances of "
        text += "\(counts.count) classes in \(archive.objects.count) objects\n"
        return text
    }
}
