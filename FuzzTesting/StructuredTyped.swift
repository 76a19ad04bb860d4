// The typedstream generator of the structure-aware targets: a program of steps builds a `TypedGraph` (objects of
// Foundation and NeXT classes laid out as NSArchiver writes them, custom classes with groups of any type encoding,
// class chains with versions, shared objects, cycles, DAGs, deep chains, attributed strings with runs and
// iMessage attributes, NSData holding a keyed archive), sometimes with a value that does not match its encoding
// (a reference number near Int64.max, a count of 2^62, `[67108800!]`), and writes it with the package's writer
// (`TypedGraph.typedstreamBytes()`).
import AutoCodingCore
import Foundation

struct GeneratedStream {
    var bytes: [UInt8]
    var graph: TypedGraph
    /// Whether bytes were spliced or patched after writing (else `bytes` is the writer's output).
    var patched: Bool
}

struct TypedstreamBuilder {
    var program: Program
    /// Every object made so far, for shared references and cycles (an object is listed before its groups are
    /// filled, so a descendant referring to it makes a cycle).
    private var made: [TypedObject] = []
    private var bulks = 0
    private var cStrings: [TypedCString] = [TypedCString("q"), TypedCString("d"), TypedCString("i")]

    init(_ program: Program) { self.program = program }

    mutating func build() -> GeneratedStream {
        var groups: [TypedGroup] = []
        // The root: an attributed string (iMessage's attributedBody) half of the time.
        let root: TypedValue = program.chance(128) ? .object(attributedString(depth: 0)) : objectValue(depth: 0)
        groups.append(TypedGroup(encoding: "@", values: [root]))
        for _ in 0..<program.int(below: 3) { groups.append(group(depth: 1)) }
        let graph = TypedGraph(
            groups: groups,
            byteOrder: program.chance(32) ? .big : .little,
            systemVersion: program.chance(16) ? program.int64() : program.pick([1000, 930, 1000])
        )
        var bytes = graph.typedstreamBytes()
        let unpatched = bytes
        if program.chance(16), bytes.count > 16 {
            // A tagged 8-byte integer (0x87) spliced in where a shared string, a reference or a count is read: the
            // writer numbers shared strings itself, so only a splice makes a reference number near Int64.max.
            let at = program.chance(128) ? 16 : 16 + program.int(below: bytes.count - 16)
            let value = UInt64(bitPattern: program.pick(Program.edges))
            let integer = [0x87] + (0..<8).map { UInt8(truncatingIfNeeded: graph.byteOrder == .big ? value >> (56 - 8 * UInt64($0)) : value >> (8 * UInt64($0))) }
            bytes.insert(contentsOf: integer, at: at)
        }
        if program.chance(16), bytes.count > 16 {
            for _ in 0..<1 + program.int(below: 3) {
                let at = 16 + program.int(below: bytes.count - 16)
                bytes[at] = program.chance(128) ? program.byte() : bytes[at] ^ (1 << UInt8(program.int(below: 8)))
            }
        }
        return GeneratedStream(bytes: bytes, graph: graph, patched: bytes != unpatched)
    }

    // MARK: Objects

    private mutating func objectValue(depth: Int) -> TypedValue {
        switch program.int(below: 32) {
        case 0: return .nil
        case 1, 2, 3: if !made.isEmpty { return .object(program.pick(made)) }  // shared, or a cycle
        case 4 where bulks < 2:
            bulks += 1
            return .object(bulk())
        default: break
        }
        return .object(object(depth: depth))
    }

    private mutating func register(_ object: TypedObject) -> TypedObject {
        made.append(object)
        return object
    }

    private mutating func object(depth: Int) -> TypedObject {
        if depth > 12 { return register(.string(program.string())) }
        switch program.int(below: 20) {
        case 0, 1: return register(.string(program.string(), mutable: program.bool()))
        case 2: return register(.number(program.int64()))
        case 3: return register(.number(program.double()))
        case 4: return register(.data(program.chance(16) ? keyedArchiveBytes() : program.bytes(max: 24)))
        case 5: return register(.date(program.double()))
        case 6, 7:
            let array = register(TypedObject(classes: chain(program.pick([["NSArray", "NSObject"], ["NSMutableArray", "NSArray", "NSObject"], ["NSSet", "NSObject"]]))))
            let elements = (0..<count()).map { _ in objectValue(depth: depth + 1) }
            array.groups = TypedObject.array(elements).groups
            corruptCount(array)
            return array
        case 8, 9:
            let dictionary = register(TypedObject(classes: chain(["NSDictionary", "NSObject"])))
            let pairs = (0..<count()).map { _ in (key: TypedValue.object(keyString()), value: objectValue(depth: depth + 1)) }
            dictionary.groups = TypedObject.dictionary(pairs).groups
            corruptCount(dictionary)
            return dictionary
        case 10: return attributedString(depth: depth + 1)
        case 11:
            // NSURL: has-base flag, the base, the relative string.
            let url = register(TypedObject(classes: chain(["NSURL", "NSObject"])))
            let hasBase = program.bool()
            var groups = [TypedGroup(encoding: "c", values: [.signed(hasBase ? 1 : 0, type: UInt8(ascii: "c"))])]
            if hasBase { groups.append(TypedGroup(encoding: "@", values: [objectValue(depth: depth + 1)])) }
            groups.append(TypedGroup(encoding: "@", values: [.object(.string(program.string()))]))
            url.groups = groups
            return url
        case 12:
            // NSValue (and NSNumber of any type): a type string, then a value of that type.
            let encoding = typeEncoding(depth: 0)
            let object = register(TypedObject(classes: chain([program.pick(["NSValue", "NSNumber"]), "NSObject"])))
            object.groups = [
                TypedGroup(encoding: "*", values: [.cString(TypedCString(encoding))]),
                TypedGroup(encoding: encoding, values: values(for: encoding, depth: depth + 1)),
            ]
            return object
        case 13: return register(TypedObject(classes: chain(["NSNull", "NSObject"])))
        case 14:
            // NeXT classes: List, HashTable, Storage, StreamTable, NSColor, NSFont.
            let name = program.pick(["List", "HashTable", "Storage", "StreamTable", "NSColor", "NSFont", "NSCalendarDate", "NSCountedSet"])
            let object = register(TypedObject(classes: chain([name, "Object"])))
            object.groups = (0..<1 + program.int(below: 4)).map { _ in group(depth: depth + 1) }
            return object
        default:
            // A custom class: a chain with versions, groups of any encoding.
            let names = (0..<1 + program.int(below: 3)).map { _ in program.chance(200) ? program.pick(["Node", "Person", "NSObject", "NSView", "NSResponder"]) : program.string() }
            let object = register(TypedObject(classes: chain(names)))
            object.groups = (0..<program.int(below: 5)).map { _ in group(depth: depth + 1) }
            return object
        }
    }

    private mutating func chain(_ names: [String]) -> [TypedClass] {
        names.map { TypedClass($0, version: program.chance(24) ? program.int64() : 0) }
    }

    private mutating func count() -> Int { program.chance(24) ? program.size(0...3000) : program.int(below: 5) }

    private mutating func keyString() -> TypedObject {
        register(.string(program.chance(128) ? program.pick(Self.attributeKeys) : program.string()))
    }

    static let attributeKeys = [
        IMessageText.Key.messagePart, IMessageText.Key.link, IMessageText.Key.mention, IMessageText.Key.fileTransferGUID,
        IMessageText.Key.textEffect, "NSFont", "NSColor", "__kIMDataDetectedAttributeName", "__kIMBaseWritingDirectionAttributeName",
    ]

    /// Sometimes replaces the count group of an array or dictionary by an edge value (2^62, Int64.max …).
    private mutating func corruptCount(_ object: TypedObject) {
        guard program.chance(24), !object.groups.isEmpty else { return }
        let count = program.chance(128) ? program.pick(Program.edges) : program.int64()
        object.groups[0] = TypedGroup(encoding: program.pick(["i", "q", "I"]), values: [.signed(count, type: UInt8(ascii: "q"))])
    }

    /// An attributed string with runs (lengths sometimes past the text or near the integer limits) whose
    /// attribute dictionaries hold iMessage keys and nested values (shared, so a DAG, sometimes).
    private mutating func attributedString(depth: Int) -> TypedObject {
        let text = program.string()
        var runs: [(length: Int, attributes: TypedObject)] = []
        var dictionaries: [TypedObject] = []
        for _ in 0..<1 + program.int(below: 5) {
            let length: Int
            // FUZZ_SKIP=runs keeps run lengths small, to explore past the run-length overflow until its fix is merged.
            switch enabled("runs") ? program.int(below: 8) : 2 + program.int(below: 6) {
            case 0: length = Int(truncatingIfNeeded: program.int64())
            case 1: length = Int.max - program.int(below: 4)
            default: length = text.utf16.count / 2 + program.int(below: 3)
            }
            let attributes: TypedObject
            if !dictionaries.isEmpty, program.bool() {
                attributes = program.pick(dictionaries)
            } else {
                attributes = register(TypedObject(classes: chain(["NSDictionary", "NSObject"])))
                let pairs = (0..<program.int(below: 4)).map { _ in (key: TypedValue.object(keyString()), value: attributeValue(depth: depth + 1)) }
                attributes.groups = TypedObject.dictionary(pairs).groups
                dictionaries.append(attributes)
            }
            runs.append((length, attributes))
        }
        // The layout of TypedObject.attributedString, built here so that a run length can be any 64-bit value
        // (the public builder takes a valid Int length).
        let mutable = program.bool()
        var groups = [TypedGroup(encoding: "@", values: [.object(register(.string(text, mutable: mutable)))])]
        var sets: [ObjectIdentifier: Int64] = [:]
        for run in runs {
            let known = sets[ObjectIdentifier(run.attributes)]
            let set = program.chance(8) ? program.int64() : known ?? Int64(sets.count + 1)
            groups.append(TypedGroup(encoding: "iI", values: [.signed(set, type: UInt8(ascii: "i")), .unsigned(UInt64(bitPattern: Int64(run.length)), type: UInt8(ascii: "I"))]))
            if known == nil {
                sets[ObjectIdentifier(run.attributes)] = set
                groups.append(TypedGroup(encoding: "@", values: [.object(run.attributes)]))
            }
        }
        let base = [TypedClass("NSAttributedString", version: 0), TypedClass("NSObject", version: 0)]
        return register(TypedObject(classes: mutable ? [TypedClass("NSMutableAttributedString", version: 0)] + base : base, groups: groups))
    }

    private mutating func attributeValue(depth: Int) -> TypedValue {
        switch program.int(below: 6) {
        case 0: return .object(register(.number(program.int64())))
        case 1: return .object(register(.string(program.string())))
        case 2: return .object(register(.data(keyedArchiveBytes())))
        default: return objectValue(depth: depth)
        }
    }

    /// A keyed archive built by the keyed generator from the same program (data detectors and rich links hold one).
    private mutating func keyedArchiveBytes() -> [UInt8] {
        var builder = KeyedArchiveBuilder(program)
        let generated = builder.build()
        program = builder.program
        return generated.bytes
    }

    // MARK: Bulk structures

    private mutating func bulk() -> TypedObject {
        let n = program.size(1...min(20_000, maxChainLength))
        switch program.int(below: 3) {
        case 0:
            // A chain of arrays n deep (built from the inside out, no recursion).
            var inner: TypedValue = program.bool() || made.isEmpty ? .object(register(.string(program.string()))) : .object(program.pick(made))
            var outer = TypedObject.array([inner])
            for _ in 0..<n {
                outer = TypedObject.array([inner], mutable: program.chance(16))
                inner = .object(outer)
            }
            return register(outer)
        case 1:
            // A doubling DAG: each array holds the next twice.
            var inner: TypedValue = .object(register(.string(program.string())))
            var outer = TypedObject.array([inner])
            for _ in 0..<min(n, 200) {
                outer = program.chance(200) ? TypedObject.array([inner, inner]) : TypedObject.dictionary([(key: .object(.string("k")), value: inner), (key: .object(.string("l")), value: inner)])
                inner = .object(outer)
            }
            return register(outer)
        default:
            // A long string referenced many times.
            let string = register(.string(String(repeating: program.pick(["a", "é", "\u{1B}"]), count: program.size(1...(1 << 17)))))
            return register(.array(Array(repeating: .object(string), count: n)))
        }
    }

    // MARK: Groups and type encodings

    private mutating func group(depth: Int) -> TypedGroup {
        let encodings = (0..<1 + program.int(below: 3)).map { _ in typeEncoding(depth: 0) }
        let encoding = encodings.joined()
        // Values for the encoding; sometimes for another one (a mismatch the reader sees as bytes).
        if program.chance(20) {
            let other = typeEncoding(depth: 0)
            return TypedGroup(encoding: encoding, values: values(for: other, depth: depth))
        }
        return TypedGroup(encoding: encoding, values: encodings.flatMap { values(for: $0, depth: depth) })
    }

    /// One type encoding: a scalar code, an array `[N<type>]` (N sometimes huge) or a struct `{name=<types>}`.
    private mutating func typeEncoding(depth: Int) -> String {
        let codes = ["c", "C", "s", "S", "i", "I", "l", "L", "q", "Q", "f", "d", "@", "*", "%", ":", "+", "#", "!", "B", "^v", "v", "?"]
        switch program.int(below: depth > 2 ? 8 : 12) {
        case 8, 9:
            let n = program.chance(24) ? Int(truncatingIfNeeded: program.int64()) : program.int(below: 6)
            return "[\(n)\(typeEncoding(depth: depth + 1))]"
        case 10, 11:
            let name = program.pick(["_NSRange", "_NSPoint", "_NSRect", "?", "", "x"])
            let fields = (0..<program.int(below: 3)).map { _ in typeEncoding(depth: depth + 1) }.joined()
            return "{\(name)=\(fields)}"
        default:
            return program.pick(codes)
        }
    }

    /// The values of one type encoding (one value, or an array's or struct's values).
    private mutating func values(for encoding: String, depth: Int) -> [TypedValue] {
        var parser = EncodingParser(Array(encoding.utf8))
        var result: [TypedValue] = []
        while let type = parser.next() { result.append(value(for: type, depth: depth)) }
        return result
    }

    private mutating func value(for type: EncodingParser.Element, depth: Int) -> TypedValue {
        switch type {
        case .scalar(let code):
            switch UInt8(code) {
            case UInt8(ascii: "c"): return .signed(Int64(Int8(bitPattern: program.byte())), type: code)
            case UInt8(ascii: "C"), UInt8(ascii: "B"): return .unsigned(UInt64(program.byte()), type: code)
            case UInt8(ascii: "s"), UInt8(ascii: "i"), UInt8(ascii: "l"), UInt8(ascii: "q"): return .signed(program.int64(), type: code)
            case UInt8(ascii: "S"), UInt8(ascii: "I"), UInt8(ascii: "L"), UInt8(ascii: "Q"): return .unsigned(UInt64(bitPattern: program.int64()), type: code)
            case UInt8(ascii: "f"): return .float(Float(program.double()))
            case UInt8(ascii: "d"): return .double(program.double())
            case UInt8(ascii: "@"):
                // Sometimes an integer where an object is expected: a reference number of any size.
                if program.chance(12) { return .signed(program.int64(), type: UInt8(ascii: "q")) }
                return depth > 12 ? .nil : objectValue(depth: depth + 1)
            case UInt8(ascii: "*"):
                if program.chance(64) { return .nil }
                if program.bool() { return .cString(program.pick(cStrings)) }
                let string = TypedCString(program.string())
                cStrings.append(string)
                return .cString(string)
            case UInt8(ascii: "%"): return .atom(program.chance(32) ? nil : Array(program.string().utf8))
            case UInt8(ascii: ":"): return .selector(program.chance(32) ? nil : Array(program.string().utf8))
            case UInt8(ascii: "+"): return .string(Array(program.string().utf8))
            case UInt8(ascii: "#"): return .class(chain((0..<program.int(below: 3)).map { _ in program.pick(["NSObject", "NSString", "Node"]) }))
            case UInt8(ascii: "!"): return .ignored
            default: return .signed(program.int64(), type: code)
            }
        case .array(let count, let element, let encoding):
            if element == [UInt8(ascii: "c")] || element == [UInt8(ascii: "C")] {
                return .bytes((0..<min(max(count, 0), 4096)).map { _ in program.byte() }, signed: element == [UInt8(ascii: "c")])
            }
            var elementParser = EncodingParser(element)
            guard let elementType = elementParser.next() else { return .array([], encoding: encoding) }
            return .array((0..<min(max(count, 0), 64)).map { _ in value(for: elementType, depth: depth + 1) }, encoding: encoding)
        case .structure(let fields, let encoding):
            var fieldParser = EncodingParser(fields)
            var values: [TypedValue] = []
            while let field = fieldParser.next() { values.append(value(for: field, depth: depth + 1)) }
            return .structure(values, encoding: encoding)
        }
    }
}

/// Splits a type encoding into its values: scalar codes, `[N<type>]` arrays and `{name=<types>}` structs.
struct EncodingParser {
    enum Element {
        case scalar(UInt8)
        case array(count: Int, element: [UInt8], encoding: String)
        case structure(fields: [UInt8], encoding: String)
    }

    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func next() -> Element? {
        guard index < bytes.count else { return nil }
        let start = index
        switch bytes[index] {
        case UInt8(ascii: "["):
            index += 1
            var digits = 0
            var negative = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") { negative = true; index += 1 }
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                digits = digits.multipliedReportingOverflow(by: 10).partialValue &+ Int(bytes[index] - UInt8(ascii: "0"))
                index += 1
            }
            let elementStart = index
            skipBalanced(close: UInt8(ascii: "]"))
            let element = Array(bytes[elementStart..<max(elementStart, index - 1)])
            return .array(count: negative ? 0 &- digits : digits, element: element, encoding: String(decoding: bytes[start..<index], as: UTF8.self))
        case UInt8(ascii: "{"):
            index += 1
            while index < bytes.count, bytes[index] != UInt8(ascii: "="), bytes[index] != UInt8(ascii: "}") { index += 1 }
            if index < bytes.count, bytes[index] == UInt8(ascii: "=") { index += 1 }
            let fieldsStart = index
            skipBalanced(close: UInt8(ascii: "}"))
            let fields = Array(bytes[fieldsStart..<max(fieldsStart, index - 1)])
            return .structure(fields: fields, encoding: String(decoding: bytes[start..<index], as: UTF8.self))
        case UInt8(ascii: "^"):
            index += 1
            if index < bytes.count { index += 1 }
            return .scalar(UInt8(ascii: "^"))
        default:
            index += 1
            return .scalar(bytes[start])
        }
    }

    /// Moves past the bracket that closes the one just opened (nested brackets of both kinds counted).
    private mutating func skipBalanced(close: UInt8) {
        var depth = 1
        while index < bytes.count {
            let b = bytes[index]
            index += 1
            if b == UInt8(ascii: "[") || b == UInt8(ascii: "{") { depth += 1 }
            if b == UInt8(ascii: "]") || b == UInt8(ascii: "}") {
                depth -= 1
                if depth == 0 { return }
            }
        }
    }
}
