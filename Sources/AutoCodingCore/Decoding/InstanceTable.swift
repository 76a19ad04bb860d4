import AutoCodingFast

/// Decoded instances by UID: a flat buffer of optional references, allocated on first use.
///
/// Its own memory, freed in `deinit` by one loop that moves each slot out: an array of `AnyObject?` frees its
/// elements through the runtime's generic array destroy, a value-witness call per slot whether it holds an
/// instance or not (89,000 slots for W1-10k's 20,000 instances).
final class InstanceTable {
    @exclusivity(unchecked) private var slots: UnsafeMutablePointer<AnyObject?>?
    private let count: Int

    init(count: Int) { self.count = count }

    deinit {
        guard let slots else { return }
        for uid in 0..<count { _ = (slots + uid).move() }
        slots.deallocate()
    }

    /// Calls `body` with each registered instance and its UID.
    func forEach(_ body: (UInt32, AnyObject) -> Void) {
        guard let slots else { return }
        for uid in 0..<count {
            if let object = slots[uid] { body(UInt32(uid), object) }
        }
    }

    subscript(uid: UInt32) -> AnyObject? {
        get {
            guard let slots, Int(uid) < count else { return nil }
            return slots[Int(uid)]
        }
        set {
            guard Int(uid) < count else { return }
            allocatedSlots()[Int(uid)] = newValue
        }
    }

    /// The slots, allocated (all `nil`) the first time an instance is registered.
    private func allocatedSlots() -> UnsafeMutablePointer<AnyObject?> {
        if let slots { return slots }
        let new = UnsafeMutablePointer<AnyObject?>.allocate(capacity: count)
        HugePages.advise(UnsafeMutableRawPointer(new), byteCount: count * MemoryLayout<AnyObject?>.stride)
        new.initialize(repeating: nil, count: count)
        slots = new
        return new
    }
}
