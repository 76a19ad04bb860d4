// Structure-aware round trip: the input chooses a random object graph (shared references, cycles, every
// Foundation class shape the package maps, custom classes) and random model values; each is encoded, decoded
// and must come back equal.
import AutoCoding
import AutoCodingFast
import Foundation
import OrderedCollections

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRoundTrip(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    withFuzzBytes(data, size) { bytes in
        var input = FuzzInput(bytes)
        switch input.byte() % 3 {
        case 0: roundTripGraph(&input)
        case 1: roundTripNodes(&input)
        default: roundTripEverything(&input)
        }
    }
}

// MARK: Dynamic graphs

private func scalar(_ input: inout FuzzInput) -> ArchiveValue {
    switch input.int(below: 7) {
    case 0: return .bool(input.bool())
    case 1: return .integer(input.int64())
    case 2: return .unsignedInteger(UInt64(bitPattern: input.int64()) | 1 << 63)
    case 3: return .real(input.double())
    case 4: return .date(Date(timeIntervalSinceReferenceDate: input.double()))
    case 5: return .data(input.bytes(max: 20))
    default: return .string(input.string())
    }
}

/// A random graph, and every object made for it (the roots need not reach them all).
private func makeGraph(_ input: inout FuzzInput) -> (ArchiveGraph, [ArchivedObject]) {
    let classes: [(String, [String])] = [
        ("NSArray", ["NSArray", "NSObject"]), ("NSMutableArray", ["NSMutableArray", "NSArray", "NSObject"]),
        ("NSDictionary", ["NSDictionary", "NSObject"]), ("NSSet", ["NSSet", "NSObject"]),
        ("NSOrderedSet", ["NSOrderedSet", "NSObject"]), ("NSMutableString", ["NSMutableString", "NSString", "NSObject"]),
        ("NSDate", ["NSDate", "NSObject"]), ("NSMutableData", ["NSMutableData", "NSData", "NSObject"]),
        ("NSUUID", ["NSUUID", "NSObject"]), ("NSURL", ["NSURL", "NSObject"]), ("NSNull", ["NSNull", "NSObject"]),
        ("NSValue", ["NSValue", "NSObject"]), ("NSAttributedString", ["NSAttributedString", "NSObject"]),
        ("App.Node", []), ("Custom", ["Custom", "NSObject"]),
    ]
    let count = 1 + input.int(below: 12)
    let objects = (0..<count).map { _ -> ArchivedObject in
        let (name, chain) = classes[input.int(below: classes.count)]
        return ArchivedObject(className: name, chain: chain)
    }
    func value(_ input: inout FuzzInput, depth: Int) -> ArchivedValue {
        switch input.int(below: depth > 2 ? 4 : 6) {
        case 0: return .null
        case 1, 2: return .object(objects[input.int(below: count)])  // shared, and cycles when it points back
        case 3: return input.bool() ? .reference(scalar(&input)) : .inline(scalar(&input))
        case 4: return .array((0..<input.int(below: 4)).map { _ in value(&input, depth: depth + 1) })
        default:
            var entries = OrderedDictionary<String, ArchivedValue>()
            for _ in 0..<input.int(below: 3) { entries[input.string()] = value(&input, depth: depth + 1) }
            return .dictionary(entries)
        }
    }
    func refs(_ input: inout FuzzInput, _ n: Int) -> ArchivedValue {
        .array((0..<n).map { _ in input.bool() ? .object(objects[input.int(below: count)]) : .reference(scalar(&input)) })
    }
    for object in objects {
        switch object.className {
        case "NSArray", "NSMutableArray", "NSSet", "NSOrderedSet":
            object.fields["NS.objects"] = refs(&input, input.int(below: 5))
        case "NSDictionary":
            let n = input.int(below: 4)
            object.fields["NS.keys"] = .array((0..<n).map { _ in .reference(.string(input.string())) })
            object.fields["NS.objects"] = refs(&input, n)
        case "NSMutableString": object.fields["NS.string"] = .inline(.string(input.string()))
        case "NSDate": object.fields["NS.time"] = .inline(.real(input.double()))
        case "NSMutableData": object.fields["NS.data"] = .inline(.data(input.bytes(max: 16)))
        case "NSUUID": object.fields["NS.uuidbytes"] = .inline(.data((0..<16).map { _ in input.byte() }))
        case "NSURL":
            object.fields["NS.base"] = input.bool() ? .null : .object(objects[input.int(below: count)])
            object.fields["NS.relative"] = .reference(.string(input.string()))
        case "NSValue":
            object.fields["NS.special"] = .inline(.integer(4))
            object.fields["NS.rangeval.location"] = .inline(.integer(input.int64()))
            object.fields["NS.rangeval.length"] = .inline(.integer(input.int64()))
        case "NSAttributedString":
            object.fields["NSString"] = .reference(.string(input.string()))
            object.fields["NSAttributes"] = value(&input, depth: 0)
        case "NSNull": break
        default:
            for _ in 0..<input.int(below: 4) {
                // Any name but `$class`, which an archived instance keeps for its class (`ArchivedObject.fields`).
                let name = input.string()
                let field = value(&input, depth: 0)
                if name != "$class" { object.fields[name] = field }
            }
        }
    }
    var roots = OrderedDictionary<String, ArchivedValue>()
    roots["root"] = .object(objects[0])
    // A second root: an object, a scalar or null, what `$top` can hold (`ArchiveGraph.roots`; every reader
    // refuses a container there, so an in-place array or dictionary root is not a valid graph).
    if input.bool() {
        switch input.int(below: 3) {
        case 0: roots[input.string()] = .null
        case 1: roots[input.string()] = .object(objects[input.int(below: count)])
        default: roots[input.string()] = input.bool() ? .reference(scalar(&input)) : .inline(scalar(&input))
        }
    }
    return (ArchiveGraph(roots: roots), objects)
}

private func roundTripGraph(_ input: inout FuzzInput) {
    let (graph, made) = makeGraph(&input)
    // Every graph of this function may be cyclic, and so may the objects made that its roots do not reach:
    // emptied at the end, or LeakSanitizer reports them.
    var graphs = [graph]
    defer {
        for graph in graphs { graph.breakReferenceCycles() }
        for object in made { object.fields = [:] }
    }
    let bytes = graph.binaryPlist()
    // The flat writer (the encoders' table, numbered straight to bytes) against the value-tree writer.
    guard bytes == graph.keyedArchive().binaryPlist() else {
        fuzzFailure("the flat table and the value tree of one graph are written differently")
    }
    let back: ArchiveGraph
    do { back = try ArchiveGraph(bytes: bytes) } catch { fuzzFailure("an encoded graph does not decode: \(error)") }
    graphs.append(back)
    guard graph.isEquivalent(to: back) else {
        fuzzFailure("graph round trip is not equivalent:\n\(graph.json(prettyPrinted: false))\n\(back.json(prettyPrinted: false))")
    }
    // The same archive through libplist's XML writer and reader (CF$UID both ways) must still decode.
    if let xml = try? graph.keyedArchive().propertyList.xmlPropertyList() {
        do { graphs.append(try ArchiveGraph(bytes: xml)) } catch {
            fuzzFailure("XML of an encoded graph does not decode: \(error)")
        }
    }
    // Decoding to Foundation values must not crash, whatever the shapes; an object of a class it does not know
    // comes back as an `ArchivedObject`, perhaps on a cycle.
    if let unarchiver = try? KeyedUnarchiver(bytes: bytes), let root = try? unarchiver.decodeObject(forKey: "root") {
        breakCycles(decoded: root)
    }
}

// MARK: @AutoCoding graphs

private func makeNodes(_ input: inout FuzzInput) -> [FuzzNode] {
    let nodes = (0..<1 + input.int(below: 10)).map { _ in FuzzNode() }
    for node in nodes {
        node.name = input.string()
        node.value = Int(input.int64())
        node.weight = input.double()
        node.children = (0..<input.int(below: 4)).map { _ in nodes[input.int(below: nodes.count)] }
        node.next = input.bool() ? nodes[input.int(below: nodes.count)] : nil
        for _ in 0..<input.int(below: 3) { node.tags[input.string()] = Int(input.int64()) }
        node.blob = input.bool() ? Data(input.bytes(max: 8)) : nil
        node.when = input.bool() ? Date(timeIntervalSinceReferenceDate: input.double()) : nil
    }
    return nodes
}

/// Whether two node graphs have the same values and the same sharing.
private func sameNodes(_ a: FuzzNode, _ b: FuzzNode) -> Bool {
    var pairs: [ObjectIdentifier: ObjectIdentifier] = [:]
    var reverse: [ObjectIdentifier: ObjectIdentifier] = [:]
    var work = [(a, b)]
    func pair(_ x: FuzzNode?, _ y: FuzzNode?) -> Bool {
        guard let x, let y else { return x == nil && y == nil }
        let (ix, iy) = (ObjectIdentifier(x), ObjectIdentifier(y))
        if let seen = pairs[ix] { return seen == iy && reverse[iy] == ix }
        guard reverse[iy] == nil else { return false }
        pairs[ix] = iy
        reverse[iy] = ix
        work.append((x, y))
        return true
    }
    pairs[ObjectIdentifier(a)] = ObjectIdentifier(b)
    reverse[ObjectIdentifier(b)] = ObjectIdentifier(a)
    while let (x, y) = work.popLast() {
        guard x.name == y.name, x.value == y.value, x.weight.bitPattern == y.weight.bitPattern, x.tags == y.tags,
            x.blob == y.blob,
            x.when?.timeIntervalSinceReferenceDate.bitPattern == y.when?.timeIntervalSinceReferenceDate.bitPattern,
            x.children.count == y.children.count, pair(x.next, y.next)
        else { return false }
        for (l, r) in zip(x.children, y.children) where !pair(l, r) { return false }
    }
    return true
}

private func roundTripNodes(_ input: inout FuzzInput) {
    let nodes = makeNodes(&input)
    let bytes: [UInt8]
    do { bytes = try KeyedArchiveEncoder().encodeBytes(nodes[0]) } catch { fuzzFailure("encode failed: \(error)") }
    guard let table = try? KeyedArchiveEncoder().encodeArchive(nodes[0]), table.binaryPlist() == bytes else {
        fuzzFailure("the flat table and the value tree of one @AutoCoding graph are written differently")
    }
    let back: FuzzNode
    do { back = try KeyedArchiveDecoder().decode(FuzzNode.self, from: bytes) } catch {
        fuzzFailure("an encoded @AutoCoding graph does not decode: \(error)")
    }
    guard sameNodes(nodes[0], back) else { fuzzFailure("@AutoCoding round trip changed the graph") }
    // Break the cycles of both graphs (every node the decoded root reaches), or LeakSanitizer reports them.
    for node in nodes + reachableNodes(from: back) { node.children = []; node.next = nil }
}

// MARK: Codable values of every mapped Foundation type

private func roundTripEverything(_ input: inout FuzzInput) {
    var value = FuzzEverything()
    value.string = input.string()
    value.int = Int(input.int64())
    value.int8 = Int8(truncatingIfNeeded: input.byte())
    value.uint64 = UInt64(bitPattern: input.int64())
    value.int64 = input.int64()
    value.double = input.double()
    value.float = Float(bitPattern: UInt32(truncatingIfNeeded: input.int64()))
    value.bool = input.bool()
    value.data = Data(input.bytes(max: 16))
    value.date = Date(timeIntervalSinceReferenceDate: input.double())
    value.url = input.bool() ? URL(string: "https://example.com/" + String(input.int64())) : nil
    value.uuid = UUID(uuid: (input.byte(), input.byte(), input.byte(), input.byte(), input.byte(), input.byte(),
                             input.byte(), input.byte(), input.byte(), input.byte(), input.byte(), input.byte(),
                             input.byte(), input.byte(), input.byte(), input.byte()))
    value.optional = input.bool() ? input.string() : nil
    value.list = (0..<input.int(below: 4)).map { _ in Int(input.int64()) }
    value.nested = (0..<input.int(below: 3)).map { _ in (0..<input.int(below: 3)).map { _ in Int(input.int64()) } }
    for _ in 0..<input.int(below: 3) { value.dictionary[input.string()] = Int(input.int64()) }
    for _ in 0..<input.int(below: 3) { value.intKeys[Int(input.int64())] = input.string() }
    for _ in 0..<input.int(below: 3) { value.set.insert(input.string()) }
    value.range = ArchiveRange(location: Int(input.int64()), length: Int(input.int64()))
    value.rect = ArchiveRect(origin: ArchivePoint(x: input.double(), y: input.double()),
                             size: ArchiveSize(width: input.double(), height: input.double()))
    let bytes: [UInt8]
    do { bytes = try KeyedArchiveEncoder().encodeBytes(value) } catch { fuzzFailure("encode failed: \(error)") }
    let back: FuzzEverything
    do { back = try KeyedArchiveDecoder().decode(FuzzEverything.self, from: bytes) } catch {
        fuzzFailure("an encoded Codable value does not decode: \(error)")
    }
    guard back == value else { fuzzFailure("Codable round trip changed the value:\n\(value)\n\(back)") }
}
