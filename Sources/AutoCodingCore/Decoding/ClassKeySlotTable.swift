import AutoCodingFast

/// The ``ArchiveKeySlots`` of each class met in a decode, by the UID of its class descriptor. Each is kept until the
/// decode ends (none is ever dropped), so the keyed readers hold them unretained.
struct ClassKeySlotTable {
    /// The first classes met, searched in order: an archive has few classes, and comparing a handful of integers
    /// costs less than hashing (the lookup runs for every object decoded).
    private var recent: [(uid: UInt32, slots: ArchiveKeySlots)] = []
    /// The classes met once ``recent`` is full.
    private var more: [UInt32: ArchiveKeySlots] = [:]

    /// Classes beyond this many get no slots (their fields are found by scanning): an archive of a million
    /// one-object classes would otherwise cost a million slot tables.
    static let capacity = 4096

    /// The slots of the class whose descriptor is `$objects[uid]`; nil once ``capacity`` classes have some.
    mutating func slots(ofClass uid: UInt32) -> ArchiveKeySlots? {
        for entry in recent where entry.uid == uid { return entry.slots }
        if let known = more[uid] { return known }
        guard more.count < Self.capacity else { return nil }
        let slots = ArchiveKeySlots()
        if recent.count < 8 { recent.append((uid, slots)) } else { more[uid] = slots }
        return slots
    }
}
