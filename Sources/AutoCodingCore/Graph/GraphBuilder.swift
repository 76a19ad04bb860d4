import AutoCodingFast
import OrderedCollections

/// Builds a graph's objects straight from a validated view's records, in two passes over `$objects`: the first
/// makes one ``ArchivedObject`` per instance entry and the graph value of every other entry but long strings, the
/// second fills each object's fields. A field's value becomes its ``ArchivedValue`` directly: a UID is the
/// entry's value (a long string entry's made by the first field that refers to it, then shared by every
/// reference), a number is read from its record.
///
/// Each class descriptor is read once, and each field name made once per class: the keys met in a class's
/// instances are kept with it, and a key of a later instance that is the same key object (Apple's writers store
/// each key string once) or holds the same bytes (corelibs' writes them anew in every instance, in a different
/// order each time) is the name already made. Names are numbered per class by their string, so that two
/// spellings of one name (ASCII and UTF-16) are one, and a name met twice in an instance is found by number.
/// Instances laid out as the one before them share its names' storage. A class with more than ``keyLimit``
/// names reads the instances that bring new ones key by key, hashing each name.
struct GraphBuilder {
    /// The view's entries.
    let table: KeyedArchiveEntries
    /// The graph value each UID that is no instance names (``GraphResolver``'s table); ``unmadeString`` for a
    /// long string entry no field has referred to yet, or ``aliasMarker(of:)`` for one whose string object an
    /// earlier entry names. An instance's is its object in `shells`: kept there only, so
    /// that building and releasing this table neither retains nor releases the objects.
    private(set) var entries: [ArchivedValue]
    /// One object per instance entry, by UID.
    private(set) var shells: [ArchivedObject?]
    /// The entries that are not instances and are a UID, an array or a dictionary, with their UIDs, for
    /// ``GraphResolver``'s check that none holds a UID.
    private(set) var plainContainers: [(Int, ArchiveValue)] = []
    /// Each instance's class, as an index into `classes`; -1 for an entry that is no instance.
    private var classOf: [Int]
    private var classes: [ClassFields] = []
    /// The name numbers of the instance being filled, in slot order (kept between instances for its storage,
    /// at least as long as the instance's keys and written in place).
    private var layout: [Int] = []
    /// Where each key of the instance being filled is among its class's keys (see
    /// ``KeyedArchiveEntries/placeKeys(of:among:into:)``; at least as long as the instance's keys).
    private var places: [Int] = []
    /// In-place containers referenced from more than one place, once resolved, by bplist object: a binary plist
    /// may refer to one array from many places, and the graph keeps it one array (as the view's values keep it
    /// one).
    private var inPlace: [Int: ArchivedValue] = [:]

    /// What the instances of one class descriptor share.
    private struct ClassFields {
        let archiveClass: ArchiveClass
        /// The keys met in its instances, as the key object first met and its name number, in the order met.
        var keyObjects: [Int] = []
        var keyNumbers: [Int] = []
        /// The distinct names, by number (fewer than 64: see ``GraphBuilder/keyLimit``).
        var names: [String] = []
        /// The number of `$class`, which is not a field (-1 until met).
        var classKey = -1
        /// The layouts of the last two instances whose names were made, whose names later instances of either
        /// layout share: corelibs' writer orders each instance's keys anew, and a class of two keys (`NSArray`,
        /// `NSDate`, `NSData`...) then alternates between two layouts.
        var last = RecentLayout()
        var previous = RecentLayout()

        /// Makes the `n` names of `layout` and their `fields` the last layout, and the last the previous (whose
        /// buffer the new one takes).
        mutating func remember(_ layout: [Int], count n: Int, fields: OrderedDictionary<String, ArchivedValue>) {
            swap(&last, &previous)
            // Written into the class's own buffer: assigning `layout` would share its storage, and the next
            // instance's write would then copy it.
            if last.names.count < n { last.names = Array(repeating: -1, count: n) }
            for i in 0..<n { last.names[i] = layout[i] }
            last.count = n
            last.fields = fields
        }
    }

    /// An instance layout: its name numbers in slot order, `$class` included (the first `count` of `names`),
    /// and its fields (`$class` left out).
    private struct RecentLayout {
        var names: [Int] = []
        var count = -1
        var fields: OrderedDictionary<String, ArchivedValue> = [:]
    }

    /// The most names a class numbers: finding a new key's name compares it with at most this many, and
    /// finding a key by its bytes with at most as many key objects. At most 64: an instance's names are bits of
    /// a `UInt64` while its fields are read.
    private static let keyLimit = 64

    /// A builder for the entries of `view` (after the view's expanded-size check, see ``KeyedArchiveEntries``).
    init(view: KeyedArchiveView) throws(ArchiveError) {
        table = try KeyedArchiveEntries(view)
        entries = HugePages.array(repeating: .null, count: table.count)
        shells = HugePages.array(repeating: nil, count: table.count)
        classOf = HugePages.array(repeating: -1, count: table.count)
    }

    /// The first pass: an empty object of its class for each instance entry, the referenced value of each other
    /// entry.
    mutating func makeObjects() throws(ArchiveError) {
        // By class UID (an entry, validated by the view), the class's index plus one: an array the size of
        // `classOf`, not a dictionary hashing the UID of every instance (7 M instructions in a W1-10k graph).
        var classByUID = HugePages.array(repeating: 0, count: table.count)
        var unnamedClass: Int?
        var hint = ArchiveRecordTable.KeyHint()
        // Long string entries whose string object may have been named by an earlier entry (see `shareStrings`).
        var highestString = -1
        var revisits: [Int] = []
        for uid in 0..<table.count {
            let object = table.object(ofEntry: uid)
            let index: Int
            switch table.classReference(ofEntry: object, hint: &hint) {
            case .none:
                if table.isLongString(object) {
                    // Made where a field first refers to it (``entry(_:)``), beside the object being filled.
                    // Made here, strings sat between the shells, and the second pass found both cold when it
                    // retained them: W1's graph took a quarter longer. (A short string has no storage to retain:
                    // made here, it costs the second pass nothing.)
                    if uid != 0 { entries[uid] = Self.unmadeString }
                    if object > highestString { highestString = object } else if uid != 0 { revisits.append(uid) }
                    continue
                }
                let value = try table.entryValue(object)
                switch value {
                // An entry that is itself a UID dangles too.
                case .uid, .array, .dictionary: plainContainers.append((uid, value))
                default: break
                }
                // UID 0 is `$null` whatever its entry holds.
                if uid != 0 { entries[uid] = .reference(value) }
                continue
            case .uid(let classUID):
                if classByUID[classUID] > 0 {
                    index = classByUID[classUID] - 1
                } else {
                    let descriptor = try table.value(table.object(ofEntry: classUID))
                    index = appendClass(ArchiveClass(descriptor: descriptor) ?? ArchiveClass(name: ""))
                    classByUID[classUID] = index + 1
                }
            case .unnamed:
                if let unnamedClass {
                    index = unnamedClass
                } else {
                    index = appendClass(ArchiveClass(name: ""))
                    unnamedClass = index
                }
            }
            classOf[uid] = index
            let shell = ArchivedObject(archiveClass: classes[index].archiveClass)
            shells[uid] = shell
        }
        if !revisits.isEmpty { shareStrings(revisits) }
    }

    /// Makes the long string entries among `revisits` that name the same string object as an earlier entry refer
    /// to that entry (``aliasMarker(of:)``), so that they share one string, as a `KeyedArchive` read from the same
    /// bytes shares the object's value (and as Apple's reader returns one string object for both): the graph
    /// writes them as one entry again. A binary plist writer that uniques strings stores two `$objects` strings
    /// of equal text as one object. An entry names an object it is the first to name when the object lies past
    /// every string object named before, which is how writers order them; only the others (`revisits`) are
    /// looked up, with one pass over the entries, so archives without any pay nothing.
    private mutating func shareStrings(_ revisits: [Int]) {
        let objects = Set(revisits.map { table.object(ofEntry: $0) })
        var first: [Int: Int] = [:]
        for uid in 1..<max(table.count, 1) {
            let object = table.object(ofEntry: uid)
            guard table.isLongString(object), objects.contains(object) else { continue }
            if let earlier = first[object] { entries[uid] = Self.aliasMarker(of: earlier) } else { first[object] = uid }
        }
    }

    private mutating func appendClass(_ archiveClass: ArchiveClass) -> Int {
        classes.append(ClassFields(archiveClass: archiveClass))
        return classes.count - 1
    }

    /// The second pass: each object's fields, in file order, `$class` left out. A dictionary holds each key
    /// once: a key met twice is thrown as every reader of this package throws it.
    mutating func fillObjects() throws(ArchiveError) {
        for uid in 0..<table.count {
            let index = classOf[uid]
            guard index >= 0, let shell = shells[uid] else { continue }
            let object = table.object(ofEntry: uid)
            if learnKeys(of: object, classIndex: index) {
                shell.fields = try numberedFields(of: object, classIndex: index)
            } else {
                shell.fields = try hashedFields(of: object)
            }
        }
    }

    /// Places the keys of instance `object` among its class's (in `places`), numbering the names not met
    /// before. False when the class would pass ``keyLimit`` names: the instance is then read by
    /// ``hashedFields(of:)``.
    private mutating func learnKeys(of object: Int, classIndex: Int) -> Bool {
        table.placeKeys(of: object, among: classes[classIndex].keyObjects, into: &places)
        let n = table.count(object)
        var unplaced = 0
        for i in 0..<n where places[i] < 0 { unplaced += 1 }
        guard unplaced > 0 else { return true }
        guard classes[classIndex].names.count + unplaced <= Self.keyLimit else { return false }
        if classes[classIndex].names.isEmpty {
            // Most classes have the keys of their first instance: one allocation each, not a growth per key.
            classes[classIndex].names.reserveCapacity(unplaced)
            classes[classIndex].keyObjects.reserveCapacity(unplaced)
            classes[classIndex].keyNumbers.reserveCapacity(unplaced)
        }
        for i in 0..<n where places[i] < 0 {
            let keyObject = table.ref(object, i)
            let name = table.string(keyObject)
            var number = classes[classIndex].names.firstIndex(of: name) ?? -1
            if number < 0 {
                number = classes[classIndex].names.count
                classes[classIndex].names.append(name)
                if name == ArchiveKey.class { classes[classIndex].classKey = number }
            }
            if classes[classIndex].keyObjects.count < Self.keyLimit {
                classes[classIndex].keyObjects.append(keyObject)
                classes[classIndex].keyNumbers.append(number)
                places[i] = classes[classIndex].keyObjects.count - 1
            } else {
                // Known by number only; a later instance numbers it again (by comparing names).
                places[i] = -2 - number
            }
        }
        return true
    }

    /// The fields of instance `object` (a `$objects` entry), whose keys ``learnKeys(of:classIndex:)`` placed. An
    /// instance laid out as one of the class's last two takes that one's field names (and their hash table,
    /// past ``unhashedNames`` names): one allocation, its values.
    private mutating func numberedFields(
        of object: Int, classIndex index: Int
    ) throws(ArchiveError) -> OrderedDictionary<String, ArchivedValue> {
        let n = table.count(object)
        if layout.count < n { layout = Array(repeating: -1, count: n) }
        let classKey = classes[index].classKey
        var sameAsLast = classes[index].last.count == n
        var sameAsPrevious = classes[index].previous.count == n
        var fieldCount = 0
        // One bit per name number (below keyLimit, 64): a name met twice in the instance.
        var seen: UInt64 = 0
        for i in 0..<n {
            let place = places[i]
            let name = place >= 0 ? classes[index].keyNumbers[place] : -2 - place
            let bit: UInt64 = 1 << UInt64(truncatingIfNeeded: name)
            // A name met twice: read key by key, which throws it where the other readers do. (A number past the
            // mask's bits, which keyLimit rules out, is read that way too rather than going unchecked.)
            guard name < UInt64.bitWidth, seen & bit == 0 else { return try hashedFields(of: object) }
            seen |= bit
            layout[i] = name
            if name != classKey { fieldCount += 1 }
            if sameAsLast && classes[index].last.names[i] != name { sameAsLast = false }
            if sameAsPrevious && classes[index].previous.names[i] != name { sameAsPrevious = false }
        }
        var values: ContiguousArray<ArchivedValue>
        if fieldCount == 1, let only = (0..<n).first(where: { layout[$0] != classKey }) {
            // One field (`NSArray`'s `NS.objects`, `NSDate`'s `NS.time`): an array literal, one allocation of
            // exactly its size without the capacity arithmetic and size query of a reserved array.
            values = [try field(table.ref(object, n + only))]
        } else {
            // Reserved, then appended: the array allocation that stays specialized (`Array(repeating:)` and
            // `unsafeUninitializedCapacity` look the storage type up at run time, 750 instructions per object).
            values = []
            values.reserveCapacity(fieldCount)
            for i in 0..<n where layout[i] != classKey {
                values.append(try field(table.ref(object, n + i)))
            }
        }
        if sameAsLast || sameAsPrevious {
            var fields = sameAsLast ? classes[index].last.fields : classes[index].previous.fields
            if fields.count <= Self.unhashedNames {
                return OrderedDictionary(uncheckedUniqueKeys: fields.keys, values: values)
            }
            fields.values.withUnsafeMutableBufferPointer { fields in
                for j in fields.indices { fields[j] = values[j] }
            }
            return fields
        }
        var names = ContiguousArray<String>()
        names.reserveCapacity(fieldCount)
        for i in 0..<n where layout[i] != classKey { names.append(classes[index].names[layout[i]]) }
        let fields = OrderedDictionary(uncheckedUniqueKeys: names, values: values)
        classes[index].remember(layout, count: n, fields: fields)
        return fields
    }

    /// Up to how many names swift-collections keeps an ordered set without a hash table: a set that small is
    /// shared by copying its array, a larger one by copying the whole dictionary (so as not to hash it again).
    private static let unhashedNames = 15

    /// The fields of instance `object`, each name made and hashed (a class with more names than
    /// ``keyLimit``).
    private mutating func hashedFields(
        of object: Int
    ) throws(ArchiveError) -> OrderedDictionary<String, ArchivedValue> {
        let n = table.count(object)
        var fields = OrderedDictionary<String, ArchivedValue>(minimumCapacity: min(n, 256 * 1024))
        var sawClass = false
        for i in 0..<n {
            let name = table.string(table.ref(object, i))
            let value = try field(table.ref(object, n + i))
            if name == ArchiveKey.class {
                // Left out of the fields, but still held once only.
                guard !sawClass else { throw KeyedArchiveEntries.duplicateKey(name, object: object) }
                sawClass = true
                continue
            }
            guard fields.updateValue(value, forKey: name) == nil else {
                throw KeyedArchiveEntries.duplicateKey(name, object: object)
            }
        }
        return fields
    }

    /// What `entries` holds for a long string entry until it is first referenced: an in-place value, which no
    /// entry is otherwise.
    static var unmadeString: ArchivedValue { .inline(.bool(false)) }

    /// What `entries` holds for a long string entry whose string object entry `uid`, an earlier one, names too.
    static func aliasMarker(of uid: Int) -> ArchivedValue { .inline(.integer(Int64(uid))) }

    /// The graph value of `$objects[uid]`, a long string entry made the first time (or taken from the entry it
    /// shares its string object with, see ``shareStrings(_:)``).
    @inline(__always)
    mutating func entry(_ uid: Int) -> ArchivedValue {
        // UID 0 is `$null` whatever its entry holds.
        if uid != 0, let shell = shells[uid] { return .object(shell) }
        let value = entries[uid]
        guard case .inline(let marker) = value else { return value }
        let made: ArchivedValue
        if case .integer(let earlier) = marker {
            made = entry(Int(earlier))
        } else {
            made = Self.string(ofEntry: uid, in: table)
        }
        entries[uid] = made
        return made
    }

    /// The value of string entry `uid`.
    static func string(ofEntry uid: Int, in table: KeyedArchiveEntries) -> ArchivedValue {
        .reference(.string(table.string(table.object(ofEntry: uid))))
    }

    /// The graph value of the field (or in-place element) at bplist object `object`.
    private mutating func field(_ object: Int) throws(ArchiveError) -> ArchivedValue {
        if let uid = table.uid(ifUID: object) { return entry(uid) }
        switch table.kind(object) {
        case .array, .dictionary: return try inPlaceContainer(object)
        default:
            if let scalar = table.plainScalar(object) { return .inline(scalar) }
            return .inline(try table.value(object))
        }
    }

    /// The `count` elements of array `object`, resolved. Up to three (a person's tags, a pair of references) make
    /// an array literal, one allocation of exactly their number, as ``numberedFields(of:classIndex:)`` makes for
    /// one field.
    private mutating func inPlaceElements(_ object: Int, count n: Int) throws(ArchiveError) -> [ArchivedValue] {
        switch n {
        case 1: return [try field(table.ref(object, 0))]
        case 2: return [try field(table.ref(object, 0)), try field(table.ref(object, 1))]
        case 3:
            return [try field(table.ref(object, 0)), try field(table.ref(object, 1)), try field(table.ref(object, 2))]
        default:
            var elements: [ArchivedValue] = []
            elements.reserveCapacity(min(n, 256 * 1024))  // STYLE 5: capped
            for i in 0..<n { elements.append(try field(table.ref(object, i))) }
            return elements
        }
    }

    /// An array or dictionary stored in place, its UIDs resolved. Its nesting was bounded when the view was
    /// validated.
    private mutating func inPlaceContainer(_ object: Int) throws(ArchiveError) -> ArchivedValue {
        let n = table.count(object)
        // An empty container is not one node: every reference may have its own.
        let shared = n > 0 && table.isShared(object)
        if shared, let done = inPlace[object] { return done }
        let result: ArchivedValue
        if table.kind(object) == .array {
            result = .array(try inPlaceElements(object, count: n))
        } else {
            var fields = OrderedDictionary<String, ArchivedValue>(minimumCapacity: min(n, 256 * 1024))
            for i in 0..<n {
                let key = table.string(table.ref(object, i))
                let value = try field(table.ref(object, n + i))
                guard fields.updateValue(value, forKey: key) == nil else {
                    throw KeyedArchiveEntries.duplicateKey(key, object: object)
                }
            }
            result = .dictionary(fields)
        }
        if shared { inPlace[object] = result }
        return result
    }
}
