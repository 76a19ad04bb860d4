import Foundation

/// `YYYY-MM-DDTHH:MM:SS[.fraction]Z` dates, written and read by hand so that the fraction can carry as many
/// digits as a `Double` needs, for years 1 to 9999.
package enum ISO8601Text {
    /// Seconds from 1970 to 2001, the reference date of plist dates.
    private static let referenceOffset: Int64 = 978_307_200

    /// The text for seconds since 2001, and whether reading it back gives exactly the same `Double`; nil
    /// when the date is not finite or outside years 1…9999.
    static func format(_ time: Double) -> (text: String, isExact: Bool)? {
        guard time.isFinite, abs(time) < 1e12 else { return nil }
        let whole = time.rounded(.down)
        let fraction = time - whole  // exact: both are close in magnitude or `whole` is 0
        guard let seconds = Int64(exactly: whole), let base = dateTime(secondsSince2001: seconds) else { return nil }
        var best = base + "Z"
        for digits in [0, 3, 6, 9] {
            let scale = pow(10, Double(digits))
            let scaled = (fraction * scale).rounded()
            // Rounding up to a whole second would need a carry into the seconds; the next width will do.
            guard scaled < scale, let units = Int64(exactly: scaled) else { continue }
            let text = digits == 0 ? base + "Z" : base + "." + pad(units, digits) + "Z"
            // Bit for bit: `==` would call the text of 0 exact for a time of -0.0 and drop the sign.
            if parse(text)?.bitPattern == time.bitPattern { return (text, true) }
            best = text
        }
        return (best, false)
    }

    /// Seconds since 2001 for `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, or nil.
    static func parse(_ text: String) -> Double? {
        let chars = Array(text.utf8)
        var i = 0
        func number(_ width: Int) -> Int64? {
            guard i + width <= chars.count else { return nil }
            var value: Int64 = 0
            for c in chars[i..<(i + width)] {
                guard (0x30...0x39).contains(c) else { return nil }
                value = value * 10 + Int64(c - 0x30)
            }
            i += width
            return value
        }
        func expect(_ c: Character) -> Bool {
            guard i < chars.count, chars[i] == c.asciiValue else { return false }
            i += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
            expect("T"), let hour = number(2), expect(":"), let minute = number(2), expect(":"),
            let second = number(2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var fraction = 0.0
        if i < chars.count, chars[i] == UInt8(ascii: ".") {
            let start = i
            i += 1
            while i < chars.count, (0x30...0x39).contains(chars[i]) { i += 1 }
            guard i > start + 1, let value = Double("0" + String(decoding: chars[start..<i], as: UTF8.self)) else {
                return nil
            }
            fraction = value
        }
        var offset: Int64 = 0
        if expect("Z") {
        } else if i < chars.count, chars[i] == UInt8(ascii: "+") || chars[i] == UInt8(ascii: "-") {
            let sign: Int64 = chars[i] == UInt8(ascii: "-") ? -1 : 1
            i += 1
            guard let h = number(2), expect(":"), let m = number(2) else { return nil }
            offset = sign * (h * 3600 + m * 60)
        } else {
            return nil
        }
        guard i == chars.count else { return nil }
        let unix = days(fromCivil: year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Double(unix - referenceOffset) + fraction
    }

    /// `YYYY-MM-DDTHH:MM:SS` for whole seconds since 2001, or nil outside years 1…9999. Written digit by digit
    /// into one string: `String(format:)` took a sixth of `autocoding messages`, which writes two dates per row.
    package static func dateTime(secondsSince2001 seconds: Int64) -> String? {
        let (unix, overflow) = seconds.addingReportingOverflow(referenceOffset)
        guard !overflow else { return nil }
        var days = unix / 86_400
        var secondOfDay = unix % 86_400
        if secondOfDay < 0 {
            secondOfDay += 86_400
            days -= 1
        }
        let (year, month, day) = civil(fromDays: days)
        guard (1...9999).contains(year) else { return nil }
        return String(unsafeUninitializedCapacity: 19) { text in
            write(year, 4, into: text, at: 0)
            text[4] = UInt8(ascii: "-")
            write(month, 2, into: text, at: 5)
            text[7] = UInt8(ascii: "-")
            write(day, 2, into: text, at: 8)
            text[10] = UInt8(ascii: "T")
            write(secondOfDay / 3600, 2, into: text, at: 11)
            text[13] = UInt8(ascii: ":")
            write(secondOfDay / 60 % 60, 2, into: text, at: 14)
            text[16] = UInt8(ascii: ":")
            write(secondOfDay % 60, 2, into: text, at: 17)
            return 19
        }
    }

    /// `value`, from 0 to 10^`width` − 1, in `width` decimal digits.
    package static func pad(_ value: Int64, _ width: Int) -> String {
        String(unsafeUninitializedCapacity: width) { text in
            write(value, width, into: text, at: 0)
            return width
        }
    }

    /// Writes `value`, from 0 to 10^`width` − 1, as `width` decimal digits at `start`.
    private static func write(_ value: Int64, _ width: Int, into text: UnsafeMutableBufferPointer<UInt8>, at start: Int) {
        var rest = value
        for i in (start..<start + width).reversed() {
            text[i] = UInt8(truncatingIfNeeded: 48 + rest % 10)
            rest /= 10
        }
    }

    /// Howard Hinnant's `civil_from_days`: days since 1970-01-01 to a proleptic Gregorian date (year, month, day).
    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Howard Hinnant's `days_from_civil`, the inverse of ``civil(fromDays:)``.
    private static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
