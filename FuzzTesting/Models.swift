// Model types for the models and roundtrip targets: plain Codable, and @AutoCoding classes with cycles.
import AutoCoding
import Foundation

struct FuzzEverything: Codable, Equatable {
    var string = ""
    var int = 0
    var int8: Int8 = 0
    var uint64: UInt64 = 0
    var int64: Int64 = 0
    var double = 0.0
    var float: Float = 0
    var bool = false
    var data = Data()
    var date = Date(timeIntervalSinceReferenceDate: 0)
    var url: URL?
    var uuid = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    var optional: String?
    var list: [Int] = []
    var nested: [[Int]] = []
    var dictionary: [String: Int] = [:]
    var intKeys: [Int: String] = [:]
    var set: Set<String> = []
    var range = ArchiveRange(location: 0, length: 0)
    var rect = ArchiveRect(origin: ArchivePoint(x: 0, y: 0), size: ArchiveSize(width: 0, height: 0))

    static func == (l: Self, r: Self) -> Bool {
        l.string == r.string && l.int == r.int && l.int8 == r.int8 && l.uint64 == r.uint64 && l.int64 == r.int64
            && l.double.bitPattern == r.double.bitPattern && l.float.bitPattern == r.float.bitPattern
            && l.bool == r.bool && l.data == r.data
            && l.date.timeIntervalSinceReferenceDate.bitPattern == r.date.timeIntervalSinceReferenceDate.bitPattern
            && l.url == r.url && l.uuid == r.uuid && l.optional == r.optional && l.list == r.list
            && l.nested == r.nested && l.dictionary == r.dictionary && l.intKeys == r.intKeys && l.set == r.set
            && l.range == r.range && same(l.rect, r.rect)
    }

    /// Geometry is archived as text (`{x, y}`, as Apple writes `NS.pointval`), which keeps a NaN but not its sign
    /// or payload: any NaN matches any NaN, other values bit for bit.
    private static func same(_ l: ArchiveRect, _ r: ArchiveRect) -> Bool {
        let lv = [l.origin.x, l.origin.y, l.size.width, l.size.height]
        let rv = [r.origin.x, r.origin.y, r.size.width, r.size.height]
        return zip(lv, rv).allSatisfy { $0.bitPattern == $1.bitPattern || ($0.isNaN && $1.isNaN) }
    }
}

final class FuzzCodablePerson: Codable {
    var name = ""
    var age = 0
    var friends: [FuzzCodablePerson] = []
    var info: FuzzEverything?
}

@AutoCoding
final class FuzzNode {
    var name = ""
    var value = 0
    var weight = 0.0
    var children: [FuzzNode] = []
    var next: FuzzNode?
    var tags: [String: Int] = [:]
    var blob: Data?
    var when: Date?
}

@AutoCoding
struct FuzzValue {
    var title = ""
    var node: FuzzNode?
    var flags: [Bool] = []
}

/// Every node `root` reaches through `children` and `next`, each once.
func reachableNodes(from root: FuzzNode) -> [FuzzNode] {
    var seen: Set<ObjectIdentifier> = [ObjectIdentifier(root)]
    var found = [root]
    var pending = [root]
    while let node = pending.popLast() {
        for next in node.children + (node.next.map { [$0] } ?? []) where seen.insert(ObjectIdentifier(next)).inserted {
            found.append(next)
            pending.append(next)
        }
    }
    return found
}
