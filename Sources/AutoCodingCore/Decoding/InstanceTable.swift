import AutoCodingFast

/// Decoded instances by UID: a flat array, allocated on first use.
struct InstanceTable {
    private var slots: [AnyObject?] = []
    private let count: Int

    init(count: Int) { self.count = count }

    /// Calls `body` with each registered instance and its UID.
    func forEach(_ body: (UInt32, AnyObject) -> Void) {
        for (uid, slot) in slots.enumerated() { if let slot { body(UInt32(uid), slot) } }
    }

    subscript(uid: UInt32) -> AnyObject? {
        get { Int(uid) < slots.count ? slots[Int(uid)] : nil }
        set {
            if slots.isEmpty { slots = HugePages.array(repeating: nil, count: count) }
            if Int(uid) < slots.count { slots[Int(uid)] = newValue }
        }
    }
}
