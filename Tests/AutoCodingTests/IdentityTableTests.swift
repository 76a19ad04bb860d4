import AutoCodingFast
import Testing

@testable import AutoCodingCore

/// The encoders' identity memo (``IdentityTable``): what a dictionary keyed by `ObjectIdentifier` would answer.
@Suite("Identity table")
struct IdentityTableTests {
    final class Box {}

    @Test func answersAsADictionaryThroughGrowthOverwritesAndRemovals() {
        let objects = (0..<5_000).map { _ in Box() }
        var table = IdentityTable()
        var expected: [ObjectIdentifier: ArchiveUID] = [:]
        for (i, object) in objects.enumerated() {
            let id = ObjectIdentifier(object)
            // From 1: UID 0 is `$null`, which no instance or class descriptor is given.
            table[id] = ArchiveUID(UInt32(i + 1))
            expected[id] = ArchiveUID(UInt32(i + 1))
            if i % 7 == 0 {
                // Set again: replaced in place.
                table[id] = ArchiveUID(UInt32(i + 100_000))
                expected[id] = ArchiveUID(UInt32(i + 100_000))
            }
            if i % 11 == 0 {
                // Removed, and for some set once more.
                table[id] = nil
                expected[id] = nil
                if i % 22 == 0 {
                    table[id] = ArchiveUID(UInt32(i + 200_000))
                    expected[id] = ArchiveUID(UInt32(i + 200_000))
                }
            }
        }
        for object in objects {
            let id = ObjectIdentifier(object)
            #expect(table[id] == expected[id])
        }
        let stranger = Box()
        #expect(table[ObjectIdentifier(stranger)] == nil)
        #expect(table[ObjectIdentifier(Box.self)] == nil)
    }

    @Test func aReservationKeepsTheKeysAndHoldsTheNewOnes() {
        let early = (0..<300).map { _ in Box() }
        let list = (0..<20_000).map { _ in Box() }
        var table = IdentityTable()
        for (i, object) in early.enumerated() { table[ObjectIdentifier(object)] = ArchiveUID(UInt32(i + 1)) }
        // Room for a list of new instances (and more): the keys already in move into the larger table.
        table.reserve(list.count + 10)
        for (i, object) in early.enumerated() { #expect(table[ObjectIdentifier(object)] == ArchiveUID(UInt32(i + 1))) }
        for (i, object) in list.enumerated() { table[ObjectIdentifier(object)] = ArchiveUID(UInt32(1_000 + i)) }
        table.reserve(0)
        table.reserve(5)
        for (i, object) in early.enumerated() { #expect(table[ObjectIdentifier(object)] == ArchiveUID(UInt32(i + 1))) }
        for (i, object) in list.enumerated() { #expect(table[ObjectIdentifier(object)] == ArchiveUID(UInt32(1_000 + i))) }
        #expect(table[ObjectIdentifier(Box())] == nil)
    }

    @Test func removingAKeyNeverSetChangesNothing() {
        var table = IdentityTable()
        let object = Box()
        table[ObjectIdentifier(object)] = nil
        #expect(table[ObjectIdentifier(object)] == nil)
        table[ObjectIdentifier(object)] = ArchiveUID(3)
        #expect(table[ObjectIdentifier(object)] == ArchiveUID(3))
    }
}
