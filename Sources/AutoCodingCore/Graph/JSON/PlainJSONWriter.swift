import AutoCodingFast
import Foundation
import OrderedCollections

/// Walks a graph or a property list with an explicit stack and reports its plain JSON form to a sink.
///
/// Shared objects print in full at every reference; an object met again inside itself prints as
/// `{"$cycle": "ClassName"}`. What the expansion costs is bounded by the sink's budget: every step of the walk
/// writes output, and the walk stops as soon as the sink is full.
struct PlainJSONWriter<Sink: JSONSink> {
    var sink: Sink
    private let options: PlainJSONOptions
    /// The objects being printed, from the document down to the current value: meeting one again is a cycle.
    private var onPath = Set<ObjectIdentifier>()
    private var stack: [Frame] = []

    /// The marker of a cut cycle.
    static var cycleKey: String { "$cycle" }

    private enum Frame {
        /// A JSON array of graph values; closes itself.
        case values([ArchivedValue], Int)
        /// A JSON object of fields or in-place dictionary entries; closes itself.
        case fields(OrderedDictionary<String, ArchivedValue>, Int)
        /// A JSON object of an `NSDictionary`'s entries; closes itself.
        case entries([String], [ArchivedValue], Int)
        /// A JSON array of `{"key", "value"}` objects; closes itself.
        case pairs([ArchivedValue], [ArchivedValue], Int)
        case plistValues([ArchiveValue], Int)
        case plistEntries(OrderedDictionary<String, ArchiveValue>, Int)
        case value(ArchivedValue)
        case key(String)
        case endObject
        /// The object's value has been printed: it is no longer on the path.
        case leave(ObjectIdentifier)
        /// A nested archive or plist has been printed: one level less of nesting.
        case leaveNested
    }

    /// The levels of nested data being printed now.
    private var nestedLevel = 0

    init(sink: Sink, options: PlainJSONOptions) {
        self.sink = sink
        self.options = options
    }

    /// The `$top` entries as one JSON object: `{"root": …}`.
    mutating func write(_ graph: ArchiveGraph) {
        sink.beginObject(compact: false)
        stack.append(.fields(graph.roots, 0))
        drain()
    }

    mutating func write(_ value: ArchivedValue) {
        writeGraph(value)
        drain()
    }

    mutating func write(_ value: ArchiveValue) {
        writePlist(value)
        drain()
    }

    private mutating func drain() {
        // A sink past its budget ends the walk: the caller throws rather than print a partial document.
        while !sink.isFull, let frame = stack.popLast() {
            switch frame {
            case .values(let elements, let i):
                guard i < elements.count else { sink.endArray(); continue }
                stack.append(.values(elements, i + 1))
                writeGraph(elements[i])
            case .fields(let entries, let i):
                guard i < entries.count else { sink.endObject(); continue }
                stack.append(.fields(entries, i + 1))
                sink.key(entries.keys[i])
                writeGraph(entries.values[i])
            case .entries(let keys, let values, let i):
                guard i < keys.count else { sink.endObject(); continue }
                stack.append(.entries(keys, values, i + 1))
                sink.key(keys[i])
                writeGraph(values[i])
            case .pairs(let keys, let values, let i):
                guard i < keys.count else { sink.endArray(); continue }
                stack.append(.pairs(keys, values, i + 1))
                sink.beginObject(compact: false)
                sink.key("key")
                stack.append(.endObject)
                stack.append(.value(values[i]))
                stack.append(.key("value"))
                writeGraph(keys[i])
            case .plistValues(let elements, let i):
                guard i < elements.count else { sink.endArray(); continue }
                stack.append(.plistValues(elements, i + 1))
                writePlist(elements[i])
            case .plistEntries(let entries, let i):
                guard i < entries.count else { sink.endObject(); continue }
                stack.append(.plistEntries(entries, i + 1))
                sink.key(entries.keys[i])
                writePlist(entries.values[i])
            case .value(let value):
                writeGraph(value)
            case .key(let key):
                sink.key(key)
            case .endObject:
                sink.endObject()
            case .leave(let id):
                onPath.remove(id)
            case .leaveNested:
                nestedLevel -= 1
            }
        }
    }

    /// Writes a scalar or opens a container (pushing its frame).
    private mutating func writeGraph(_ value: ArchivedValue) {
        switch value {
        case .null:
            sink.null()
        case .inline(let scalar), .reference(let scalar):
            writePlist(scalar)
        case .array(let elements):
            sink.beginArray(compact: false)
            stack.append(.values(elements, 0))
        case .dictionary(let entries):
            sink.beginObject(compact: false)
            stack.append(.fields(entries, 0))
        case .object(let object):
            let id = ObjectIdentifier(object)
            guard onPath.insert(id).inserted else {
                sink.beginObject(compact: true)
                sink.key(Self.cycleKey)
                sink.string(object.className)
                sink.endObject()
                return
            }
            stack.append(.leave(id))
            switch PlainJSONForm(object, runs: options.includesAttributeRuns) {
            case .value(let replacement):
                writeGraph(replacement)
            case .list(let elements):
                sink.beginArray(compact: false)
                stack.append(.values(elements, 0))
            case .entries(let keys, let values):
                sink.beginObject(compact: false)
                stack.append(.entries(keys, values, 0))
            case .pairs(let keys, let values):
                sink.beginArray(compact: false)
                stack.append(.pairs(keys, values, 0))
            case .fields:
                sink.beginObject(compact: false)
                if options.includesClassNames {
                    sink.key(GraphJSONKey.className)
                    sink.string(object.className)
                }
                stack.append(.fields(object.fields, 0))
            }
        }
    }

    /// Decodes data that is a binary or XML plist, keyed archive or typedstream and opens its plain form in
    /// place; false (nothing written) when it is none of these or does not decode. The bytes are spent from the
    /// budget whether or not they decode.
    private mutating func writeNested(_ bytes: [UInt8]) -> Bool {
        let isTypedstream = Typedstream.hasSignature(bytes)
        guard isTypedstream || bytes.starts(with: Array("bplist".utf8)) || bytes.starts(with: Array("<?xml".utf8))
            || bytes.starts(with: Array("<plist".utf8))
        else { return false }
        sink.spend(bytes.count)
        let roots: OrderedDictionary<String, ArchivedValue>
        if isTypedstream {
            guard let graph = try? TypedGraph(bytes: bytes) else { return false }
            roots = graph.keyedArchiveGraph().roots
        } else {
            switch try? ArchiveFile.contents(of: bytes) {
            case .keyedArchive(let graph)?: roots = graph.roots
            case .propertyList(let value)?:
                nestedLevel += 1
                stack.append(.leaveNested)
                writePlist(value)
                return true
            default: return false
            }
        }
        nestedLevel += 1
        stack.append(.leaveNested)
        sink.beginObject(compact: false)
        stack.append(.fields(roots, 0))
        return true
    }

    private mutating func writePlist(_ value: ArchiveValue) {
        switch value {
        case .bool(let b): sink.bool(b)
        case .integer(let i): sink.integer(i)
        case .unsignedInteger(let u): sink.unsigned(u)
        case .real(let d):
            if d.isFinite { sink.real(d) } else { sink.string(JSONNumberText.nonFinite(d)) }
        case .string(let s): sink.string(s)
        case .data(let bytes):
            if nestedLevel < options.nestedLevels, writeNested(bytes) { return }
            sink.string(Data(bytes).base64EncodedString())
        case .date(let date):
            let time = date.timeIntervalSinceReferenceDate
            if let iso = ISO8601Text.format(time) {
                sink.string(iso.text)
            } else if time.isFinite {
                sink.real(time)
            } else {
                sink.string(JSONNumberText.nonFinite(time))
            }
        case .uid(let uid): sink.integer(Int64(uid.rawValue))
        case .array(let elements):
            sink.beginArray(compact: false)
            stack.append(.plistValues(elements, 0))
        case .dictionary(let entries):
            sink.beginObject(compact: false)
            stack.append(.plistEntries(entries, 0))
        }
    }
}
