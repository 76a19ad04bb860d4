import AutoCodingFast
import Foundation
import OrderedCollections

/// Walks a graph in document order with an explicit stack and reports it to a sink.
///
/// Every container on the way pushes a frame instead of recursing, so the depth of the walk is bounded by
/// memory, not by the thread's stack.
struct GraphJSONWriter<Sink: JSONSink> {
    var sink: Sink
    private var numbers: [ObjectIdentifier: Int] = [:]
    private var stack: [Frame] = []

    private enum Frame {
        case graphArray([ArchivedValue], Int)
        case graphDictionary(OrderedDictionary<String, ArchivedValue>, Int, escapesKeys: Bool)
        case plistArray([ArchiveValue], Int)
        case plistDictionary(OrderedDictionary<String, ArchiveValue>, Int)
        /// Closes a wrapper object (`$inline`, `$entry`, the document) once its value is written.
        case endObject
    }

    init(sink: Sink) { self.sink = sink }

    mutating func write(_ graph: ArchiveGraph) {
        sink.beginObject(compact: false)
        sink.key(GraphJSONKey.archiver)
        sink.string(graph.archiver)
        sink.key(GraphJSONKey.top)
        sink.beginObject(compact: false)
        stack.append(.endObject)
        // `$top` keys are never markers (the document level has its own keys), so they print as they are.
        stack.append(.graphDictionary(graph.roots, 0, escapesKeys: false))
        drain()
    }

    mutating func write(_ value: ArchiveValue) {
        writePlist(value)
        drain()
    }

    mutating func write(_ value: ArchivedValue) {
        writeGraph(value)
        drain()
    }

    private mutating func drain() {
        while let frame = stack.popLast() {
            switch frame {
            case .endObject:
                sink.endObject()
            case .graphArray(let elements, let i):
                guard i < elements.count else { sink.endArray(); continue }
                stack.append(.graphArray(elements, i + 1))
                writeGraph(elements[i])
            case .graphDictionary(let entries, let i, let escapesKeys):
                guard i < entries.count else { sink.endObject(); continue }
                stack.append(.graphDictionary(entries, i + 1, escapesKeys: escapesKeys))
                let (key, value) = entries.elements[i]
                sink.key(escapesKeys ? GraphJSONKey.escape(key) : key)
                writeGraph(value)
            case .plistArray(let elements, let i):
                guard i < elements.count else { sink.endArray(); continue }
                stack.append(.plistArray(elements, i + 1))
                writePlist(elements[i])
            case .plistDictionary(let entries, let i):
                guard i < entries.count else { sink.endObject(); continue }
                stack.append(.plistDictionary(entries, i + 1))
                let (key, value) = entries.elements[i]
                sink.key(GraphJSONKey.escape(key))
                writePlist(value)
            }
        }
    }

    /// Writes a scalar or opens a container (pushing its frame).
    private mutating func writeGraph(_ value: ArchivedValue) {
        switch value {
        case .null:
            sink.null()
        case .object(let object):
            let id = ObjectIdentifier(object)
            if let number = numbers[id] {
                sink.beginObject(compact: true)
                sink.key(GraphJSONKey.ref)
                sink.integer(Int64(number))
                sink.endObject()
                return
            }
            let number = numbers.count + 1
            numbers[id] = number
            sink.beginObject(compact: false)
            sink.key(GraphJSONKey.className)
            sink.string(object.archiveClass.name)
            if !object.archiveClass.chain.isEmpty {
                sink.key(GraphJSONKey.classes)
                sink.beginArray(compact: true)
                for name in object.archiveClass.chain { sink.string(name) }
                sink.endArray()
            }
            sink.key(GraphJSONKey.uid)
            sink.integer(Int64(number))
            stack.append(.graphDictionary(object.fields, 0, escapesKeys: true))
        case .array(let elements):
            sink.beginArray(compact: false)
            stack.append(.graphArray(elements, 0))
        case .dictionary(let entries):
            sink.beginObject(compact: false)
            stack.append(.graphDictionary(entries, 0, escapesKeys: true))
        case .inline(let scalar):
            writeScalar(scalar, isReference: false)
        case .reference(let scalar):
            writeScalar(scalar, isReference: true)
        }
    }

    /// A scalar in its plain form when that is its type's default placement, else wrapped.
    private mutating func writeScalar(_ scalar: ArchiveValue, isReference: Bool) {
        if Self.defaultIsReference(scalar) == isReference {
            writePlist(scalar)
            return
        }
        let isContainer = Self.defaultIsReference(scalar) == nil
        sink.beginObject(compact: !isContainer)
        sink.key(isReference ? GraphJSONKey.entry : GraphJSONKey.inline)
        stack.append(.endObject)
        writePlist(scalar)
    }

    /// Whether a scalar of this type is printed plainly when referenced (strings), when in place (everything
    /// else), or never (arrays and dictionaries, whose plain form would read as graph containers).
    private static func defaultIsReference(_ value: ArchiveValue) -> Bool? {
        switch value {
        case .string: true
        case .array, .dictionary: nil
        default: false
        }
    }

    private mutating func writePlist(_ value: ArchiveValue) {
        switch value {
        case .bool(let b): sink.bool(b)
        case .integer(let i): sink.integer(i)
        case .unsignedInteger(let u): sink.unsigned(u)
        case .real(let d):
            if d.isFinite {
                sink.real(d)
            } else {
                writeMarker(GraphJSONKey.real) { $0.string(JSONNumberText.nonFinite(d)) }
            }
        case .string(let s): sink.string(s)
        case .data(let bytes):
            writeMarker(GraphJSONKey.data) { $0.string(Data(bytes).base64EncodedString()) }
        case .date(let date):
            let time = date.timeIntervalSinceReferenceDate
            let iso = ISO8601Text.format(time)
            sink.beginObject(compact: true)
            if let iso {
                sink.key(GraphJSONKey.date)
                sink.string(iso.text)
            }
            if iso?.isExact != true {
                sink.key(GraphJSONKey.time)
                if time.isFinite { sink.real(time) } else { sink.string(JSONNumberText.nonFinite(time)) }
            }
            sink.endObject()
        case .uid(let uid):
            writeMarker(GraphJSONKey.cfuid) { $0.integer(Int64(uid.rawValue)) }
        case .array(let elements):
            sink.beginArray(compact: false)
            stack.append(.plistArray(elements, 0))
        case .dictionary(let entries):
            sink.beginObject(compact: false)
            stack.append(.plistDictionary(entries, 0))
        }
    }

    private mutating func writeMarker(_ key: String, _ value: (inout Sink) -> Void) {
        sink.beginObject(compact: true)
        sink.key(key)
        value(&sink)
        sink.endObject()
    }
}
