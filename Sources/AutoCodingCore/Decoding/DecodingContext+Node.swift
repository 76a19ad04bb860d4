/// A decode's position in the archive.
extension DecodingContext {
    /// Where a value is: the bplist object of the `$objects` entry (or of an in-place value) and its UID.
    ///
    /// Eight bytes, so that a decoder of one (``_ArchiveDecoder``: the context, a node and a path) fits an
    /// existential's inline buffer: at 13 it did not, and handing each object's decoder to its
    /// `decodeProperties(from:)` allocated a box per object. Object numbers and UIDs are below the table's
    /// object count, which a binary plist of at most `UInt32.max` bytes keeps below `UInt32.max - 1`.
    struct Node {
        /// The object number plus one (0 for `$null`).
        private let objectPlusOne: UInt32
        /// The UID, or `UInt32.max` for none.
        private let uidBits: UInt32

        init(object: Int, uid: UInt32?) {
            objectPlusOne = UInt32(truncatingIfNeeded: object &+ 1)
            uidBits = uid ?? .max
        }

        /// The bplist object number; -1 for `$null`.
        var object: Int { Int(objectPlusOne) &- 1 }
        /// The `$objects` UID, or nil for a value stored in place.
        var uid: UInt32? { uidBits == .max ? nil : uidBits }
        var isNull: Bool { objectPlusOne == 0 }
        static let null = Node(object: -1, uid: 0)
    }
}
