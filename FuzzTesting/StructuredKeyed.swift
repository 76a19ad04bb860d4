// The keyed-archive generator of the structure-aware targets: a program of steps builds a `$objects` table
// (class descriptors and chains, instances of Foundation and custom classes, scalars, references forward and
// back, so sharing, DAGs and cycles), bulk structures (long chains, doubling DAGs, long strings referenced many
// times, deep in-place nesting, many `$top` keys, huge declared counts), and paths into it. The archive is
// written with the package's writers (`KeyedArchive.binaryPlist()`, `xmlPlist()`), or by `SharingBPlist`, which
// also shares equal containers (a DAG at the plist level) and can declare a count the bytes do not hold.
import AutoCodingCore
import Foundation
import OrderedCollections

/// A generated archive: the table as built, the bytes written, and paths into it (for `get`).
struct GeneratedArchive {
    var archive: KeyedArchive
    var bytes: [UInt8]
    var paths: [ArchivePath]
    /// How the bytes were written: "binary", "xml", "sharing" (then possibly "patched").
    var writer: String
}

/// Foundation classes with the chains NSKeyedArchiver writes, and custom classes.
private let classChains: [(String, [String])] = [
    ("NSArray", ["NSArray", "NSObject"]), ("NSMutableArray", ["NSMutableArray", "NSArray", "NSObject"]),
    ("NSSet", ["NSSet", "NSObject"]), ("NSMutableSet", ["NSMutableSet", "NSSet", "NSObject"]),
    ("NSOrderedSet", ["NSOrderedSet", "NSObject"]),
    ("NSDictionary", ["NSDictionary", "NSObject"]),
    ("NSMutableDictionary", ["NSMutableDictionary", "NSDictionary", "NSObject"]),
    ("NSString", ["NSString", "NSObject"]), ("NSMutableString", ["NSMutableString", "NSString", "NSObject"]),
    ("NSAttributedString", ["NSAttributedString", "NSObject"]),
    ("NSMutableAttributedString", ["NSMutableAttributedString", "NSAttributedString", "NSObject"]),
    ("NSData", ["NSData", "NSObject"]), ("NSMutableData", ["NSMutableData", "NSData", "NSObject"]),
    ("NSDate", ["NSDate", "NSObject"]), ("NSURL", ["NSURL", "NSObject"]), ("NSUUID", ["NSUUID", "NSObject"]),
    ("NSNull", ["NSNull", "NSObject"]), ("NSValue", ["NSValue", "NSObject"]),
    ("NSNumber", ["NSNumber", "NSValue", "NSObject"]), ("NSColor", ["NSColor", "NSObject"]),
    ("App.Node", ["App.Node", "NSObject"]), ("Person", ["Person", "NSObject"]), ("Custom", []),
]

/// Builds an archive from the program.
struct KeyedArchiveBuilder {
    var program: Program
    /// `$objects`; entries 1...primaryCount are the primary nodes, filled in order; bulk structures and class
    /// descriptors are appended after them.
    private var objects: [ArchiveValue] = [.string(ArchiveKey.null)]
    private var primaryCount = 0
    private var descriptors: [String: Int] = [:]
    private var fieldKeys: [String] = []
    private var dictionaryKeys: [String] = []
    private var top = OrderedDictionary<String, ArchiveValue>()
    private var bulks = 0

    init(_ program: Program) { self.program = program }

    mutating func build() -> GeneratedArchive {
        primaryCount = 1 + program.int(below: 40)
        objects += Array(repeating: .string(ArchiveKey.null), count: primaryCount)
        for index in 1...primaryCount { objects[index] = node() }
        top[ArchiveKey.root] = .uid(ArchiveUID(UInt32(1 + program.int(below: primaryCount))))
        // More `$top` entries: a few, or very many (`$top[*]`), sometimes scalars or containers (refused).
        let extra = program.chance(24) ? program.size(0...3000) : program.int(below: 3)
        for i in 0..<extra {
            let key = program.chance(32) ? program.string() : "$\(i)"
            switch program.int(below: 8) {
            case 0: top[key] = .integer(program.int64())
            case 1: top[key] = .array([reference()])
            default: top[key] = reference()
            }
        }
        if program.chance(16) { top.removeValue(forKey: ArchiveKey.root) }
        let archiver = program.chance(8) ? program.pick(["SCNKeyedArchiver", "", "NSKeyedArchiver\n", program.string()]) : "NSKeyedArchiver"
        let version = program.chance(4) ? Int(truncatingIfNeeded: program.int64()) : ArchiveKey.formatVersion
        let archive = KeyedArchive(archiver: archiver, version: version, top: top, objects: objects)
        let paths = (0..<1 + program.int(below: 4)).map { _ in path() }
        var writer: String
        var bytes: [UInt8]
        switch program.int(below: 16) {
        case 0 where objects.count <= 300:
            // libplist's XML writer is slow on large tables (seconds for thousands of objects): small ones only.
            writer = "xml"
            bytes = (try? archive.xmlPlist()) ?? archive.binaryPlist()
        case 1, 2:
            writer = "sharing"
            bytes = SharingBPlist.write(archive.propertyList, inflate: program.chance(64) ? program.int64() : nil, &program)
        default:
            writer = "binary"
            bytes = archive.binaryPlist()
        }
        // A few byte patches: near-valid files for the validators (rare, so most inputs stay valid).
        if program.chance(20), !bytes.isEmpty {
            writer += "+patched"
            for _ in 0..<1 + program.int(below: 3) {
                let at = program.int(below: bytes.count)
                bytes[at] = program.chance(128) ? program.byte() : bytes[at] ^ (1 << UInt8(program.int(below: 8)))
            }
        }
        return GeneratedArchive(archive: archive, bytes: bytes, paths: paths, writer: writer)
    }

    // MARK: References

    /// A UID: usually a primary node (before or after this one: sharing and cycles), sometimes `$null`, a bulk
    /// structure, a class descriptor or a UID out of range.
    private mutating func reference() -> ArchiveValue {
        switch program.int(below: 32) {
        case 0: return .uid(ArchiveUID(0))
        case 1: return .uid(ArchiveUID(UInt32(truncatingIfNeeded: program.int64())))  // usually out of range
        case 2: return .uid(ArchiveUID(UInt32(objects.count + program.int(below: 4))))  // just past the end so far
        case 3 where bulks < 2:
            // At most two bulk structures per archive: they dominate the cost of an execution.
            bulks += 1
            return bulk()
        case 4: return descriptors.isEmpty ? .uid(ArchiveUID(1)) : .uid(ArchiveUID(UInt32(program.pick(Array(descriptors.values)))))
        default: return .uid(ArchiveUID(UInt32(1 + program.int(below: primaryCount))))
        }
    }

    private mutating func references(_ count: Int) -> [ArchiveValue] {
        // Fan-out: the same reference many times (a long string printed at every reference), or a mix.
        if program.chance(48) {
            let one = reference()
            return Array(repeating: one, count: count)
        }
        return (0..<count).map { _ in reference() }
    }

    private mutating func count() -> Int { program.chance(24) ? program.size(0...5000) : program.int(below: 6) }

    // MARK: Nodes

    private mutating func descriptor(_ name: String, _ chain: [String]) -> ArchiveValue {
        if let uid = descriptors[name], !program.chance(8) { return .uid(ArchiveUID(UInt32(uid))) }
        var fields = OrderedDictionary<String, ArchiveValue>()
        fields[ArchiveKey.className] = .string(name)
        switch program.int(below: 16) {
        case 0: break  // no $classes
        case 1: fields[ArchiveKey.classes] = .array((0..<program.size(0...2000)).map { _ in .string(program.string()) })
        case 2: fields[ArchiveKey.classes] = .string(name)  // not an array
        default: if !chain.isEmpty { fields[ArchiveKey.classes] = .array(chain.map { .string($0) }) }
        }
        objects.append(.dictionary(fields))
        descriptors[name] = objects.count - 1
        return .uid(ArchiveUID(UInt32(objects.count - 1)))
    }

    private mutating func instance(_ name: String, _ chain: [String], _ fields: OrderedDictionary<String, ArchiveValue>) -> ArchiveValue {
        var entry = OrderedDictionary<String, ArchiveValue>()
        entry[ArchiveKey.class] = descriptor(name, chain)
        for (key, value) in fields { entry[key] = value }
        if program.chance(6) { entry[program.string()] = reference() }  // an unexpected extra field
        return .dictionary(entry)
    }

    private mutating func scalar() -> ArchiveValue {
        switch program.int(below: 8) {
        case 0: return .bool(program.bool())
        case 1: return .integer(program.int64())
        case 2: return .unsignedInteger(UInt64(bitPattern: program.int64()) | 1 << 63)
        case 3: return .real(program.double())
        case 4: return .date(Date(timeIntervalSinceReferenceDate: program.double()))
        case 5: return .data(program.bytes(max: 24))
        default: return .string(program.string())
        }
    }

    /// A primary node: a scalar entry or an instance.
    private mutating func node() -> ArchiveValue {
        let kind = program.int(below: 24)
        if kind < 4 { return scalar() }
        if kind == 4 { return .array(references(program.int(below: 4))) }  // a plain array holding UIDs: refused
        let (name, chain) = kind == 5 ? (program.string(), [program.string()]) : program.pick(classChains)
        var fields = OrderedDictionary<String, ArchiveValue>()
        switch name {
        case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet":
            fields["NS.objects"] = .array(references(count()))
        case "NSDictionary", "NSMutableDictionary":
            let n = count()
            let keys: [ArchiveValue] = (0..<n).map { _ in
                // Keys: string entries, so equal keys (a duplicate) are likely.
                let key = program.chance(200) ? program.pick(["a", "b", "name", "a"]) : program.string()
                dictionaryKeys.append(key)
                objects.append(.string(key))
                return program.chance(16) ? reference() : .uid(ArchiveUID(UInt32(objects.count - 1)))
            }
            fields["NS.keys"] = .array(keys)
            fields["NS.objects"] = .array(references(program.chance(16) ? program.int(below: n + 2) : n))
        case "NSString", "NSMutableString":
            fields[program.chance(16) ? "NS.bytes" : "NS.string"] = program.chance(16) ? .data(program.bytes(max: 16)) : .string(program.string())
        case "NSAttributedString", "NSMutableAttributedString":
            fields["NSString"] = reference()
            if program.bool() { fields["NSAttributes"] = reference() }
            if program.bool() {
                // Run info: varint pairs (length, attribute index), lengths near the limits.
                var info: [UInt8] = []
                for _ in 0..<program.int(below: 6) {
                    for var value in [UInt64(bitPattern: program.int64()), UInt64(program.int(below: 4))] {
                        repeat {
                            info.append(UInt8(value & 0x7F) | (value > 0x7F ? 0x80 : 0))
                            value >>= 7
                        } while value > 0
                    }
                }
                fields["NSAttributeInfo"] = program.chance(64) ? reference() : .data(info)
            }
        case "NSData", "NSMutableData":
            fields["NS.data"] = .data(program.bytes(max: 32))
        case "NSDate":
            fields["NS.time"] = .real(program.double())
        case "NSURL":
            fields["NS.base"] = program.bool() ? .uid(ArchiveUID(0)) : reference()
            fields["NS.relative"] = reference()
        case "NSUUID":
            fields["NS.uuidbytes"] = .data(program.chance(32) ? program.bytes(max: 20) : (0..<16).map { _ in program.byte() })
        case "NSNull":
            break
        case "NSValue", "NSNumber":
            fields["NS.special"] = .integer(program.chance(200) ? program.pick([1, 2, 3, 4]) : program.int64())
            fields["NS.rangeval.location"] = .integer(program.int64())
            fields["NS.rangeval.length"] = .integer(program.int64())
            if program.bool() { fields["NS.pointval"] = .string(program.pick(["{1, 2}", "{nan, -0}", "{1e400, 3}", program.string()])) }
        case "NSColor":
            fields["NSColorSpace"] = .integer(program.int64())
            fields["NSRGB"] = .data(program.bytes(max: 24))
        default:
            for _ in 0..<program.int(below: 6) {
                let key = program.chance(220) ? program.pick(["name", "next", "children", "value", "parent", "NS.count"]) : program.string()
                fieldKeys.append(key)
                fields[key] = field()
            }
        }
        if program.chance(8) { fields["NS.count"] = .integer(program.int64()) }  // a declared count
        return instance(name, chain, fields)
    }

    /// A field of a custom instance: a reference, a scalar in place, or an in-place container.
    private mutating func field() -> ArchiveValue {
        switch program.int(below: 10) {
        case 0, 1: return scalar()
        case 2: return .array(references(count()))
        case 3:
            var entries = OrderedDictionary<String, ArchiveValue>()
            for _ in 0..<program.int(below: 4) { entries[program.string()] = program.bool() ? reference() : scalar() }
            return .dictionary(entries)
        case 4: return nested(depth: program.size(1...maxNesting))
        default: return reference()
        }
    }

    /// In-place arrays nested `depth` deep, each holding the next twice (a plist DAG once the sharing writer
    /// shares equal containers), innermost a reference.
    private mutating func nested(depth: Int) -> ArchiveValue {
        var value = reference()
        let twice = program.bool()
        // A value tree doubling at each level has 2^depth nodes for any tree walk, the writers' included: deeper
        // doubling is a DAG only the sharing writer can write, asked for with a marker string it expands.
        if twice, depth > 12 { return .string(SharingBPlist.dagMarker + String(depth)) }
        for _ in 0..<depth { value = .array(twice ? [value, value] : [value]) }
        return value
    }

    // MARK: Bulk structures

    /// A structure of many objects appended at the end; returns a reference to its head.
    private mutating func bulk() -> ArchiveValue {
        let n = program.size(1...maxChainLength)
        let tail = reference()
        switch program.int(below: 5) {
        case 0:
            // A chain: each object's `next` is the following one (deep for `inspect`, codegen, JSON).
            let (name, chain) = program.bool() ? ("App.Node", ["App.Node", "NSObject"]) : ("NSArray", ["NSArray", "NSObject"])
            let key = name == "NSArray" ? "NS.objects" : "next"
            let first = objects.count
            objects += Array(repeating: .string(""), count: n)
            let cls = descriptor(name, chain)
            for i in 0..<n {
                let next: ArchiveValue = i == n - 1 ? tail : .uid(ArchiveUID(UInt32(first + i + 1)))
                objects[first + i] = .dictionary([ArchiveKey.class: cls, key: key == "NS.objects" ? .array([next]) : next])
            }
            return .uid(ArchiveUID(UInt32(first)))
        case 1:
            // A doubling DAG: each object refers to the next twice (2^n paths, n objects).
            let depth = min(n, 200)
            let first = objects.count
            objects += Array(repeating: .string(""), count: depth)
            let asArray = program.bool()
            let cls = asArray ? descriptor("NSArray", ["NSArray", "NSObject"]) : descriptor("App.Node", ["App.Node", "NSObject"])
            for i in 0..<depth {
                let next: ArchiveValue = i == depth - 1 ? tail : .uid(ArchiveUID(UInt32(first + i + 1)))
                objects[first + i] = asArray
                    ? .dictionary([ArchiveKey.class: cls, "NS.objects": .array([next, next])])
                    : .dictionary([ArchiveKey.class: cls, "left": next, "right": next])
            }
            return .uid(ArchiveUID(UInt32(first)))
        case 2:
            // A long string referenced many times from one array.
            objects.append(.string(String(repeating: program.pick(["a", "é", "\u{1B}"]), count: program.size(1...(1 << 17)))))
            let string = ArchiveValue.uid(ArchiveUID(UInt32(objects.count - 1)))
            objects.append(.string(""))
            let slot = objects.count - 1
            objects[slot] = instance("NSArray", ["NSArray", "NSObject"], ["NS.objects": .array(Array(repeating: string, count: n))])
            return .uid(ArchiveUID(UInt32(slot)))
        case 3:
            // A wide array of distinct small objects.
            let first = objects.count
            for i in 0..<n { objects.append(.integer(Int64(i))) }
            objects.append(.string(""))
            let slot = objects.count - 1
            objects[slot] = instance("NSMutableArray", ["NSMutableArray", "NSArray", "NSObject"],
                                     ["NS.objects": .array((0..<n).map { .uid(ArchiveUID(UInt32(first + $0))) })])
            return .uid(ArchiveUID(UInt32(slot)))
        default:
            // A dictionary with many (possibly equal) keys.
            let first = objects.count
            for i in 0..<n { objects.append(.string(program.chance(128) ? "k" : "k\(i)")) }
            objects.append(.string(""))
            let slot = objects.count - 1
            let keys: [ArchiveValue] = (0..<n).map { .uid(ArchiveUID(UInt32(first + $0))) }
            objects[slot] = instance("NSDictionary", ["NSDictionary", "NSObject"], ["NS.keys": .array(keys), "NS.objects": .array(Array(repeating: tail, count: n))])
            return .uid(ArchiveUID(UInt32(slot)))
        }
    }

    // MARK: Paths

    /// A path for `get`: from `$top` (a key or `[*]`) through field keys, `NS.objects`, indices and `[*]`.
    private mutating func path() -> ArchivePath {
        var steps: [ArchivePath.Step] = []
        switch program.int(below: 6) {
        case 0: steps.append(.all)
        case 1: steps.append(.key(top.keys.isEmpty ? "root" : program.pick(Array(top.keys))))
        default: steps.append(.key("root"))
        }
        for _ in 0..<program.int(below: 7) {
            switch program.int(below: 8) {
            case 0, 1: steps.append(.all)
            case 2: steps.append(.index(program.chance(32) ? Int(truncatingIfNeeded: program.int64()) : program.int(below: 4)))
            case 3: steps.append(.key("NS.objects"))
            case 4: steps.append(.key(dictionaryKeys.isEmpty ? program.string() : program.pick(dictionaryKeys)))
            case 5: steps.append(.key(fieldKeys.isEmpty ? "next" : program.pick(fieldKeys)))
            default: steps.append(.key(program.pick(["next", "left", "right", "name", "children", "NS.string"])))
            }
        }
        return ArchivePath(steps: steps)
    }
}

// MARK: A binary-plist writer that shares containers

/// Writes a property-list value as a binary plist in which equal values of every kind, containers included, are
/// one object (so nested equal arrays make a DAG, as a hand-made file can), and optionally declares `inflate` as
/// the count of one container (a count the bytes cannot hold). Iterative: any depth.
enum SharingBPlist {
    private enum Key: Hashable {
        case scalar(ArchiveValue)
        case array([Int])
        case dictionary([Int], [Int])
    }

    /// A string the sharing writer replaces by a doubling DAG of arrays as deep as the number after it.
    static let dagMarker = "\u{0}dag:"

    static func write(_ root: ArchiveValue, inflate: Int64?, _ program: inout Program) -> [UInt8] {
        var numbers: [Key: Int] = [:]
        var bodies: [[UInt8]] = []
        var containers: [Int] = []
        // Post-order with an explicit stack: a value is numbered after its children.
        enum Work { case visit(ArchiveValue), finish(ArchiveValue, Int) }
        var work: [Work] = [.visit(root)]
        var results: [Int] = []
        var refsOf: [Int: [Int]] = [:]
        func intern(_ key: Key, _ body: () -> [UInt8]) -> Int {
            if let n = numbers[key] { return n }
            bodies.append(body())
            numbers[key] = bodies.count - 1
            return bodies.count - 1
        }
        while let item = work.popLast() {
            switch item {
            case .visit(let value):
                switch value {
                case .array(let elements):
                    work.append(.finish(value, elements.count))
                    for element in elements.reversed() { work.append(.visit(element)) }
                case .dictionary(let entries):
                    work.append(.finish(value, entries.count * 2))
                    for (key, element) in entries.reversed() { work.append(.visit(element)); work.append(.visit(.string(key))) }
                case .string(let s) where s.hasPrefix(dagMarker):
                    // Arrays `depth` deep, each holding the next twice: `depth` objects, 2^depth paths.
                    var inner = intern(.scalar(.string("leaf"))) { scalarBody(.string("leaf")) }
                    for _ in 0..<min(Int(s.dropFirst(dagMarker.count)) ?? 1, 100_000) {
                        let number = intern(.array([inner, inner])) { [0xA0] }
                        if refsOf[number] == nil { refsOf[number] = [inner, inner]; containers.append(number) }
                        inner = number
                    }
                    results.append(inner)
                default:
                    results.append(intern(.scalar(value)) { scalarBody(value) })
                }
            case .finish(let value, let n):
                let children = Array(results.suffix(n))
                results.removeLast(n)
                if case .array = value {
                    let number = intern(.array(children)) { [0xA0] }
                    if refsOf[number] == nil { refsOf[number] = children; containers.append(number) }
                    results.append(number)
                } else {
                    let keys = stride(from: 0, to: n, by: 2).map { children[$0] }
                    let values = stride(from: 1, to: n, by: 2).map { children[$0] }
                    let number = intern(.dictionary(keys, values)) { [0xD0] }
                    if refsOf[number] == nil { refsOf[number] = keys + values; containers.append(number) }
                    results.append(number)
                }
            }
        }
        let count = bodies.count
        let refSize = count < 256 ? 1 : count < 65536 ? 2 : 4
        let inflated = inflate.flatMap { _ in containers.isEmpty ? nil : program.pick(containers) }
        for number in containers {
            let refs = refsOf[number] ?? []
            let isDictionary = bodies[number][0] == 0xD0
            var declared = isDictionary ? refs.count / 2 : refs.count
            if number == inflated, let inflate { declared = Int(truncatingIfNeeded: inflate) & Int.max }
            var body = header(isDictionary ? 0xD : 0xA, declared)
            for ref in refs { body += bigEndian(UInt64(ref), width: refSize) }
            bodies[number] = body
        }
        var out = Array("bplist00".utf8)
        var offsets: [Int] = []
        for body in bodies {
            offsets.append(out.count)
            out += body
        }
        let tableOffset = out.count
        let offsetSize = tableOffset < 256 ? 1 : tableOffset < 65536 ? 2 : tableOffset < 1 << 32 ? 4 : 8
        for offset in offsets { out += bigEndian(UInt64(offset), width: offsetSize) }
        out += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(refSize)]
        out += bigEndian(UInt64(count), width: 8) + bigEndian(UInt64(results.last ?? 0), width: 8)
        out += bigEndian(UInt64(tableOffset), width: 8)
        return out
    }

    private static func bigEndian(_ value: UInt64, width: Int) -> [UInt8] {
        (0..<width).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    private static func header(_ kind: UInt8, _ count: Int) -> [UInt8] {
        if count < 15 { return [kind << 4 | UInt8(count)] }
        return [kind << 4 | 0xF, 0x13] + bigEndian(UInt64(count), width: 8)
    }

    private static func scalarBody(_ value: ArchiveValue) -> [UInt8] {
        switch value {
        case .bool(let b): return [b ? 0x09 : 0x08]
        case .integer(let i): return [0x13] + bigEndian(UInt64(bitPattern: i), width: 8)
        case .unsignedInteger(let u): return [0x14] + bigEndian(0, width: 8) + bigEndian(u, width: 8)
        case .real(let d): return [0x23] + bigEndian(d.bitPattern, width: 8)
        case .date(let d): return [0x33] + bigEndian(d.timeIntervalSinceReferenceDate.bitPattern, width: 8)
        case .data(let bytes): return header(0x4, bytes.count) + bytes
        case .string(let s):
            if s.utf8.allSatisfy({ $0 < 0x80 }) { return header(0x5, s.utf8.count) + Array(s.utf8) }
            let units = Array(s.utf16)
            return header(0x6, units.count) + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        case .uid(let uid): return [0x83] + bigEndian(UInt64(uid.rawValue), width: 4)
        case .array, .dictionary: return []
        }
    }
}
