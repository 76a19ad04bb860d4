import AutoCodingFast
import Foundation
import OrderedCollections

/// `Decimal` as Apple's `NSDecimalNumber` archives it: `NS.exponent`, `NS.length` (16-bit words of the
/// mantissa in use), `NS.negative`, `NS.compact`, `NS.mantissa.bo` (1: little-endian) and `NS.mantissa` (the
/// eight 16-bit words, 16 bytes), with the class chain `NSDecimalNumber, NSNumber, NSValue, NSObject`. Apple
/// reads it back as `NSDecimalNumberPlaceholder`; archives name either class.
enum DecimalCoding {
    static let archiveClass = ArchiveClass(
        name: "NSDecimalNumber", chain: ["NSDecimalNumber", "NSNumber", "NSValue", "NSObject"])
    static let classNames: Set<String> = ["NSDecimalNumber", "NSDecimalNumberPlaceholder"]

    /// The fields of `value`, in Apple's order. The mantissa is the significand's integer, compact (no
    /// trailing zero words); NaN is length 0, negative, as `NSDecimalNumber.notANumber` is.
    static func fields(of value: Decimal) -> OrderedDictionary<String, ArchiveValue> {
        var words = [UInt16](repeating: 0, count: 8)
        var length = 0
        var exponent = 0
        if !value.isNaN, !value.isZero, var mantissa = UInt128(value.significand.description) {
            exponent = value.exponent
            while mantissa != 0 {
                words[length] = UInt16(truncatingIfNeeded: mantissa)
                mantissa >>= 16
                length += 1
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        for word in words { bytes.append(UInt8(word & 0xFF)); bytes.append(UInt8(word >> 8)) }
        return [
            "NS.exponent": .integer(Int64(exponent)),
            "NS.length": .integer(Int64(length)),
            "NS.negative": .bool(value.isNaN || (value.sign == .minus && !value.isZero)),
            "NS.compact": .bool(true),
            "NS.mantissa.bo": .integer(1),
            "NS.mantissa": .data(bytes),
        ]
    }

    /// The value of Apple's fields; nil with a reason when they do not describe one.
    static func decimal(exponent: Int, length: Int, negative: Bool, byteOrder: Int, mantissa: [UInt8])
        -> Result<Decimal, DecimalError>
    {
        guard (0...8).contains(length) else { return .failure(.init("NS.length \(length) is not 0…8")) }
        guard mantissa.count == 16 else { return .failure(.init("NS.mantissa has \(mantissa.count) bytes, not 16")) }
        guard (-128...127).contains(exponent) else { return .failure(.init("NS.exponent \(exponent) is not -128…127")) }
        if length == 0 { return .success(negative ? .nan : 0) }
        let bigEndian = byteOrder == 2
        var integer: UInt128 = 0
        for i in (0..<length).reversed() {
            let (a, b) = (UInt16(mantissa[2 * i]), UInt16(mantissa[2 * i + 1]))
            integer = integer << 16 | UInt128(bigEndian ? a << 8 | b : b << 8 | a)
        }
        guard let significand = Decimal(string: String(integer)) else {
            return .failure(.init("NS.mantissa \(integer) is not a decimal significand"))
        }
        return .success(Decimal(sign: negative ? .minus : .plus, exponent: exponent, significand: significand))
    }

    struct DecimalError: Error {
        var reason: String
        init(_ reason: String) { self.reason = reason }
    }
}
