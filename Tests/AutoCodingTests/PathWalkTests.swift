import AutoCodingFast
import Testing

@testable import AutoCodingCore

@Suite("Path walk")
struct PathWalkTests {
    /// A reader of one NSArray (node 0) holding `references` references to one NSDictionary (node 1) of `keys`
    /// keys `k0…`, whose values are the nodes 2…; it counts the keys it reads.
    final class CountingWalker: PathWalker {
        let references: Int
        let keys: Int
        var keysRead = 0

        init(references: Int, keys: Int) {
            self.references = references
            self.keys = keys
        }

        enum Place: Hashable { case array, dictionary, keysArray, objectsArray, value(Int) }

        var topValue: Int? { nil }
        func topEntry(_ key: String) -> Int? { key == "root" ? 0 : nil }
        func topEntries() -> [Int] { [0] }
        func topKeys() -> [String] { ["root"] }
        func place(of node: Int) -> Place { node == 0 ? .array : node == 1 ? .dictionary : .value(node) }
        func shape(of place: Place) -> PathShape {
            switch place {
            case .array, .keysArray, .objectsArray: .array
            case .dictionary: .instance
            case .value: .scalar
            }
        }
        func value(forKey key: String, in place: Place) -> Int? { nil }
        func entryValues(of place: Place) -> [Int] { [] }
        func instanceArray(_ key: String, of place: Place) -> Place? {
            guard place == .dictionary else { return nil }
            return key == "NS.keys" ? .keysArray : key == "NS.objects" ? .objectsArray : nil
        }
        func count(of array: Place) -> Int { array == .array ? references : keys }
        func element(_ i: Int, of array: Place) -> Int {
            switch array {
            case .array: 1
            case .keysArray: -1 - i
            default: 2 + i
            }
        }
        func string(_ node: Int) -> String? {
            keysRead += 1
            return "k\(-1 - node)"
        }
        func describe(_ place: Place) -> String { "\(place)" }
        func memoKey(of place: Place) -> AnyHashable? { place }
    }

    /// A fan-out that reaches one dictionary many times looks its key up once: the walk reuses a place's
    /// results, so an array holding one dictionary of n keys n times costs n key reads, not n².
    @Test func aKeyLookedUpOnAPlaceTheFanOutReachesAgainIsReadOnce() throws {
        let walker = CountingWalker(references: 1000, keys: 1000)
        let path = try ArchivePath(parsing: "$top.root[*].k999")
        let nodes = try PathWalk.nodes(at: path, in: walker, maxValues: 1 << 20)
        #expect(nodes == Array(repeating: 1001, count: 1000))
        #expect(walker.keysRead == 1000)
    }
}
