import AutoCodingCore
import Foundation

/// `inspect` for typedstreams: the object graph as a tree, Foundation-aware (NSString text, NSNumber values,
/// NSArray elements, NSDictionary entries by key, NSAttributedString text and runs), as `ArchiveTree` prints
/// keyed archives. Objects are numbered `#n` in order of first appearance (the `$id` of typedstream JSON);
/// each prints once, later references as `↩︎ #n Class`. An explicit stack: no recursion however deep.
struct TypedTree {
    let graph: TypedGraph
    let maxDepth: Int?
    /// Object numbers, by identity, in order of first appearance in the stream.
    private let numbers: [ObjectIdentifier: Int]

    init(graph: TypedGraph, maxDepth: Int?) {
        self.graph = graph
        self.maxDepth = maxDepth
        var numbers: [ObjectIdentifier: Int] = [:]
        for (index, object) in graph.objects.enumerated() { numbers[ObjectIdentifier(object)] = index }
        self.numbers = numbers
    }

    /// Reads the typedstream in `bytes` and prints its tree (or, with `classes`, its class table; with
    /// `dot`, its graph as DOT).
    static func inspect(
        _ bytes: [UInt8], options: ArchiveReadingOptions, depth: Int?, classes: Bool, dot: Bool, maxOutputBytes: Int
    ) throws {
        let graph = try TypedGraph(bytes: bytes, options: options)
        let sink = OutputSink.standardOutput()
        if dot {
            try sink.write(DotGraph.typed(graph, maxDepth: depth))
        } else if classes {
            try sink.write(classTable(graph))
        } else {
            try TypedTree(graph: graph, maxDepth: depth).write(to: sink, maxOutputBytes: maxOutputBytes)
        }
        try sink.flush()
    }

    private struct Item {
        var prefix: String
        var isLast: Bool
        var label: String
        var value: TypedValue
        var depth: Int
    }

    /// Prints the tree. Like ``ArchiveTree``, indentation stops growing after
    /// ``ArchiveTree/maxIndentLevels`` levels (a chain of n objects prints in O(n) bytes), and more than
    /// `maxOutputBytes` of text throws.
    func write(to sink: OutputSink, maxOutputBytes: Int = .max) throws {
        let values = Array(graph.groups.joined())
        var written = 0
        func line(_ text: String) throws {
            written += text.utf8.count + 1
            guard written <= maxOutputBytes else { throw OutputBudget.exceeded(maxOutputBytes, what: "the tree") }
            try sink.write(text + "\n")
        }
        try line(
            "typedstream (NSArchiver), \(graph.byteOrder.rawValue)-endian, system version \(graph.systemVersion), "
                + "\(Self.count(numbers.count, "object")), \(Self.count(values.count, "top-level value"))"
        )
        var printed = Set<ObjectIdentifier>()
        var stack = values.enumerated().reversed().map {
            Item(prefix: "", isLast: true, label: "[\($0.offset)]", value: $0.element, depth: 0)
        }
        while let item = stack.popLast() {
            let isRoot = item.depth == 0
            let connector = isRoot ? "" : (item.isLast ? "└─ " : "├─ ")
            let indents = item.depth <= ArchiveTree.maxIndentLevels
            let childPrefix = isRoot ? "" : (indents ? item.prefix + (item.isLast ? "   " : "│  ") : item.prefix)
            let depthMark = indents ? "" : "(depth \(item.depth)) "
            let (text, children) = describe(item.value, printed: &printed)
            try line(item.prefix + connector + depthMark + TerminalText.escaped(item.label) + ": " + text)
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

    /// `#n` of an object.
    func number(_ object: TypedObject) -> Int { numbers[ObjectIdentifier(object)] ?? -1 }

    /// The text of one value and the children to print below it.
    private func describe(_ value: TypedValue, printed: inout Set<ObjectIdentifier>) -> (String, [(String, TypedValue)]) {
        guard case .object(let object) = value else { return (Self.scalar(value), Self.elements(value)) }
        let name = TerminalText.escaped(object.className.isEmpty ? "?" : object.className)
        let id = "#\(number(object))"
        guard printed.insert(ObjectIdentifier(object)).inserted else { return ("↩︎ \(id) \(name)", []) }
        let head = "\(name) \(id)"
        guard let foundation = object.foundation else {
            // Any other class: its typed values in order, as $0, $1 … (the names `convert --to keyed` gives).
            let values = Array(object.groups.joined())
            return (head, values.enumerated().map { ("$\($0.offset)", $0.element) })
        }
        switch foundation {
        case .string(let s):
            return ("\(head) \(Self.quoted(s))", [])
        case .attributedString(let body):
            let runs = body.runs.enumerated().map { index, run -> (String, TypedValue) in
                ("run \(index) @\(run.location)+\(run.length)", run.attributes.map { .object($0) } ?? .nil)
            }
            return ("\(head) \(Self.quoted(body.text)), \(body.runs.count) run\(body.runs.count == 1 ? "" : "s")", runs)
        case .array(let values):
            return ("\(head), \(Self.count(values.count, "element"))", values.enumerated().map { ("[\($0.offset)]", $0.element) })
        case .set(let values):
            return ("\(head), \(Self.count(values.count, "element"))", values.enumerated().map { ("[\($0.offset)]", $0.element) })
        case .dictionary(let pairs):
            var children: [(String, TypedValue)] = []
            for (index, pair) in pairs.enumerated() {
                if case .string(let key)? = pair.key.object?.foundation {
                    children.append((Self.quoted(key), pair.value))
                } else {
                    children.append(("key \(index)", pair.key))
                    children.append(("value \(index)", pair.value))
                }
            }
            return ("\(head), \(Self.count(pairs.count, "entry", "entries"))", children)
        case .number(let number):
            return ("\(head) \(Self.scalar(number))", [])
        case .value(let inner, let encoding):
            return ("\(head) \(TerminalText.escaped(encoding)) \(Self.scalar(inner))", Self.elements(inner))
        case .data(let bytes):
            return ("\(head) \(ArchiveTree.scalar(.data(bytes)))", [])
        case .date(let seconds):
            return ("\(head) \(AppleDate.iso8601(seconds: seconds) ?? String(seconds))", [])
        case .url(let relative, let base):
            return ("\(head) \(Self.quoted(relative))", base.map { [("base", .object($0))] } ?? [])
        case .null:
            return (head, [])
        case .color(let space, let components):
            return ("\(head) space \(space) \(components.map { "\($0)" }.joined(separator: " "))", [])
        case .font(let fontName, let size):
            return ("\(head) \(Self.quoted(fontName)) \(size)", [])
        case .storage(let type, let elements):
            return (
                "\(head) of \(TerminalText.escaped(type)), \(Self.count(elements.count, "element"))",
                elements.enumerated().map { ("[\($0.offset)]", $0.element) }
            )
        case .streamTable(let pairs):
            return ("\(head), \(Self.count(pairs.count, "entry", "entries")) (nested typedstreams)", [])
        }
    }

    private static func count(_ n: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(n) \(n == 1 ? singular : plural ?? singular + "s")"
    }

    /// A string quoted as JSON (escapes), shortened, and safe for a terminal.
    static func quoted(_ s: String) -> String {
        TerminalText.escaped(ArchiveTree.scalar(.string(s)))
    }

    /// The children of an array or struct value.
    private static func elements(_ value: TypedValue) -> [(String, TypedValue)] {
        switch value {
        case .array(let values, _), .structure(let values, _):
            return values.enumerated().map { ("[\($0.offset)]", $0.element) }
        default: return []
        }
    }

    /// A value that is not an object, one line.
    static func scalar(_ value: TypedValue) -> String {
        switch value {
        case .signed(let v, _): return String(v)
        case .unsigned(let v, _): return String(v)
        case .float(let v): return "\(v)"
        case .double(let v): return "\(v)"
        case .nil: return "nil"
        case .ignored: return "(ignored)"
        case .cString(let s): return "C string " + quoted(s.text)
        case .atom(let b): return b.map { "atom " + quoted(String(decoding: $0, as: UTF8.self)) } ?? "nil atom"
        case .selector(let b): return b.map { "selector " + quoted(String(decoding: $0, as: UTF8.self)) } ?? "nil selector"
        case .string(let b): return quoted(String(decoding: b, as: UTF8.self))
        case .class(let chain): return "class " + TerminalText.escaped(chain.map(\.name).joined(separator: " → "))
        case .object(let object): return TerminalText.escaped(object.className)
        case .bytes(let b, _): return ArchiveTree.scalar(.data(b))
        case .array(let values, let encoding): return "\(TerminalText.escaped(encoding)) [\(values.count)]"
        case .structure(let values, let encoding): return "\(TerminalText.escaped(encoding)) {\(values.count)}"
        }
    }

    /// Objects per class, most frequent first, with their chains (the keyed table's layout).
    static func classTable(_ graph: TypedGraph) -> String {
        var counts: [String: (count: Int, chain: [String])] = [:]
        let objects = graph.objects
        for object in objects {
            counts[object.className, default: (0, object.classes.map(\.name))].count += 1
        }
        let rows = counts.sorted { ($0.value.count, $1.key) > ($1.value.count, $0.key) }
        let width = max(5, String(objects.count).count)
        var text = String(repeating: " ", count: width - 5) + "count  class\n"
        for (name, entry) in rows {
            let count = String(entry.count)
            let chain = entry.chain.count > 1 ? "  (" + entry.chain.joined(separator: " → ") + ")" : ""
            text += String(repeating: " ", count: width - count.count) + count + "  " + TerminalText.escaped(name + chain) + "\n"
        }
        text += String(repeating: " ", count: width - String(objects.count).count)
            + "\(objects.count)  objects of \(counts.count) classes\n"
        return text
    }
}
