/// `Float` ↔ `Double` for archiving (a `Float` is archived as a plist real, a `Double`), keeping a NaN's sign,
/// payload and signaling bit: the hardware conversion (`Double(_:)`, x86 `cvtss2sd`) quiets a signaling NaN, so
/// one would come back with other bits. Every other value converts exactly as `Double(_:)` and `Float(_:)` do.
enum FloatBits {
    static func double(_ value: Float) -> Double {
        guard value.isNaN else { return Double(value) }
        let bits = value.bitPattern
        // Sign to the top, the 23-bit significand (quiet bit first) to the top of the 52-bit one.
        return Double(bitPattern: UInt64(bits >> 31) << 63 | 0x7FF0_0000_0000_0000 | UInt64(bits & 0x7F_FFFF) << 29)
    }

    static func float(_ value: Double) -> Float {
        guard value.isNaN else { return Float(value) }
        let bits = value.bitPattern
        var significand = UInt32(truncatingIfNeeded: bits >> 29) & 0x7F_FFFF
        // A signaling NaN whose payload was all in the dropped low bits stays a (signaling) NaN, not infinity.
        if significand == 0 { significand = 1 }
        return Float(bitPattern: UInt32(truncatingIfNeeded: bits >> 63) << 31 | 0x7F80_0000 | significand)
    }
}
