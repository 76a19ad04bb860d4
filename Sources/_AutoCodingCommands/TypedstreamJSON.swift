import AutoCodingCore
import Foundation

/// JSON for typedstreams: an iMessage body as `{"text", "runs": [{"location", "length", "text", "attributes"}]}`,
/// any other stream as its graph, objects as `{"$class", "$id", "$classes", "groups"}` the first time and
/// `{"$ref": id}` after that.
enum TypedstreamJSON {
    /// The JSON of a typedstream file's contents.
    static func json(_ bytes: [UInt8], options: ArchiveReadingOptions) throws -> String {
        let graph = try TypedGraph(bytes: bytes, options: options)
        if case .attributedString? = graph.root?.foundation,
            let body = try? IMessageText(attributedBody: bytes, options: options)
        {
            return json(body)
        }
        return json(graph, depthLimit: options.depthLimit)
    }

    static func json(_ body: IMessageText) -> String {
        var runs: [String] = []
        for run in body.runs {
            var line = JSONLine()
            line.int("location", run.location)
            line.int("length", run.length)
            line.string("text", run.text)
            line.raw(
                "attributes",
                "{" + run.attributes.map { JSONLine.quoted($0.key) + ":" + json($0.value) }.joined(separator: ",") + "}"
            )
            runs.append(line.finished)
        }
        var line = JSONLine()
        line.string("text", body.text)
        line.raw("runs", "[" + runs.joined(separator: ",") + "]")
        return line.finished
    }

    static func json(_ value: IMessageText.Value) -> String {
        switch value {
        case .string(let s): return JSONLine.quoted(s)
        case .integer(let v): return String(v)
        case .real(let v): return v.isFinite ? "\(v)" : JSONLine.quoted("\(v)")
        case .url(let s): return "{\"$url\":\(JSONLine.quoted(s))}"
        case .data(let d): return "{\"$data\":\"\(Data(d).base64EncodedString())\"}"
        case .keyedArchive(let graph): return graph.json(prettyPrinted: false)
        case .array(let values): return "[" + values.map(json).joined(separator: ",") + "]"
        case .dictionary(let pairs):
            return "{" + pairs.map { JSONLine.quoted($0.key) + ":" + json($0.value) }.joined(separator: ",") + "}"
        case .object(let name): return "{\"$class\":\(JSONLine.quoted(name))}"
        case .null: return "null"
        }
    }

    /// The generic graph; nesting deeper than `depthLimit` prints `{"$truncated": true}`.
    static func json(_ graph: TypedGraph, depthLimit: Int) -> String {
        var ids: [ObjectIdentifier: Int] = [:]
        var out = "{\"byteOrder\":\"\(graph.byteOrder.rawValue)\",\"systemVersion\":\(graph.systemVersion),\"groups\":["
        out += graph.groups.map { group(encoding: $0.encoding, $0.values, &ids, depthLimit) }.joined(separator: ",")
        return out + "]}"
    }

    private static func group(
        encoding: String,
        _ values: [TypedValue],
        _ ids: inout [ObjectIdentifier: Int],
        _ depth: Int
    )
        -> String
    {
        "{\"types\":\(JSONLine.quoted(encoding)),\"values\":["
            + values.map { json($0, &ids, depth) }.joined(separator: ",")
            + "]}"
    }

    private static func json(_ value: TypedValue, _ ids: inout [ObjectIdentifier: Int], _ depth: Int) -> String {
        guard depth > 0 else { return "{\"$truncated\":true}" }
        switch value {
        case .signed(let v, _): return String(v)
        case .unsigned(let v, _): return String(v)
        case .float(let v): return v.isFinite ? "\(v)" : JSONLine.quoted("\(v)")
        case .double(let v): return v.isFinite ? "\(v)" : JSONLine.quoted("\(v)")
        case .nil, .ignored: return "null"
        case .cString(let s): return "{\"$cstring\":\(JSONLine.quoted(s.text))}"
        case .atom(let b):
            return b.map { "{\"$atom\":\(JSONLine.quoted(String(decoding: $0, as: UTF8.self)))}" } ?? "null"
        case .selector(let b):
            return b.map { "{\"$selector\":\(JSONLine.quoted(String(decoding: $0, as: UTF8.self)))}" } ?? "null"
        case .string(let b): return JSONLine.quoted(String(decoding: b, as: UTF8.self))
        case .class(let chain):
            return "{\"$classChain\":[" + chain.map { JSONLine.quoted($0.name) }.joined(separator: ",") + "]}"
        case .bytes(let b, _): return "{\"$data\":\"\(Data(b).base64EncodedString())\"}"
        case .array(let values, _), .structure(let values, _):
            return "[" + values.map { json($0, &ids, depth - 1) }.joined(separator: ",") + "]"
        case .object(let object):
            if let id = ids[ObjectIdentifier(object)] { return "{\"$ref\":\(id)}" }
            let id = ids.count
            ids[ObjectIdentifier(object)] = id
            let chain = object.classes.map { "\(JSONLine.quoted($0.name)):\($0.version)" }.joined(separator: ",")
            let groups = object.groups.map { group(encoding: $0.encoding, $0.values, &ids, depth - 1) }
            return "{\"$class\":\(JSONLine.quoted(object.className)),\"$id\":\(id),\"$classes\":{\(chain)},\"groups\":["
                + groups.joined(separator: ",") + "]}"
        }
    }
}
