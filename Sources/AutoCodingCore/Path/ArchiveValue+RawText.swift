import AutoCodingFast
import Foundation

extension ArchiveValue {
    /// The value as `plutil -extract KEYPATH raw` prints it, without JSON quoting: a string as it is, an
    /// integer in decimal, a real in its shortest round-trip spelling (`nan`, `inf`, `-inf` for the others),
    /// `true`/`false`, a date in ISO 8601 (seconds since 2001 when outside years 1…9999), data in base64 and a
    /// UID as its number. Nil for arrays and dictionaries, which have no raw form.
    public var rawText: String? {
        switch self {
        case .string(let s): s
        case .integer(let v): String(v)
        case .unsignedInteger(let v): String(v)
        case .real(let d): d.isFinite ? JSONNumberText.real(d) : JSONNumberText.nonFinite(d)
        case .bool(let b): b ? "true" : "false"
        case .date(let date):
            ISO8601Text.format(date.timeIntervalSinceReferenceDate)?.text
                ?? (date.timeIntervalSinceReferenceDate.isFinite
                    ? JSONNumberText.real(date.timeIntervalSinceReferenceDate)
                    : JSONNumberText.nonFinite(date.timeIntervalSinceReferenceDate))
        case .data(let bytes): Data(bytes).base64EncodedString()
        case .uid(let uid): String(uid.rawValue)
        case .array, .dictionary: nil
        }
    }
}

extension ArchivedValue {
    /// A scalar's ``AutoCodingFast/ArchiveValue/rawText``, whether stored in place or referenced; for an
    /// `NSString`-like instance its `NS.string`, for an `NSDate` instance its `NS.time` as a date. Nil for
    /// `$null`, other instances and containers.
    public var rawText: String? {
        guard case .object(let object) = self else { return scalar?.rawText }
        let classes = object.archiveClass.chain.isEmpty ? [object.className] : object.archiveClass.chain
        if classes.contains("NSString"), let text = object[FoundationKey.string]?.scalar, case .string = text {
            return text.rawText
        }
        if classes.contains("NSDate"), let time = object[FoundationKey.time]?.double {
            return ArchiveValue.date(Date(timeIntervalSinceReferenceDate: time)).rawText
        }
        return nil
    }
}
