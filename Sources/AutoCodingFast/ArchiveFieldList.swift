import OrderedCollections

/// An object's fields while an encoder writes them, in the order first written: a later write to a key replaces
/// its value in place, as `NSKeyedArchiver` and a dictionary do. Kept as two buffers searched linearly (an object
/// has a few fields), cheaper than a hashed dictionary per object, whose contents ``ArchiveObjectTable`` takes
/// without copying them (``ArchiveObjectTable/setInstance(_:classUID:taking:)``). Keys are the same key when
/// their bytes are (``StringBytes``), as `NSString` keys are: two canonically equivalent keys are two fields.
package struct ArchiveFieldList: ~Copyable {
    private var keys = MovableBuffer<String>()
    private var values = MovableBuffer<ArchiveValue>()
    /// One bit per key written, by ``signature(of:)``: a key whose bit is clear is not in the list, so writing it
    /// appends without a search (most writes: an object's keys are distinct). A removal leaves its bit set,
    /// which costs a search, never a wrong answer.
    private var signatures: UInt64 = 0
    /// Whether a key written since the list was last emptied was `$class` (it may have been removed since).
    private(set) var mayHoldClassKey = false

    /// No field.
    package init() {}

    /// The number of fields.
    package var count: Int { keys.count }

    /// The value written for `key`; setting nil removes the field.
    package subscript(key: String) -> ArchiveValue? {
        get { signatures & Self.signature(of: key) == 0 ? nil : index(of: key).map { values[$0] } }
        set {
            let bit = Self.signature(of: key)
            if signatures & bit != 0, let i = index(of: key) {
                if let newValue {
                    values[i] = newValue
                } else {
                    keys.remove(at: i)
                    values.remove(at: i)
                }
            } else if let newValue {
                // Checked as it is written (six bytes first), not by a pass over the keys when the list is taken.
                if bit == Self.signature(of: ArchiveKey.class), ArchiveObjectTable.isClassKey(key) {
                    mayHoldClassKey = true
                }
                signatures |= bit
                keys.append(key)
                values.append(newValue)
            }
        }
    }

    /// A bit of a 64-bit mask chosen by the key's UTF-8 length (read from the string's header): keys with equal
    /// bytes have the same bit, and an object's few distinct keys rarely share one. (The first byte as well
    /// spread the bits better, but reading it is a call.)
    @inline(__always)
    private static func signature(of key: String) -> UInt64 { 1 << (UInt64(truncatingIfNeeded: key.utf8.count) & 63) }

    /// Equal bytes, tested cheapest first: the UTF-8 length, then `==` (whose small-string path beats a byte
    /// comparison: that alone cost 6 % of a W1 encode; canonical equivalence is coarser than equal bytes), then
    /// the bytes. `==` on two distinct small strings is a call into the runtime's comparison.
    private func index(of key: String) -> Int? {
        let length = key.utf8.count
        return keys.withUnsafeBufferPointer { keys in
            keys.firstIndex { $0.utf8.count == length && $0 == key && StringBytes.equal($0, key) }
        }
    }

    /// Empties the list, keeping its storage for the next object's fields.
    package mutating func removeAll() {
        signatures = 0
        mayHoldClassKey = false
        keys.removeAll()
        values.removeAll()
    }

    /// Takes the fields out, leaving the list empty with its storage.
    mutating func take(into keys: inout MovableBuffer<String>, _ values: inout MovableBuffer<ArchiveValue>) {
        signatures = 0
        mayHoldClassKey = false
        keys.moveAppend(from: &self.keys)
        values.moveAppend(from: &self.values)
    }

    /// The fields as a dictionary, for a container nested in place, `$top`, or an instance with a `$class`
    /// field. A dictionary's keys are Swift strings, equal when canonically equivalent: two fields whose keys are
    /// (`"\u{E9}"` and `"e\u{301}"`) cannot both be in it, which is an error rather than a lost field.
    package func dictionary() throws(EquivalentFieldKeys) -> OrderedDictionary<String, ArchiveValue> {
        var dictionary = OrderedDictionary<String, ArchiveValue>(minimumCapacity: count)
        for i in 0..<count {
            let key = keys[i]
            if dictionary.updateValue(values[i], forKey: key) != nil {
                throw EquivalentFieldKeys(first: dictionary.keys.first { $0 == key } ?? key, second: key)
            }
        }
        return dictionary
    }
}

/// Two keys of one object's fields that are different bytes but canonically equivalent, so that a dictionary
/// keyed by Swift strings (``ArchiveValue/dictionary(_:)``) holds only one of them.
package struct EquivalentFieldKeys: Error, CustomStringConvertible {
    /// The key written first.
    package let first: String
    /// The key written later, equivalent to ``first``.
    package let second: String

    /// A description naming both keys by their scalars, which print alike.
    package var description: String {
        func scalars(_ key: String) -> String {
            key.unicodeScalars.map { "U+" + String($0.value, radix: 16, uppercase: true) }.joined(separator: " ")
        }
        return "the keys \"\(first)\" (\(scalars(first))) and \"\(second)\" (\(scalars(second))) are canonically "
            + "equivalent: a dictionary nested in place, $top, or an object with a $class field cannot hold both"
    }
}
