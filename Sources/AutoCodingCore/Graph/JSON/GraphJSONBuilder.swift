import AutoCodingFast
import Foundation
import OrderedCollections

/// Turns parser events into a graph or a property-list value, following the JSON form described in
/// ArchiveGraph+JSON.swift. Each JSON object is interpreted when it closes, bottom-up; objects are created as shells by
/// `$uid` number so that `$ref`s (back, forward or cyclic) resolve to one instance.
struct GraphJSONBuilder {
    /// What a JSON value means at its place.
    enum Context: Equatable {
        /// The document: `{"$archiver": …, "$top": …}`.
        case document
        /// The `$top` object: literal keys, graph values.
        case top
        /// A graph value.
        case graph
        /// A property-list value (also the payload of every marker).
        case plist
    }

    /// A finished value.
    enum Node {
        case graph(ArchivedValue)
        case plist(ArchiveValue)
        case roots(OrderedDictionary<String, ArchivedValue>)
        case document(ArchiveGraph)
    }

    private struct Frame {
        var context: Context
        var isObject: Bool
        var entries: [(key: String, node: Node)] = []
        var items: [Node] = []
        /// Keys seen, kept only once an object is large enough for a linear duplicate scan to matter.
        var keySet: Set<String>?
        var pendingKey: String?
        /// The deepest nesting of plain containers among the children so far (an object counts 0).
        var childHeight = 0
        /// The order in which the object opened in the text, which is the order the writer printed it in.
        var openIndex = 0
    }

    /// The deepest nesting of plain containers (arrays, dictionaries, marker payloads) a value may have: twice
    /// what the binary-plist reader reads, for the marker objects that wrap values. Deeper JSON could never
    /// become a readable archive, and such a value would be released recursively by the runtime (a stack
    /// overflow near 40,000 levels). Objects reset the count: a chain of objects is not nesting.
    static let maxValueDepth = 2 * ArchiveReadingOptions().depthLimit

    private let rootContext: Context
    private var stack: [Frame] = []
    private var result: Node?
    private var shells: [Int: ArchivedObject] = [:]
    /// Shared scalars by `$uid`: a `$ref` to one gives a copy of the value, which shares its storage, so the
    /// writer prints it as a `$ref` again.
    private var scalars: [Int: ArchivedValue] = [:]
    private var defined: Set<Int> = []
    /// `$ref` numbers in order of first use, to report the first dangling one.
    private var referenced: [Int] = []
    private var referencedSet: Set<Int> = []
    /// Per class name, the chain of the object of that name that opened first (nil: printed without
    /// `$classes`, an empty chain). Objects close bottom-up, so this is known only at the end.
    private var firstChains: [String: (openIndex: Int, chain: [String]?)] = [:]
    /// Objects printed without `$classes`: they take their name's first chain once the text is read.
    private var chainless: [ArchivedObject] = []
    private var openCount = 0

    init(root: Context) { rootContext = root }

    // MARK: Events

    mutating func beginObject() throws {
        openCount += 1
        stack.append(Frame(context: try childContext(), isObject: true, openIndex: openCount))
    }

    mutating func key(_ key: String) throws {
        guard let last = stack.indices.last else { return }
        if stack[last].context == .document && key != GraphJSONKey.archiver && key != GraphJSONKey.top {
            throw ArchiveJSONError(
                .invalidForm, "unexpected key \"\(key)\" in the document; expected $archiver and $top")
        }
        // Mutate the frame in place: a copy would make every insert copy the key set.
        let isDuplicate: Bool
        if stack[last].keySet != nil {
            isDuplicate = stack[last].keySet?.insert(key).inserted == false
        } else {
            isDuplicate = stack[last].entries.contains { $0.key == key }
            if stack[last].entries.count >= 16 { stack[last].keySet = Set(stack[last].entries.map(\.key) + [key]) }
        }
        if isDuplicate { throw ArchiveJSONError(.invalidForm, "duplicate key \"\(key)\"") }
        stack[last].pendingKey = key
    }

    mutating func endObject() throws {
        guard let frame = stack.popLast() else { return }
        let node = try interpret(frame)
        if case .graph(.object) = node {
            try add(node, height: 0)
        } else {
            try add(node, height: frame.childHeight + 1)
        }
    }

    mutating func beginArray() throws {
        let context = try childContext()
        guard context == .graph || context == .plist else {
            throw ArchiveJSONError(
                .invalidForm,
                context == .document
                    ? "the document must be an object with $archiver and $top" : "$top must be an object")
        }
        stack.append(Frame(context: context, isObject: false))
    }

    mutating func endArray() throws {
        guard let frame = stack.popLast() else { return }
        let height = frame.childHeight + 1
        if frame.context == .graph {
            try add(.graph(.array(frame.items.map(Self.graphValue))), height: height)
        } else {
            try add(.plist(.array(frame.items.map(Self.plistValue))), height: height)
        }
    }

    mutating func scalar(_ token: JSONScalar) throws {
        let context = try childContext()
        switch (context, token) {
        case (.document, _):
            throw ArchiveJSONError(.invalidForm, "the document must be an object with $archiver and $top")
        case (.top, _):
            throw ArchiveJSONError(.invalidForm, "$top must be an object")
        case (.graph, .null): try add(.graph(.null))
        case (.graph, .string(let s)): try add(.graph(.reference(.string(s))))
        case (.graph, .number(let n)): try add(.graph(.inline(n)))
        case (.graph, .bool(let b)): try add(.graph(.inline(.bool(b))))
        case (.plist, .null): throw ArchiveJSONError(.invalidForm, "null is not a property-list value")
        case (.plist, .string(let s)): try add(.plist(.string(s)))
        case (.plist, .number(let n)): try add(.plist(n))
        case (.plist, .bool(let b)): try add(.plist(.bool(b)))
        }
    }

    /// The finished value, after checking that every `$ref` names a defined object.
    mutating func finish() throws -> Node {
        guard stack.isEmpty, let result else { throw ArchiveJSONError(.invalidSyntax, "unexpected end of input") }
        if let dangling = referenced.first(where: { !defined.contains($0) }) {
            throw ArchiveJSONError(
                .undefinedReference, "{\"$ref\": \(dangling)} names no object with \"$uid\": \(dangling)")
        }
        for object in chainless {
            if let chain = firstChains[object.archiveClass.name]?.chain { object.archiveClass.chain = chain }
        }
        return result
    }

    // MARK: Structure

    /// The context of the value about to start, from its parent container and key.
    private func childContext() throws -> Context {
        guard let parent = stack.last else { return rootContext }
        guard parent.isObject else { return parent.context }
        let key = parent.pendingKey ?? ""
        switch parent.context {
        case .document: return key == GraphJSONKey.top ? .top : .plist
        case .top: return .graph
        case .graph: return GraphJSONKey.isMarker(key) ? .plist : .graph
        case .plist: return .plist
        }
    }

    private mutating func add(_ node: Node, height: Int = 0) throws {
        guard height <= Self.maxValueDepth else {
            throw ArchiveJSONError(
                .depthLimitExceeded,
                "values nested deeper than \(Self.maxValueDepth) levels (no readable archive nests that deep)")
        }
        guard let last = stack.indices.last else {
            result = node
            return
        }
        stack[last].childHeight = max(stack[last].childHeight, height)
        if stack[last].isObject {
            stack[last].entries.append((stack[last].pendingKey ?? "", node))
            stack[last].pendingKey = nil
        } else {
            stack[last].items.append(node)
        }
    }

    private static func graphValue(_ node: Node) -> ArchivedValue {
        if case .graph(let value) = node { return value }
        return .null  // unreachable: children of graph containers are parsed in graph context
    }

    private static func plistValue(_ node: Node) -> ArchiveValue {
        if case .plist(let value) = node { return value }
        return .string("")  // unreachable: children of plist containers are parsed in plist context
    }

    // MARK: Objects

    private mutating func interpret(_ frame: Frame) throws -> Node {
        switch frame.context {
        case .document:
            return try document(frame.entries)
        case .top:
            var roots = OrderedDictionary<String, ArchivedValue>(minimumCapacity: frame.entries.count)
            for (key, node) in frame.entries {
                let value = Self.graphValue(node)
                // The archive readers refuse a container in `$top` (Apple writes only UIDs and scalars there), so
                // a graph holding one would write an archive that does not read back.
                switch value {
                case .array, .dictionary:
                    throw ArchiveJSONError(
                        .invalidForm, "$top[\"\(key)\"] is a container; $top holds objects, scalars and null only")
                default: roots[key] = value
                }
            }
            return .roots(roots)
        case .graph:
            return .graph(try graphObject(frame.entries, openIndex: frame.openIndex))
        case .plist:
            let markers = frame.entries.filter { GraphJSONKey.isMarker($0.key) }
            guard markers.isEmpty else { return .plist(try markedScalar(frame.entries, in: "a property-list value")) }
            var entries = OrderedDictionary<String, ArchiveValue>(minimumCapacity: frame.entries.count)
            for (key, node) in frame.entries { entries[GraphJSONKey.unescape(key)] = Self.plistValue(node) }
            return .plist(.dictionary(entries))
        }
    }

    private mutating func document(_ entries: [(key: String, node: Node)]) throws -> Node {
        var archiver: String?
        var roots: OrderedDictionary<String, ArchivedValue>?
        for (key, node) in entries {
            switch (key, node) {
            case (GraphJSONKey.archiver, .plist(.string(let name))): archiver = name
            case (GraphJSONKey.archiver, _): throw ArchiveJSONError(.invalidForm, "$archiver must be a string")
            case (GraphJSONKey.top, .roots(let values)): roots = values
            default: throw ArchiveJSONError(.invalidForm, "unexpected key \"\(key)\" in the document")
            }
        }
        guard let archiver else { throw ArchiveJSONError(.invalidForm, "the document has no $archiver") }
        guard let roots else { throw ArchiveJSONError(.invalidForm, "the document has no $top") }
        var graph = ArchiveGraph(archiver: archiver, roots: roots)
        // The `$uid`s the text gave its objects, so that printing the graph again gives the same numbers.
        graph.objectNumbers = ObjectNumbers(shells.map { ($0.value, $0.key) })
        return .document(graph)
    }

    /// A JSON object in graph context: an object, a `$ref`, a wrapper, a marked scalar, or a dictionary.
    private mutating func graphObject(_ entries: [(key: String, node: Node)], openIndex: Int) throws -> ArchivedValue {
        let markerKeys = entries.lazy.map(\.key).filter(GraphJSONKey.isMarker)
        guard let firstMarker = markerKeys.first else {
            var dictionary = OrderedDictionary<String, ArchivedValue>(minimumCapacity: entries.count)
            for (key, node) in entries { dictionary[GraphJSONKey.unescape(key)] = Self.graphValue(node) }
            return .dictionary(dictionary)
        }
        let has = { (key: String) in entries.contains { $0.key == key } }
        if has(GraphJSONKey.ref) {
            guard entries.count == 1, let number = try integer(entries[0].node, GraphJSONKey.ref) else {
                throw ArchiveJSONError(.invalidForm, "{\"$ref\": n} must have one integer and no other key")
            }
            if let scalar = scalars[number] { return scalar }
            if referencedSet.insert(number).inserted { referenced.append(number) }
            return .object(shell(number))
        }
        if has(GraphJSONKey.className) { return .object(try object(entries, openIndex: openIndex)) }
        for (marker, isReference) in [(GraphJSONKey.inline, false), (GraphJSONKey.entry, true)] where has(marker) {
            let uid = entries.first { $0.key == GraphJSONKey.uid }
            guard entries.count == (uid == nil ? 1 : 2), case .plist(let value)? = entries.first(where: { $0.key == marker })?.node
            else { throw ArchiveJSONError(.invalidForm, "{\"\(marker)\": value} must have no other key than \"$uid\"") }
            let scalar: ArchivedValue = isReference ? .reference(value) : .inline(value)
            if let uid { try defineScalar(scalar, uid.node) }
            return scalar
        }
        guard [GraphJSONKey.uid, GraphJSONKey.classes].contains(firstMarker) == false else {
            throw ArchiveJSONError(.invalidForm, "\"\(firstMarker)\" outside an object with \"$class\"")
        }
        // $data, $date, $time, $real, $cfuid: in place by default (only strings default to referenced).
        return .inline(try markedScalar(entries, in: "an object graph"))
    }

    /// `{"$class": …, "$classes": […], "$uid": n, fields…}`. Without `$classes`, the object has the chain of the
    /// first object of its class name (an empty one when that object has none either).
    private mutating func object(_ entries: [(key: String, node: Node)], openIndex: Int) throws -> ArchivedObject {
        var name: String?
        var chain: [String]?
        var number: Int?
        var fields = OrderedDictionary<String, ArchivedValue>(minimumCapacity: entries.count)
        for (key, node) in entries {
            switch key {
            case GraphJSONKey.className:
                guard case .plist(.string(let value)) = node else {
                    throw ArchiveJSONError(.invalidForm, "$class must be a string")
                }
                name = value
            case GraphJSONKey.classes:
                guard case .plist(.array(let names)) = node else {
                    throw ArchiveJSONError(.invalidForm, "$classes must be an array of strings")
                }
                chain = try names.map {
                    guard case .string(let s) = $0 else {
                        throw ArchiveJSONError(.invalidForm, "$classes must be an array of strings")
                    }
                    return s
                }
            case GraphJSONKey.uid:
                guard let value = try integer(node, GraphJSONKey.uid) else {
                    throw ArchiveJSONError(.invalidForm, "$uid must be an integer")
                }
                number = value
            default:
                guard !GraphJSONKey.isMarker(key) else {
                    throw ArchiveJSONError(
                        .invalidForm,
                        "unexpected marker \"\(key)\" in an object; escape field names as \"$\(key)\"")
                }
                let field = GraphJSONKey.unescape(key)
                // An instance's `$class` entry is its class reference: the writer puts the class there, so such a
                // field would be lost on the way to an archive (and no archive reader makes one).
                guard field != ArchiveKey.class else {
                    throw ArchiveJSONError(
                        .invalidForm,
                        "an object cannot have a field named \"$class\" (\"\(key)\"): archives keep its class there")
                }
                fields[field] = Self.graphValue(node)
            }
        }
        let archiveClass = ArchiveClass(name: name ?? "", chain: chain ?? [])
        if firstChains[archiveClass.name].map({ openIndex < $0.openIndex }) ?? true {
            firstChains[archiveClass.name] = (openIndex, chain)
        }
        let object: ArchivedObject
        if let number {
            guard defined.insert(number).inserted else { throw ArchiveJSONError(.duplicateUID, "\"$uid\": \(number) is defined twice") }
            object = shell(number)
            object.archiveClass = archiveClass
            object.fields = fields
        } else {
            object = ArchivedObject(archiveClass: archiveClass, fields: fields)
        }
        if chain == nil { chainless.append(object) }
        return object
    }

    /// Records a shared scalar under its `$uid`. The writer prints a shared scalar before its `$ref`s; a `$ref`
    /// met first has already been taken for an object, so it is refused.
    private mutating func defineScalar(_ scalar: ArchivedValue, _ node: Node) throws {
        guard let number = try integer(node, GraphJSONKey.uid) else {
            throw ArchiveJSONError(.invalidForm, "$uid must be an integer")
        }
        guard defined.insert(number).inserted else {
            throw ArchiveJSONError(.duplicateUID, "\"$uid\": \(number) is defined twice")
        }
        guard shells[number] == nil else {
            throw ArchiveJSONError(
                .undefinedReference, "{\"$ref\": \(number)} comes before the shared value it names; define it first")
        }
        scalars[number] = scalar
    }

    private mutating func shell(_ number: Int) -> ArchivedObject {
        if let object = shells[number] { return object }
        let object = ArchivedObject(archiveClass: ArchiveClass(name: ""))
        shells[number] = object
        return object
    }

    /// `{"$data": …}`, `{"$date": …, "$time": …}`, `{"$real": …}` or `{"$cfuid": n}`.
    private func markedScalar(_ entries: [(key: String, node: Node)], in place: String) throws -> ArchiveValue {
        let keys = Set(entries.map(\.key))
        func only(_ key: String) throws -> Node {
            guard keys == [key], let node = entries.first?.node else {
                throw ArchiveJSONError(.invalidForm, "{\"\(key)\": …} must have no other key")
            }
            return node
        }
        if keys.contains(GraphJSONKey.data) {
            guard case .plist(.string(let text)) = try only(GraphJSONKey.data),
                let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters)
            else { throw ArchiveJSONError(.invalidForm, "$data must be a base64 string") }
            return .data([UInt8](data))
        }
        if keys.contains(GraphJSONKey.date) || keys.contains(GraphJSONKey.time) {
            guard keys.isSubset(of: [GraphJSONKey.date, GraphJSONKey.time]) else {
                throw ArchiveJSONError(.invalidForm, "a date has only \"$date\" and \"$time\" keys")
            }
            var time: Double?
            for (key, node) in entries {
                if key == GraphJSONKey.time {
                    time = try real(node, key)
                } else if time == nil {
                    guard case .plist(.string(let text)) = node, let parsed = ISO8601Text.parse(text) else {
                        throw ArchiveJSONError(
                            .invalidForm, "$date must be an ISO 8601 date such as \"2001-01-01T00:00:00Z\"")
                    }
                    time = parsed
                }
            }
            return .date(Date(timeIntervalSinceReferenceDate: time ?? 0))
        }
        if keys.contains(GraphJSONKey.real) {
            return .real(try real(only(GraphJSONKey.real), GraphJSONKey.real))
        }
        if keys.contains(GraphJSONKey.cfuid) {
            guard case .plist(.integer(let value)) = try only(GraphJSONKey.cfuid), let raw = UInt32(exactly: value)
            else { throw ArchiveJSONError(.invalidForm, "$cfuid must be an integer from 0 to \(UInt32.max)") }
            return .uid(ArchiveUID(raw))
        }
        let marker = entries.first { GraphJSONKey.isMarker($0.key) }?.key ?? ""
        throw ArchiveJSONError(.invalidForm, "\"\(marker)\" is not allowed in \(place)")
    }

    private func integer(_ node: Node, _ key: String) throws -> Int? {
        guard case .plist(.integer(let value)) = node else { return nil }
        return Int(exactly: value)
    }

    private func real(_ node: Node, _ key: String) throws -> Double {
        switch node {
        case .plist(.real(let d)): return d
        case .plist(.integer(let i)): return Double(i)
        case .plist(.unsignedInteger(let u)): return Double(u)
        case .plist(.string(let s)):
            if let d = JSONNumberText.nonFinite(s) { return d }
        default: break
        }
        throw ArchiveJSONError(.invalidForm, "\(key) must be a number, \"nan\", \"inf\" or \"-inf\"")
    }
}
