import AutoCodingFast
import Foundation

extension ArchiveValue {
    /// The first place where `self` and `other` differ, or nil when they are identical.
    ///
    /// Stricter than `==`: reals and dates compare by bit pattern (so NaN equals itself and `-0.0` differs
    /// from `0.0`), strings by Unicode scalars (so `"é"` differs from `"e\u{301}"`), and dictionaries by key
    /// order as well. The description names the path, as `$objects[3]["NS.time"]`, and both values.
    package func firstDifference(from other: ArchiveValue, path: String = "") -> String? {
        let here = path.isEmpty ? "root" : path
        switch (self, other) {
        case (.real(let a), .real(let b)):
            return a.bitPattern == b.bitPattern ? nil : "\(here): real \(a) vs \(b)"
        case (.date(let a), .date(let b)):
            let (x, y) = (a.timeIntervalSinceReferenceDate, b.timeIntervalSinceReferenceDate)
            return x.bitPattern == y.bitPattern ? nil : "\(here): date \(x) vs \(y) seconds since 2001"
        case (.string(let a), .string(let b)):
            return a.unicodeScalars.elementsEqual(b.unicodeScalars)
                ? nil : "\(here): string \(a.debugDescription) vs \(b.debugDescription)"
        case (.array(let a), .array(let b)):
            guard a.count == b.count else { return "\(here): array of \(a.count) vs \(b.count) elements" }
            for (i, (x, y)) in zip(a, b).enumerated() {
                if let d = x.firstDifference(from: y, path: "\(path)[\(i)]") { return d }
            }
            return nil
        case (.dictionary(let a), .dictionary(let b)):
            let (ka, kb) = (a.keys.map { Array($0.unicodeScalars) }, b.keys.map { Array($0.unicodeScalars) })
            guard ka == kb else { return "\(here): dictionary keys \(Array(a.keys)) vs \(Array(b.keys))" }
            for ((key, x), y) in zip(a, b.values) {
                if let d = x.firstDifference(from: y, path: "\(path)[\(key.debugDescription)]") { return d }
            }
            return nil
        default:
            return self == other ? nil : "\(here): \(self.brief) vs \(other.brief)"
        }
    }

    /// A short rendering for difference reports.
    package var brief: String {
        switch self {
        case .bool(let b): "bool \(b)"
        case .integer(let v): "integer \(v)"
        case .unsignedInteger(let v): "unsignedInteger \(v)"
        case .real(let v): "real \(v)"
        case .date(let d): "date \(d.timeIntervalSinceReferenceDate)"
        case .data(let d): "data of \(d.count) bytes"
        case .string(let s): "string \(s.prefix(60).debugDescription)"
        case .uid(let u): "UID \(u.rawValue)"
        case .array(let a): "array of \(a.count)"
        case .dictionary(let d): "dictionary of \(d.count)"
        }
    }

    /// The value with every date cut to whole seconds toward negative infinity, the precision of XML plists.
    package var withWholeSecondDates: ArchiveValue {
        switch self {
        case .date(let d):
            return .date(Date(timeIntervalSinceReferenceDate: d.timeIntervalSinceReferenceDate.rounded(.down)))
        case .array(let a): return .array(a.map(\.withWholeSecondDates))
        case .dictionary(let d): return .dictionary(d.mapValues(\.withWholeSecondDates))
        default: return self
        }
    }

    /// The value with every dictionary's keys in ascending order, for comparing with writers (CoreFoundation)
    /// that order keys by hash.
    package var withSortedKeys: ArchiveValue {
        switch self {
        case .array(let a): return .array(a.map(\.withSortedKeys))
        case .dictionary(let d):
            var sorted = d.mapValues(\.withSortedKeys)
            sorted.sort { $0.key < $1.key }
            return .dictionary(sorted)
        default: return self
        }
    }

    /// Whether this is the root dictionary of a keyed archive (has `$archiver` and `$objects`).
    package var looksKeyed: Bool {
        self[ArchiveKey.archiver] != nil && self[ArchiveKey.objects] != nil
    }
}
