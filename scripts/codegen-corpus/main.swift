// Driver for scripts/codegen-corpus.sh, compiled together with the models `autocoding codegen` wrote for the
// corpus: decodes each archive into the typed models, re-encodes it, compares graphs, and names the first
// difference when there is one.
import AutoCoding
import AutoCodingFast
import Foundation

/// The first place where two graphs differ, walking objects pairwise from the roots (a worklist: cycles).
func firstDifference(_ a: ArchiveGraph, _ b: ArchiveGraph) -> String? {
    var forward: [ObjectIdentifier: ObjectIdentifier] = [:]
    var backward: [ObjectIdentifier: ObjectIdentifier] = [:]
    var work: [(ArchivedValue, ArchivedValue, String)] = a.roots.keys.compactMap { key in
        b.roots[key].map { (a.roots[key]!, $0, key) }
    }
    while let (x, y, at) = work.popLast() {
        switch (x, y) {
        case (.null, .null): continue
        case (.object(let p), .object(let q)):
            // One object on one side must be one object on the other (sharing, cycles).
            if let partner = forward[ObjectIdentifier(p)] {
                guard partner == ObjectIdentifier(q) else { return "\(at): two objects in the original became one" }
                continue
            }
            guard backward[ObjectIdentifier(q)] == nil else { return "\(at): an object shared in the original became two" }
            forward[ObjectIdentifier(p)] = ObjectIdentifier(q)
            backward[ObjectIdentifier(q)] = ObjectIdentifier(p)
            guard p.archiveClass == q.archiveClass else {
                return "\(at): class \(q.archiveClass.name)\(q.archiveClass.chain) became \(p.archiveClass.name)\(p.archiveClass.chain)"
            }
            let missing = q.fields.keys.filter { p.fields[$0] == nil }
            if let key = missing.first {
                let isNull = if case .null = q.fields[key]! { true } else { false }
                return "\(at) (\(q.className)): key \(key) \(isNull ? "stored as $null " : "")is not written back"
            }
            if let key = p.fields.keys.first(where: { q.fields[$0] == nil }) {
                return "\(at) (\(q.className)): key \(key) is new"
            }
            // Key order, and the entry order of a scalar-keyed dictionary, are not compared (see isEquivalent).
            var fields = q.fields
            if let left = scalarKeyed(p), let right = scalarKeyed(q) {
                guard Set(left.keys) == Set(right.keys) else { return "\(at) (\(q.className)): dictionary keys differ" }
                for (key, value) in right { work.append((left[key]!, value, "\(at)[\(key)]")) }
                fields["NS.keys"] = nil
                fields["NS.objects"] = nil
            }
            for (key, value) in fields { work.append((p.fields[key]!, value, "\(at).\(key)")) }
        case (.array(let p), .array(let q)):
            guard p.count == q.count else { return "\(at): \(q.count) elements became \(p.count)" }
            for (i, pair) in zip(p, q).enumerated() { work.append((pair.0, pair.1, "\(at)[\(i)]")) }
        case (.dictionary(let p), .dictionary(let q)):
            guard p.keys == q.keys else { return "\(at): in-place dictionary keys differ" }
            for (key, value) in q { work.append((p[key]!, value, "\(at)[\(key)]")) }
        case (.inline(let p), .inline(let q)), (.reference(let p), .reference(let q)):
            if p != q { return "\(at): value \(q) became \(p)" }
        default:
            return "\(at): \(shape(y)) became \(shape(x))"
        }
    }
    return nil
}

/// An NSDictionary's entries by scalar key, or nil for other objects.
func scalarKeyed(_ object: ArchivedObject) -> [String: ArchivedValue]? {
    guard object.className.hasSuffix("Dictionary"), case .array(let keys)? = object["NS.keys"],
        case .array(let values)? = object["NS.objects"], keys.count == values.count,
        keys.allSatisfy({ $0.scalar != nil })
    else { return nil }
    return Dictionary(zip(keys.map { "\($0)" }, values), uniquingKeysWith: { first, _ in first })
}

func shape(_ value: ArchivedValue) -> String {
    switch value {
    case .null: "$null"
    case .object(let object): "a \(object.className) object"
    case .array: "an in-place array"
    case .dictionary: "an in-place dictionary"
    case .inline(let scalar): "an in-place \(scalar.typeName)"
    case .reference(let scalar): "a referenced \(scalar.typeName)"
    }
}

var counts: [String: Int] = [:]
for path in CommandLine.arguments.dropFirst() {
    let name = URL(fileURLWithPath: path).lastPathComponent
    let verdict: String
    do {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let original = try ArchiveGraph(bytes: [UInt8](data))
        let again = try GeneratedModels.reencode(data)
        let back = try ArchiveGraph(bytes: [UInt8](again))
        verdict = back.isEquivalent(to: original)
            ? "round-trips" : "differs: " + (firstDifference(back, original) ?? "object sharing differs")
    } catch let error as GeneratedModels.NotTyped {
        verdict = "not typed: \(error)"
    } catch {
        verdict = "fails: \(error)"
    }
    counts[String(verdict.prefix(while: { $0 != ":" })), default: 0] += 1
    print("\(name)\t\(verdict)")
}
print("summary\t\(counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")
