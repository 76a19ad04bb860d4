import ArgumentParser
import AutoCodingCore
import Foundation

/// `inspect --dot`: an object graph as Graphviz DOT. Each object is one node (`Class #n` and its scalar
/// fields, shortened), each reference one edge labelled with its field, so a shared object has several
/// edges into it and a cycle is a loop back. `--depth` bounds the walk from the roots: objects at the limit
/// are drawn dashed, their references not followed. The walk is breadth-first with a queue (no recursion),
/// and each object is expanded once, so the output is proportional to the input.
enum DotGraph {
    /// Prints the DOT of a keyed archive; a plain property list has no object graph to draw.
    static func inspect(_ archive: KeyedArchive?, path: String, maxDepth: Int?) throws {
        guard let archive else {
            StandardError.write(
                "error: \(TerminalText.escaped(path)): a plain property list has no object graph; "
                    + "--dot draws keyed archives and typedstreams"
            )
            throw ExitCode(1)
        }
        let sink = OutputSink.standardOutput()
        try sink.write(keyed(archive, maxDepth: maxDepth))
        try sink.flush()
    }

    /// Scalar fields shown in a node's label, at most.
    static let fieldLimit = 8

    /// A DOT quoted string: `"` and `\` escaped, line breaks as `\n`, control characters as `\u{…}`.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case _ where TerminalText.needsEscape(scalar): out += "\\\\u{\(String(scalar.value, radix: 16))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A short one-line rendering of a field's text (strings cut to 40 characters).
    static func short(_ text: String) -> String {
        text.count > 40 ? String(text.prefix(40)) + "…" : text
    }

    private static func header(_ title: String) -> String {
        """
        digraph archive {
          graph [rankdir=LR, fontname="Helvetica", label=\(quoted(title)), labelloc=t];
          node [shape=box, style="rounded", fontname="Helvetica", fontsize=10];
          edge [fontname="Helvetica", fontsize=9];

        """
    }

    // MARK: Keyed archives

    /// The keyed archive's objects reachable from `$top`.
    static func keyed(_ archive: KeyedArchive, maxDepth: Int?) -> String {
        var out = header("\(archive.archiver), \(archive.objects.count) objects")
        out += "  top [shape=ellipse, label=\"$top\"];\n"
        var queue: [(uid: ArchiveUID, depth: Int)] = []
        var head = 0
        var seen = Set<UInt32>()
        var scalarRoots = 0

        /// The references in one field value: `(label, uid)` for each UID of a class instance, and the text
        /// of the scalar parts (strings and numbers in `$objects` are shown inline).
        func references(_ label: String, _ value: ArchiveValue) -> (edges: [(String, ArchiveUID)], text: String?) {
            switch value {
            case .uid(let uid):
                if uid.isNull { return ([], "nil") }
                guard let entry = archive[uid] else { return ([], "UID \(uid.rawValue) (out of range)") }
                if archive.archiveClass(of: uid) != nil { return ([(label, uid)], nil) }
                if case .dictionary = entry { return ([], "class") }
                if entry.stringValue == ArchiveKey.null { return ([], "nil") }
                return ([], ArchiveTree.scalar(entry))
            case .array(let elements):
                var edges: [(String, ArchiveUID)] = []
                var texts: [String] = []
                for (index, element) in elements.enumerated() {
                    if case .uid(let uid) = element, archive.archiveClass(of: uid) != nil {
                        edges.append(("\(label)[\(index)]", uid))
                    } else if texts.count < 4 {
                        texts.append(short(ArchiveTree.scalar(element)))
                    }
                }
                return (edges, edges.isEmpty ? "[\(elements.count)]" : nil)
            default:
                return ([], ArchiveTree.scalar(value))
            }
        }

        for (key, value) in archive.top {
            let (edges, text) = references(key, value)
            for (label, uid) in edges {
                out += "  top -> n\(uid.rawValue) [label=\(quoted(label))];\n"
                if seen.insert(uid.rawValue).inserted { queue.append((uid, 0)) }
            }
            if let text {
                scalarRoots += 1
                out += "  value\(scalarRoots) [shape=plaintext, label=\(quoted(short(text)))];\n"
                out += "  top -> value\(scalarRoots) [label=\(quoted(key))];\n"
            }
        }
        while head < queue.count {
            let (uid, depth) = queue[head]
            head += 1
            let name = archive.archiveClass(of: uid)?.name ?? "?"
            guard case .dictionary(let fields)? = archive[uid] else { continue }
            var lines = ["\(name) #\(uid.rawValue)"]
            let expand = maxDepth.map { depth < $0 } ?? true
            var edges: [(String, ArchiveUID)] = []
            for (key, value) in fields where key != ArchiveKey.class {
                let (fieldEdges, text) = references(key, value)
                edges += fieldEdges
                if let text, lines.count <= fieldLimit { lines.append("\(key) = \(short(text))") }
            }
            if lines.count > fieldLimit { lines.append("…") }
            let style = expand || edges.isEmpty ? "" : ", style=\"rounded,dashed\""
            out += "  n\(uid.rawValue) [label=\(quoted(lines.joined(separator: "\n")))\(style)];\n"
            guard expand else { continue }
            for (label, target) in edges {
                out += "  n\(uid.rawValue) -> n\(target.rawValue) [label=\(quoted(label))];\n"
                if seen.insert(target.rawValue).inserted { queue.append((target, depth + 1)) }
            }
        }
        return out + "}\n"
    }

    // MARK: Typedstreams

    /// The typedstream's objects reachable from its top-level values, numbered as `inspect` numbers them.
    static func typed(_ graph: TypedGraph, maxDepth: Int?) -> String {
        var numbers: [ObjectIdentifier: Int] = [:]
        let objects = graph.objects
        for (index, object) in objects.enumerated() { numbers[ObjectIdentifier(object)] = index }
        var out = header("typedstream (NSArchiver), \(objects.count) objects")
        out += "  top [shape=ellipse, label=\"top\"];\n"
        var queue: [(object: TypedObject, depth: Int)] = []
        var head = 0
        var seen = Set<ObjectIdentifier>()

        /// The objects in `value`, found through arrays and structs with a worklist, labelled.
        func objectsIn(_ label: String, _ value: TypedValue) -> [(String, TypedObject)] {
            var found: [(String, TypedObject)] = []
            var work = [(label, value)]
            while let (label, value) = work.popLast() {
                switch value {
                case .object(let object): found.append((label, object))
                case .array(let values, _), .structure(let values, _):
                    work += values.enumerated().reversed().map { ("\(label)[\($0.offset)]", $0.element) }
                default: break
                }
            }
            return found
        }

        let top = Array(graph.groups.joined())
        for (index, value) in top.enumerated() {
            for (label, object) in objectsIn("[\(index)]", value) {
                out += "  top -> n\(numbers[ObjectIdentifier(object)] ?? -1) [label=\(quoted(label))];\n"
                if seen.insert(ObjectIdentifier(object)).inserted { queue.append((object, 0)) }
            }
        }
        while head < queue.count {
            let (object, depth) = queue[head]
            head += 1
            let id = numbers[ObjectIdentifier(object)] ?? -1
            var lines = ["\(object.className) #\(id)"]
            var fields: [(String, TypedValue)] = []
            switch object.foundation {
            case .string(let s)?: lines.append(ArchiveTree.scalar(.string(short(s))))
            case .number(let n)?: lines.append(TypedTree.scalar(n))
            case .attributedString(let body)?:
                lines.append(ArchiveTree.scalar(.string(short(body.text))))
                fields = body.runs.enumerated().compactMap { index, run in
                    run.attributes.map { ("run \(index)", .object($0)) }
                }
            case .array(let values)?, .set(let values)?:
                fields = values.enumerated().map { ("[\($0.offset)]", $0.element) }
            case .dictionary(let pairs)?:
                for (index, pair) in pairs.enumerated() {
                    if case .string(let key)? = pair.key.object?.foundation {
                        fields.append((short(key), pair.value))
                    } else {
                        fields.append(("key \(index)", pair.key))
                        fields.append(("value \(index)", pair.value))
                    }
                }
            case .url(let relative, let base)?:
                lines.append(short(relative))
                if let base { fields.append(("base", .object(base))) }
            case .date(let seconds)?: lines.append(AppleDate.iso8601(seconds: seconds) ?? "\(seconds)")
            case .data(let bytes)?: lines.append(ArchiveTree.scalar(.data(bytes)))
            case nil:
                fields = Array(object.groups.joined()).enumerated().map { ("$\($0.offset)", $0.element) }
            default: break
            }
            var edges: [(String, TypedObject)] = []
            for (label, value) in fields {
                let inner = objectsIn(label, value)
                edges += inner
                if inner.isEmpty, lines.count <= fieldLimit { lines.append("\(label) = \(short(TypedTree.scalar(value)))") }
            }
            if lines.count > fieldLimit { lines.append("…") }
            let expand = maxDepth.map { depth < $0 } ?? true
            let style = expand || edges.isEmpty ? "" : ", style=\"rounded,dashed\""
            out += "  n\(id) [label=\(quoted(lines.joined(separator: "\n")))\(style)];\n"
            guard expand else { continue }
            for (label, target) in edges {
                out += "  n\(id) -> n\(numbers[ObjectIdentifier(target)] ?? -1) [label=\(quoted(label))];\n"
                if seen.insert(ObjectIdentifier(target)).inserted { queue.append((target, depth + 1)) }
            }
        }
        return out + "}\n"
    }
}
