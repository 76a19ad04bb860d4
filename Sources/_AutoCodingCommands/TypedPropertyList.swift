import AutoCodingCore
import Foundation
import OrderedCollections

/// `convert` of a typedstream: `--to keyed` writes its graph as an NSKeyedArchiver archive (every class, via
/// ``TypedGraph/keyedArchiveGraph()``); `--to xml` and `--to binary` write its Foundation values as a plain
/// property list where they map (NSString, NSNumber, NSArray, NSDictionary with string keys, NSData,
/// NSDate, and plain integers, reals and strings), and otherwise refuse, naming the class.
///
/// A plain property list has no references: a shared object is written at each place it is used, from a
/// budget proportional to the stream (so a shared-reference DAG cannot blow up the output), and a cycle is
/// refused. The conversion uses an explicit stack (no recursion) and the depth limit of the options.
enum TypedPropertyList {
    struct Refusal: Error, CustomStringConvertible {
        var description: String
    }

    static func convert(_ bytes: [UInt8], to target: Convert.Target, options: ArchiveReadingOptions) throws -> [UInt8] {
        let graph = try TypedGraph(bytes: bytes, options: options)
        if target == .keyed { return graph.keyedArchiveGraph().binaryPlist() }
        let value = try propertyList(graph, budget: max(100_000, bytes.count * 4), depthLimit: options.depthLimit)
        return target == .binary ? value.binaryPropertyList() : try value.xmlPropertyList()
    }

    /// The stream's top-level value as a property list (several top-level values: an array of them).
    static func propertyList(_ graph: TypedGraph, budget: Int, depthLimit: Int) throws -> ArchiveValue {
        var numbers: [ObjectIdentifier: Int] = [:]
        for (index, object) in graph.objects.enumerated() { numbers[ObjectIdentifier(object)] = index }
        let values = Array(graph.groups.joined())
        guard !values.isEmpty else { throw Refusal(description: "the typedstream holds no values") }
        var converter = Converter(numbers: numbers, budget: budget, depthLimit: depthLimit)
        if values.count == 1 { return try converter.convert(values[0]) }
        return try converter.convert(.array(values, encoding: ""))
    }

    private struct Converter {
        /// A container being filled: its items still to convert, and what is built so far.
        private struct Frame {
            var object: ObjectIdentifier?
            var keys: [String]?
            var items: [TypedValue]
            var next = 0
            var built: [ArchiveValue] = []
        }

        let numbers: [ObjectIdentifier: Int]
        var budget: Int
        let depthLimit: Int

        init(numbers: [ObjectIdentifier: Int], budget: Int, depthLimit: Int) {
            self.numbers = numbers
            self.budget = budget
            self.depthLimit = depthLimit
        }

        private func name(_ object: TypedObject) -> String {
            "\(object.className) #\(numbers[ObjectIdentifier(object)] ?? -1)"
        }

        /// A leaf's value, or the frame of a container to fill.
        private func start(_ value: TypedValue) throws -> (ArchiveValue?, Frame?) {
            switch value {
            case .signed(let v, let type):
                return (type == UInt8(ascii: "B") ? .bool(v != 0) : .integer(v), nil)
            case .unsigned(let v, let type):
                if type == UInt8(ascii: "B") { return (.bool(v != 0), nil) }
                return (Int64(exactly: v).map { .integer($0) } ?? .unsignedInteger(v), nil)
            case .float(let v): return (.real(Double(v)), nil)
            case .double(let v): return (.real(v), nil)
            case .string(let bytes): return (.string(String(decoding: bytes, as: UTF8.self)), nil)
            case .cString(let s): return (.string(s.text), nil)
            case .array(let values, _): return (nil, Frame(object: nil, keys: nil, items: values))
            case .bytes(let bytes, _): return (.data(bytes), nil)
            case .nil: throw Refusal(description: "a nil value has no property-list form")
            case .object(let object):
                switch object.foundation {
                case .string(let s)?: return (.string(s), nil)
                case .number(let n)?: return try start(n)
                case .data(let bytes)?: return (.data(bytes), nil)
                case .date(let seconds)?: return (.date(Date(timeIntervalSinceReferenceDate: seconds)), nil)
                case .array(let values)?:
                    return (nil, Frame(object: ObjectIdentifier(object), keys: nil, items: values))
                case .dictionary(let pairs)?:
                    var keys: [String] = []
                    for pair in pairs {
                        guard case .string(let key)? = pair.key.object?.foundation else {
                            throw Refusal(
                                description: "\(name(object)) has a key that is not a string; a property list's "
                                    + "keys are strings (convert --to keyed keeps it)"
                            )
                        }
                        keys.append(key)
                    }
                    return (nil, Frame(object: ObjectIdentifier(object), keys: keys, items: pairs.map(\.value)))
                default:
                    throw Refusal(
                        description: "\(name(object)) has no property-list form (convert --to keyed writes any class)"
                    )
                }
            default:
                throw Refusal(description: "a \(TypedTree.scalar(value)) value has no property-list form")
            }
        }

        mutating func convert(_ root: TypedValue) throws -> ArchiveValue {
            var stack: [Frame] = []
            var onPath = Set<ObjectIdentifier>()
            var pending: TypedValue? = root
            while true {
                var done: ArchiveValue?
                if let value = pending {
                    pending = nil
                    budget -= 1
                    guard budget >= 0 else {
                        throw Refusal(
                            description: "the property list would have more values than the budget (shared objects "
                                + "are copied at each use); convert --to keyed keeps the sharing"
                        )
                    }
                    let (leaf, frame) = try start(value)
                    if let frame {
                        if let id = frame.object {
                            guard onPath.insert(id).inserted else {
                                throw Refusal(
                                    description: "a cycle through \(value.object.map(name) ?? "an object"); a property "
                                        + "list cannot hold one (convert --to keyed keeps it)"
                                )
                            }
                        }
                        guard stack.count < depthLimit else {
                            throw Refusal(description: "containers nested deeper than \(depthLimit)")
                        }
                        stack.append(frame)
                        continue
                    }
                    done = leaf
                } else if var top = stack.popLast() {
                    if top.next < top.items.count {
                        pending = top.items[top.next]
                        top.next += 1
                        stack.append(top)
                        continue
                    }
                    if let id = top.object { onPath.remove(id) }
                    if let keys = top.keys {
                        var dictionary: OrderedDictionary<String, ArchiveValue> = [:]
                        for (key, value) in zip(keys, top.built) { dictionary[key] = value }
                        done = .dictionary(dictionary)
                    } else {
                        done = .array(top.built)
                    }
                }
                guard let value = done else { continue }
                guard !stack.isEmpty else { return value }
                stack[stack.count - 1].built.append(value)
            }
        }
    }
}
