import Testing

@testable import AutoCodingFast

/// The encoders' field list and the buffers it moves into the `$objects` table without copying.
@Suite("Field list", .serialized)  // Two tests count live `Tracked` objects.
struct ArchiveFieldListTests {
    static func pairs(_ list: borrowing ArchiveFieldList) throws -> [KeyValue] {
        try list.dictionary().map { KeyValue(key: $0.key, value: $0.value) }
    }

    struct KeyValue: Equatable {
        let key: String
        let value: ArchiveValue
    }

    @Test func keysOfOneLengthAreDistinctFieldsAndALaterWriteReplacesInPlace() throws {
        // Equal lengths share a signature bit: each write must still search, and find only its own key.
        var list = ArchiveFieldList()
        for (i, key) in ["name", "city", "zip1", "mail"].enumerated() { list[key] = .integer(Int64(i)) }
        list["city"] = .bool(true)
        #expect(try Self.pairs(list) == [
            .init(key: "name", value: .integer(0)), .init(key: "city", value: .bool(true)),
            .init(key: "zip1", value: .integer(2)), .init(key: "mail", value: .integer(3)),
        ])
        #expect(list["zip1"] == .integer(2))
        #expect(list["nope"] == nil)
        #expect(list["abcd"] == nil)
    }

    @Test func aRemovedKeyIsGoneAndComesBackLast() throws {
        var list = ArchiveFieldList()
        list["a"] = .integer(1)
        list["b"] = .integer(2)
        list["c"] = .integer(3)
        list["a"] = nil
        #expect(list["a"] == nil)
        #expect(list.count == 2)
        list["a"] = .integer(4)
        #expect(try Self.pairs(list) == [
            .init(key: "b", value: .integer(2)), .init(key: "c", value: .integer(3)), .init(key: "a", value: .integer(4)),
        ])
    }

    @Test func canonicallyEquivalentKeysOfEqualLengthStayTwoFields() throws {
        // D + dot above + dot below, and D + dot below + dot above: five bytes each, equal under Swift's `==`.
        let first = "\u{1E0A}\u{323}", second = "\u{1E0C}\u{307}"
        #expect(first == second && first.utf8.count == second.utf8.count && Array(first.utf8) != Array(second.utf8))
        var list = ArchiveFieldList()
        list[first] = .integer(1)
        list[second] = .integer(2)
        #expect(list.count == 2)
        #expect(list[first] == .integer(1))
        #expect(list[second] == .integer(2))
        // A dictionary holds one of them: asked for one, the list names both.
        #expect {
            _ = try list.dictionary()
        } throws: { error in
            guard let keys = error as? EquivalentFieldKeys else { return false }
            return keys.first.unicodeScalars.elementsEqual(first.unicodeScalars)
                && keys.second.unicodeScalars.elementsEqual(second.unicodeScalars)
                && "\(keys)".contains("U+1E0A U+323") && "\(keys)".contains("U+1E0C U+307")
        }
    }

    @Test func theTableTakesTheFieldsAndTheListIsReusedEmpty() throws {
        var table = ArchiveObjectTable()
        var list = ArchiveFieldList()
        let classUID = table.append(.string("Person"))
        let first = table.append(.string("$null")), second = table.append(.string("$null"))
        list["name"] = .uid(classUID)
        list["age"] = .integer(7)
        try table.setInstance(first, classUID: classUID, taking: &list)
        #expect(list.count == 0)
        #expect(list["name"] == nil)
        list["age"] = .integer(8)
        try table.setInstance(second, classUID: classUID, taking: &list)
        let objects = table.materialized
        #expect(
            objects[first.index] == .dictionary(["name": .uid(classUID), "age": .integer(7), "$class": .uid(classUID)]))
        #expect(objects[second.index] == .dictionary(["age": .integer(8), "$class": .uid(classUID)]))
    }

    /// The entry a fresh table makes of the fields `fill` writes, as an instance of a class at `classUID`.
    static func instance(_ fill: (inout ArchiveFieldList) -> Void) throws
        -> (entry: ArchiveObjectTable.Entry, value: ArchiveValue, classUID: ArchiveUID)
    {
        var table = ArchiveObjectTable()
        var list = ArchiveFieldList()
        let classUID = table.append(.string("Thing"))
        let uid = table.append(.string("$null"))
        fill(&list)
        try table.setInstance(uid, classUID: classUID, taking: &list)
        #expect(list.count == 0)
        return (table.entry(uid), table.materialized[uid.index], classUID)
    }

    @Test func aFieldNamedClassTakesTheClassReferenceInItsPlace() throws {
        let made = try Self.instance { list in
            list["before"] = .integer(1)
            list["$class"] = .integer(2)
            list["after"] = .integer(3)
        }
        #expect(made.value == .dictionary(["before": .integer(1), "$class": .uid(made.classUID), "after": .integer(3)]))
    }

    @Test func aClassFieldRemovedBeforeTheTableTakesTheListLeavesAPlainInstance() throws {
        let made = try Self.instance { list in
            list["$class"] = .integer(2)
            list["kept"] = .integer(1)
            list["$class"] = nil
        }
        guard case .instance(_, _, let count) = made.entry else {
            Issue.record("expected a plain instance entry, got \(made.entry)")
            return
        }
        #expect(count == 1)
        #expect(made.value == .dictionary(["kept": .integer(1), "$class": .uid(made.classUID)]))
    }

    /// Counts live instances, to see each element destroyed once.
    final class Tracked {
        nonisolated(unsafe) static var live = 0
        let value: Int
        init(_ value: Int) {
            self.value = value
            Self.live += 1
        }
        deinit { Self.live -= 1 }
    }

    @Test func buffersMoveGrowRemoveAndDestroyEachElementOnce() {
        let before = Tracked.live
        do {
            var source = MovableBuffer<Tracked>()
            var target = MovableBuffer<Tracked>()
            for i in 0..<1_000 { source.append(Tracked(i)) }
            target.append(Tracked(-1))
            target.moveAppend(from: &source)
            #expect(source.count == 0)
            #expect(target.count == 1_001)
            #expect(Tracked.live - before == 1_001)
            target.remove(at: 0)
            target.remove(at: 500)
            #expect(target.count == 999)
            #expect(target[0].value == 0 && target[499].value == 499 && target[500].value == 501)
            #expect(Tracked.live - before == 999)
            // The emptied source keeps working.
            source.append(Tracked(7))
            target.moveAppend(from: &source)
            #expect(target[999].value == 7)
            target.removeAll()
            #expect(Tracked.live - before == 0)
            target.append(Tracked(9))
            source.append(Tracked(10))
        }
        #expect(Tracked.live == before)
    }

    /// Past ``AnonymousMemory/threshold`` bytes a buffer leaves `malloc` for a mapping of its own, then grows by
    /// moving its pages: every element is kept, in order, through the move and each later growth, and each is
    /// destroyed once.
    @Test func aBufferGrownIntoAMappingKeepsEveryElement() {
        let before = Tracked.live
        do {
            let n = 5 * AnonymousMemory.threshold / MemoryLayout<Tracked>.stride
            var buffer = MovableBuffer<Tracked>()
            var source = MovableBuffer<Tracked>()
            for i in 0..<n {
                source.append(Tracked(i))
                // Moved in batches, as the encoders move each object's fields into the table.
                if i % 1_000 == 999 || i == n - 1 { buffer.moveAppend(from: &source) }
            }
            #expect(buffer.count == n)
            #expect(Tracked.live - before == n)
            let inOrder = buffer.withUnsafeBufferPointer { elements in
                elements.indices.allSatisfy { elements[$0].value == $0 }
            }
            #expect(inOrder)
            buffer.removeSuffix(from: n / 2)
            #expect(Tracked.live - before == n / 2)
            buffer.reserveCapacity(4 * n)
            #expect(buffer[n / 2 - 1].value == n / 2 - 1)
        }
        #expect(Tracked.live == before)
    }
}
