// An experiment, not part of the package's build (BENCHMARKS.md, the twenty-fifth step): how fast a typed decode
// of W1 can be over this package's validated view, with a decoder written by hand for W1's schema, as generated
// code could be. It reads `$objects` entries by bplist object number through `KeyedArchiveEntries`: no
// `Decoder`, no key strings, no dispatch per field. Two passes in archive order (one object per person and address
// entry, then their fields); each key identified by its length and first eight bytes.
//
// To run it, in a scratch worktree: make `KeyedArchiveEntries.recordList` and `.raw` `package` (they are
// `@usableFromInline` internal), copy this file to `Sources/FloorExperiment/main.swift`, add
// `.executableTarget(name: "FloorExperiment", dependencies: ["AutoCodingFast"])` to Package.swift, then
//   swift build -c release --product FloorExperiment
//   .build/release/FloorExperiment W1-100000-corelibs.bplist 9
// (the archive `autocoding-bench --child W1:ours.graph --n 100000 --child-dir DIR` leaves in DIR). It prints the
// first person, then the median decode time and the view's time alone.
// person and address entry, then their fields; each key identified by its length and first bytes.
import AutoCodingFast
import Foundation

final class Person {
    var name = ""
    var age = 0
    var height = 0.0
    var isActive = false
    var email = ""
    var birthday = Date(timeIntervalSinceReferenceDate: 0)
    var tags: [String] = []
    var address = Address()
    var friends: [Person] = []
}

final class Address {
    var street = ""
    var city = ""
    var zip = ""
}

enum Key { case name, age, height, isActive, email, birthday, tags, address, friends, street, city, zip, time, objects, other }

/// The key at bplist object `key` (an ASCII string), from its length and its first eight bytes.
@inline(__always)
func key(_ t: KeyedArchiveEntries, _ object: Int) -> Key {
    let record = t.recordList[object]
    guard record.kind == .asciiString else { return .other }
    let n = Int(record.count)
    let word = t.raw.loadUnaligned(fromByteOffset: record.offset, as: UInt64.self)
    let w = n >= 8 ? word : word & ((1 << UInt64(8 * n)) - 1)
    switch (n, w) {
    case (4, 0x656d_616e): return .name          // "name"
    case (3, 0x65_6761): return .age             // "age"
    case (6, 0x7468_6769_6568): return .height   // "height"
    case (8, 0x6576_6974_6341_7369): return .isActive  // "isActive"
    case (5, 0x6c_6961_6d65): return .email      // "email"
    case (8, 0x7961_6468_7472_6962): return .birthday  // "birthday"
    case (4, 0x7367_6174): return .tags          // "tags"
    case (7, 0x73_7365_7264_6461): return .address   // "address"
    case (7, 0x73_646e_6569_7266): return .friends   // "friends"
    case (6, 0x7465_6572_7473): return .street   // "street"
    case (4, 0x7974_6963): return .city          // "city"
    case (3, 0x70_697a): return .zip             // "zip"
    case (7, 0x656d_6974_2e53_4e): return .time  // "NS.time"
    case (10, 0x6365_6a62_6f2e_534e):  // "NS.objects": its last two bytes too
        return t.raw.loadUnaligned(fromByteOffset: record.offset + 8, as: UInt16.self) == 0x7374 ? .objects : .other
    default: return .other
    }
}

struct Decoder {
    let t: KeyedArchiveEntries
    var people: [Person?]
    var addresses: [Address?]

    init(_ t: KeyedArchiveEntries) {
        self.t = t
        people = Array(repeating: nil, count: t.count)
        addresses = Array(repeating: nil, count: t.count)
    }

    func string(_ valueObject: Int) -> String {
        guard let uid = t.uid(ifUID: valueObject) else { return "" }
        return t.string(t.object(ofEntry: uid))
    }

    /// The value of key `wanted` in the instance entry `uid` (NSDate's NS.time, NSArray's NS.objects).
    func field(_ wanted: Key, ofEntry uid: Int) -> Int? {
        let object = t.object(ofEntry: uid)
        let n = t.count(object)
        for i in 0..<n where key(t, t.ref(object, i)) == wanted { return t.ref(object, n + i) }
        return nil
    }

    mutating func make() {
        var kinds: [Int: Int] = [:]  // class UID → 1 person, 2 address, 0 other
        var hint = ArchiveRecordTable.KeyHint()
        for uid in 0..<t.count {
            guard case .uid(let classUID) = t.classReference(ofEntry: t.object(ofEntry: uid), hint: &hint) else { continue }
            var kind = kinds[classUID]
            if kind == nil {
                let name = (try? t.value(t.object(ofEntry: classUID))).flatMap(ArchiveClass.init(descriptor:))?.name ?? ""
                kind = name.hasSuffix("Person") ? 1 : name.hasSuffix("Address") ? 2 : 0
                kinds[classUID] = kind
            }
            if kind == 1 { people[uid] = Person() } else if kind == 2 { addresses[uid] = Address() }
        }
    }

    mutating func fill() {
        for uid in 0..<t.count {
            if let person = people[uid] { fill(person, t.object(ofEntry: uid)) }
            else if let address = addresses[uid] { fill(address, t.object(ofEntry: uid)) }
        }
    }

    func fill(_ a: Address, _ object: Int) {
        let n = t.count(object)
        for i in 0..<n {
            let v = t.ref(object, n + i)
            switch key(t, t.ref(object, i)) {
            case .street: a.street = string(v)
            case .city: a.city = string(v)
            case .zip: a.zip = string(v)
            default: break
            }
        }
    }

    func fill(_ p: Person, _ object: Int) {
        let n = t.count(object)
        for i in 0..<n {
            let v = t.ref(object, n + i)
            switch key(t, t.ref(object, i)) {
            case .name: p.name = string(v)
            case .email: p.email = string(v)
            case .age: if case .integer(let x)? = t.plainScalar(v) { p.age = Int(x) }
            case .height: if case .real(let x)? = t.plainScalar(v) { p.height = x }
            case .isActive: if case .bool(let x)? = t.plainScalar(v) { p.isActive = x }
            case .birthday:
                if let uid = t.uid(ifUID: v), let time = field(.time, ofEntry: uid), case .real(let x)? = t.plainScalar(time) {
                    p.birthday = Date(timeIntervalSinceReferenceDate: x)
                }
            case .address: if let uid = t.uid(ifUID: v), let a = addresses[uid] { p.address = a }
            case .tags:
                if let uid = t.uid(ifUID: v), let list = field(.objects, ofEntry: uid) {
                    let count = t.count(list)
                    var tags: [String] = []
                    tags.reserveCapacity(count)
                    for j in 0..<count { tags.append(string(t.ref(list, j))) }
                    p.tags = tags
                }
            case .friends:
                if let uid = t.uid(ifUID: v), let list = field(.objects, ofEntry: uid) {
                    let count = t.count(list)
                    var friends: [Person] = []
                    friends.reserveCapacity(count)
                    for j in 0..<count {
                        if let f = t.uid(ifUID: t.ref(list, j)), let friend = people[f] { friends.append(friend) }
                    }
                    p.friends = friends
                }
            default: break
            }
        }
    }

    func root() -> [Person] {
        guard case .uid(let rootUID)? = try? t.top()["root"], let list = field(.objects, ofEntry: Int(rootUID.index)) else { return [] }
        return (0..<t.count(list)).compactMap { t.uid(ifUID: t.ref(list, $0)).flatMap { people[$0] } }
    }
}

func decode(_ bytes: [UInt8]) throws -> [Person] {
    let view = try KeyedArchiveView(bytes: bytes)
    var decoder = Decoder(try KeyedArchiveEntries(view))
    decoder.make()
    decoder.fill()
    return decoder.root()
}

let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: CommandLine.arguments[1])))
let runs = Int(CommandLine.arguments.count > 2 ? CommandLine.arguments[2] : "7") ?? 7
var times: [Double] = []
var viewTimes: [Double] = []
for run in 0...runs {
    let v0 = DispatchTime.now().uptimeNanoseconds
    _ = try KeyedArchiveView(bytes: bytes)
    let v1 = DispatchTime.now().uptimeNanoseconds
    let start = DispatchTime.now().uptimeNanoseconds
    let people = try decode(bytes)
    let end = DispatchTime.now().uptimeNanoseconds
    if run == 0 {
        let p = people[1]
        print(people.count, p.name, p.age, p.height, p.isActive, p.email, p.birthday, p.tags, p.address.city, p.address.zip, p.friends.count,
              people.reduce(0) { $0 + $1.friends.count }, people.reduce(0) { $0 + $1.tags.count })
    } else {
        times.append(Double(end - start) / 1e6)
        viewTimes.append(Double(v1 - v0) / 1e6)
    }
    for p in people { p.friends = [] }
}
times.sort(); viewTimes.sort()
print("decode median \(times[times.count / 2]) ms, view alone \(viewTimes[viewTimes.count / 2]) ms, runs \(times.map { Int($0) })")
