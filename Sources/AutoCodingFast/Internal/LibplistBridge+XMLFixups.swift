#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The corrections the XML writer makes around libplist's output: dates an XML plist cannot hold, years libplist
// writes with fewer than four digits, and the sign of -0.0, which libplist drops.
extension LibplistBridge {
    /// The dates Apple's XML form (`YYYY-MM-DDTHH:MM:SSZ`, four-digit year) can hold, in seconds since 2001:
    /// 0000-01-01T00:00:00Z up to, not including, 10000-01-01T00:00:00Z.
    static let xmlDateRange: Range<Double> = -63_145_526_400 ..< 252_423_993_600

    /// 1000-01-01T00:00:00Z: libplist writes earlier years with fewer than four digits.
    static let year1000: Double = -31_588_531_200

    /// Throws for a date the XML form cannot hold (libplist would write a year our reader, like
    /// CoreFoundation, refuses); returns whether some date has a year below 1000.
    static func checkXMLDates(in value: ArchiveValue) throws(ArchiveError) -> Bool {
        var early = false
        var pending = [value]
        while let next = pending.popLast() {
            switch next {
            case .date(let date):
                let seconds = date.timeIntervalSinceReferenceDate
                guard xmlDateRange.contains(seconds) else {
                    throw ArchiveError.unexpectedType(
                        "date \(seconds) s after 2001 is outside years 0000...9999, which an XML plist cannot hold")
                }
                if seconds < year1000 { early = true }
            case .array(let elements): pending.append(contentsOf: elements)
            case .dictionary(let entries):
                // XML spells a UID as this very dictionary, so one would read back as a UID (or as an invalid one).
                if entries.count == 1, let first = entries.elements.first, first.key == "CF$UID" {
                    switch first.value {
                    case .integer, .unsignedInteger:
                        throw ArchiveError.unexpectedType(
                            "a dictionary whose only key is CF$UID, with an integer, reads back from XML as a UID")
                    default: break
                    }
                }
                pending.append(contentsOf: entries.values)
            default: break
            }
        }
        return early
    }

    /// Left-pads with zeros the years libplist wrote with fewer than four digits (`<date>197-01-02T…`, from
    /// `strftime`'s `%Y`), giving the form Apple writes and every reader, ours included, accepts.
    static func paddingShortYears(in xml: [UInt8]) -> [UInt8] {
        let open = Array("<date>".utf8)
        var result: [UInt8] = []
        result.reserveCapacity(xml.count + 16)
        var i = 0
        while i < xml.count {
            if xml[i] == open[0], xml[i...].starts(with: open) {
                result.append(contentsOf: open)
                i += open.count
                let digits = xml[i...].prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }.count
                if digits < 4 { result.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: 4 - digits)) }
                continue
            }
            result.append(xml[i])
            i += 1
        }
        return result
    }

    /// Numbers, in document order, the reals of `value` and notes which are -0.0.
    ///
    /// libplist writes every real zero as `0.0` (its `dtostr` tests `realval == 0.0`), losing the sign that
    /// the binary format and CoreFoundation keep. Recursion is bounded by ``maxWriteDepth``, already checked.
    static func collectNegativeZeroReals(in value: ArchiveValue, ordinal: inout Int, into set: inout Set<Int>) {
        switch value {
        case .real(let real):
            if real == 0 && real.sign == .minus { set.insert(ordinal) }
            ordinal += 1
        case .array(let elements):
            for element in elements { collectNegativeZeroReals(in: element, ordinal: &ordinal, into: &set) }
        case .dictionary(let entries):
            for element in entries.values { collectNegativeZeroReals(in: element, ordinal: &ordinal, into: &set) }
        default:
            break
        }
    }

    /// Rewrites the `<real>0.0</real>` elements numbered in `ordinals` as `-0.0`.
    ///
    /// libplist writes nodes in document order (a dictionary's keys and values alternate, as in
    /// `OrderedDictionary`), and escapes `<` in text, so the n-th literal `<real>` in its output is the n-th
    /// real of the value.
    static func restoringNegativeZeros(_ ordinals: Set<Int>, in xml: [UInt8]) -> [UInt8] {
        let open = Array("<real>".utf8)
        let zero = Array("0.0</real>".utf8)
        var result: [UInt8] = []
        result.reserveCapacity(xml.count + ordinals.count)
        var ordinal = 0
        var i = 0
        while i < xml.count {
            if xml[i] == open[0], xml[i...].starts(with: open) {
                result.append(contentsOf: open)
                i += open.count
                if ordinals.contains(ordinal), xml[i...].starts(with: zero) { result.append(UInt8(ascii: "-")) }
                ordinal += 1
                continue
            }
            result.append(xml[i])
            i += 1
        }
        return result
    }
}
