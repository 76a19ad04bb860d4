import AutoCodingCore
import Foundation

/// JSON for typedstreams: an iMessage body as `{"text", "runs": [{"location", "length", "text", "attributes"}]}`,
/// any other stream as its graph, objects as `{"$class", "$classes", "$versions", "$id", "groups"}` the first time
/// and `{"$ref": id}` after that.
///
/// `$id` is the object's number in order of first appearance in the stream, the `#n` of `inspect`. `$classes` is
/// the chain of class names, most derived first, as in keyed-archive JSON, and `$versions` their versions; both
/// print with the first object of a class name, and again only where an object's chain differs from that one.
///
/// The text is built within an output budget that every append spends, so a value repeated many times (the
/// body's attributes have no references: a shared string prints at each use) stops at the budget instead of
/// being built in full first.
enum TypedstreamJSON {
    /// The JSON of a typedstream file's contents, within `maxOutputBytes`.
    static func json(_ bytes: [UInt8], options: ArchiveReadingOptions, maxOutputBytes: Int) throws -> String {
        let graph = try TypedGraph(bytes: bytes, options: options)
        defer { graph.breakReferenceCycles() }
        return try json(graph, inputBytes: bytes.count, options: options, maxOutputBytes: maxOutputBytes)
    }

    /// The JSON of the graph of a typedstream of `inputBytes` bytes, within `maxOutputBytes`. The graph stays the
    /// caller's to free (its cycles too); the keyed archives that an iMessage body's attributes hold are freed here.
    static func json(
        _ graph: TypedGraph, inputBytes: Int, options: ArchiveReadingOptions, maxOutputBytes: Int
    ) throws -> String {
        var out = BudgetedText(limit: maxOutputBytes)
        if case .attributedString? = graph.root?.foundation,
            let body = try? IMessageText(graph: graph, inputBytes: inputBytes, options: options)
        {
            defer { IMessageText.breakReferenceCycles(in: body.runs.flatMap { $0.attributes.map(\.value) }) }
            try write(body, &out)
        } else {
            var writer = GraphWriter(graph: graph, depthLimit: options.depthLimit)
            try writer.write(graph, &out)
        }
        return out.text
    }

    /// Text that throws once it would pass its budget: a quoted string is measured before it is written, other
    /// pieces are checked after every append.
    struct BudgetedText {
        private(set) var text = ""
        let limit: Int

        init(limit: Int) { self.limit = limit }

        mutating func append(_ piece: String) throws(ArchiveError) {
            text += piece
            try check()
        }

        mutating func appendQuoted(_ string: String) throws(ArchiveError) {
            // The escaped length, not the string's: control characters take six bytes each.
            guard let literal = JSONStringLiteral.quoted(string, maxLength: remaining) else { throw exceeded }
            text += literal
        }

        /// The bytes left before the budget.
        var remaining: Int { max(limit - text.utf8.count, 0) }

        /// Throws unless `count` more bytes fit: checked before building a large piece.
        func reserve(_ count: Int) throws(ArchiveError) {
            guard count <= remaining else { throw exceeded }
        }

        private func check() throws(ArchiveError) {
            if text.utf8.count > limit { throw exceeded }
        }

        private var exceeded: ArchiveError { OutputBudget.exceeded(limit, what: "the JSON text") }
    }

    // MARK: iMessage bodies

    static func write(_ body: IMessageText, _ out: inout BudgetedText) throws {
        try out.append("{\"text\":")
        try out.appendQuoted(body.text)
        try out.append(",\"runs\":[")
        for (index, run) in body.runs.enumerated() {
            try out.append((index == 0 ? "" : ",") + "{\"location\":\(run.location),\"length\":\(run.length),\"text\":")
            try out.appendQuoted(run.text)
            try out.append(",\"attributes\":{")
            for (i, attribute) in run.attributes.enumerated() {
                if i > 0 { try out.append(",") }
                try out.appendQuoted(attribute.key)
                try out.append(":")
                try write(attribute.value, &out)
            }
            try out.append("}}")
        }
        try out.append("]}")
    }

    /// An attribute value. Its nesting is bounded by ``IMessageText``, which maps values to a fixed depth.
    static func write(_ value: IMessageText.Value, _ out: inout BudgetedText) throws {
        switch value {
        case .string(let s): try out.appendQuoted(s)
        case .integer(let v): try out.append(String(v))
        case .real(let v): try v.isFinite ? out.append("\(v)") : out.appendQuoted("\(v)")
        case .url(let s):
            try out.append("{\"$url\":")
            try out.appendQuoted(s)
            try out.append("}")
        case .data(let d):
            try out.reserve(d.count)
            try out.append("{\"$data\":\"\(Data(d).base64EncodedString())\"}")
        case .keyedArchive(let graph):
            try out.append(try graph.json(prettyPrinted: false, maxOutputBytes: out.remaining))
        case .array(let values):
            try out.append("[")
            for (i, element) in values.enumerated() {
                if i > 0 { try out.append(",") }
                try write(element, &out)
            }
            try out.append("]")
        case .dictionary(let pairs):
            try out.append("{")
            for (i, pair) in pairs.enumerated() {
                if i > 0 { try out.append(",") }
                try out.appendQuoted(pair.key)
                try out.append(":")
                try write(pair.value, &out)
            }
            try out.append("}")
        case .object(let name):
            try out.append("{\"$class\":")
            try out.appendQuoted(name)
            try out.append("}")
        case .null: try out.append("null")
        }
    }

    // MARK: The generic graph

    /// Writes a graph's groups; nesting deeper than `depthLimit` prints `{"$truncated": true}`.
    struct GraphWriter {
        let depthLimit: Int
        /// Object numbers in order of first appearance, as `inspect` numbers them.
        private let numbers: [ObjectIdentifier: Int]
        private var printed = Set<ObjectIdentifier>()
        /// The chain printed with the first object of each class name.
        private var firstChains: [String: [TypedClass]] = [:]

        init(graph: TypedGraph, depthLimit: Int) {
            self.depthLimit = depthLimit
            var numbers: [ObjectIdentifier: Int] = [:]
            for (index, object) in graph.objects.enumerated() { numbers[ObjectIdentifier(object)] = index }
            self.numbers = numbers
        }

        mutating func write(_ graph: TypedGraph, _ out: inout BudgetedText) throws {
            try out.append("{\"byteOrder\":\"\(graph.byteOrder.rawValue)\",\"systemVersion\":\(graph.systemVersion),\"groups\":[")
            for (i, group) in graph.groups.enumerated() {
                if i > 0 { try out.append(",") }
                try write(group, depthLimit, &out)
            }
            try out.append("]}")
        }

        private mutating func write(_ group: TypedGroup, _ depth: Int, _ out: inout BudgetedText) throws {
            try out.append("{\"types\":")
            try out.appendQuoted(group.encoding)
            try out.append(",\"values\":[")
            for (i, value) in group.enumerated() {
                if i > 0 { try out.append(",") }
                try write(value, depth, &out)
            }
            try out.append("]}")
        }

        private mutating func write(_ value: TypedValue, _ depth: Int, _ out: inout BudgetedText) throws {
            guard depth > 0 else { return try out.append("{\"$truncated\":true}") }
            switch value {
            case .signed(let v, _): try out.append(String(v))
            case .unsigned(let v, _): try out.append(String(v))
            case .float(let v): try v.isFinite ? out.append("\(v)") : out.appendQuoted("\(v)")
            case .double(let v): try v.isFinite ? out.append("\(v)") : out.appendQuoted("\(v)")
            case .nil, .ignored: try out.append("null")
            case .cString(let s): try marker("$cstring", s.text, &out)
            case .atom(let b):
                guard let b else { return try out.append("null") }
                try marker("$atom", String(decoding: b, as: UTF8.self), &out)
            case .selector(let b):
                guard let b else { return try out.append("null") }
                try marker("$selector", String(decoding: b, as: UTF8.self), &out)
            case .string(let b): try out.appendQuoted(String(decoding: b, as: UTF8.self))
            case .class(let chain):
                try out.append("{\"$classChain\":[")
                for (i, typedClass) in chain.enumerated() {
                    if i > 0 { try out.append(",") }
                    try out.appendQuoted(typedClass.name)
                }
                try out.append("]}")
            case .bytes(let b, _):
                try out.reserve(b.count)
                try out.append("{\"$data\":\"\(Data(b).base64EncodedString())\"}")
            case .array(let values, _), .structure(let values, _):
                try out.append("[")
                for (i, element) in values.enumerated() {
                    if i > 0 { try out.append(",") }
                    try write(element, depth - 1, &out)
                }
                try out.append("]")
            case .object(let object):
                let id = ObjectIdentifier(object)
                let number = numbers[id] ?? -1
                guard printed.insert(id).inserted else { return try out.append("{\"$ref\":\(number)}") }
                try out.append("{\"$class\":")
                try out.appendQuoted(object.className)
                let first = firstChains[object.className]
                if first == nil { firstChains[object.className] = object.classes }
                if first != object.classes {
                    try out.append(",\"$classes\":[")
                    for (i, typedClass) in object.classes.enumerated() {
                        if i > 0 { try out.append(",") }
                        try out.appendQuoted(typedClass.name)
                    }
                    try out.append("],\"$versions\":[" + object.classes.map { String($0.version) }.joined(separator: ",") + "]")
                }
                try out.append(",\"$id\":\(number),\"groups\":[")
                for (i, group) in object.groups.enumerated() {
                    if i > 0 { try out.append(",") }
                    try write(group, depth - 1, &out)
                }
                try out.append("]}")
            }
        }

        private func marker(_ key: String, _ text: String, _ out: inout BudgetedText) throws {
            try out.append("{\"\(key)\":")
            try out.appendQuoted(text)
            try out.append("}")
        }
    }
}
