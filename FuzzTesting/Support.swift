// Shared by every fuzz target (compiled into each binary by scripts/fuzz.sh).
import AutoCoding
import AutoCodingFast
import Foundation

/// Limits small enough that one execution stays fast, large enough for every seed.
let fuzzOptions: ArchiveReadingOptions = {
    var options = ArchiveReadingOptions()
    options.maxExpandedNodeCount = 1 << 20
    return options
}()

/// Stops the fuzzer with a message: an invariant the target checks does not hold.
func fuzzFailure(_ message: @autoclosure () -> String) -> Never {
    fatalError("fuzz invariant violated: \(message())")
}

/// Whether two values are identical, reals compared bit for bit (so NaN equals NaN and -0 differs from 0).
/// Iterative, so deep values do not overflow the fuzzer's stack.
func identical(_ a: ArchiveValue, _ b: ArchiveValue) -> Bool {
    var work = [(a, b)]
    while let (x, y) = work.popLast() {
        switch (x, y) {
        case (.real(let l), .real(let r)):
            guard l.bitPattern == r.bitPattern else { return false }
        case (.date(let l), .date(let r)):
            let (lt, rt) = (l.timeIntervalSinceReferenceDate, r.timeIntervalSinceReferenceDate)
            guard lt.bitPattern == rt.bitPattern || (lt.isNaN && rt.isNaN) else { return false }
        case (.array(let l), .array(let r)):
            guard l.count == r.count else { return false }
            work.append(contentsOf: zip(l, r))
        case (.dictionary(let l), .dictionary(let r)):
            guard l.keys == r.keys else { return false }
            for (key, value) in l { work.append((value, r[key]!)) }
        default:
            guard x == y else { return false }
        }
    }
    return true
}

/// Reads bytes as a stream of choices for the structure-aware target (FuzzedDataProvider in miniature).
struct FuzzInput {
    private var bytes: ArraySlice<UInt8>

    init(_ bytes: [UInt8]) { self.bytes = bytes[...] }

    var isEmpty: Bool { bytes.isEmpty }

    mutating func byte() -> UInt8 { bytes.popFirst() ?? 0 }

    /// A number in `0..<bound` (0 when the input is exhausted).
    mutating func int(below bound: Int) -> Int {
        guard bound > 1 else { return 0 }
        let raw = Int(byte()) | Int(byte()) << 8
        return raw % bound
    }

    mutating func bool() -> Bool { byte() & 1 == 1 }

    mutating func int64() -> Int64 {
        var value: UInt64 = 0
        for _ in 0..<8 { value = value << 8 | UInt64(byte()) }
        return Int64(bitPattern: value)
    }

    mutating func double() -> Double { Double(bitPattern: UInt64(bitPattern: int64())) }

    mutating func bytes(max: Int) -> [UInt8] { (0..<int(below: max + 1)).map { _ in byte() } }

    mutating func string() -> String {
        let pool: [String] = ["", "a", "hé", "🌍", "$null", "NS.objects", "$class", "\u{0}", "x\u{FFFF}y", "CF$UID"]
        if bool() { return pool[int(below: pool.count)] }
        let scalars = (0..<int(below: 12)).compactMap { _ in Unicode.Scalar(UInt32(int(below: 0x11_0000))) }
        return String(String.UnicodeScalarView(scalars))
    }
}

/// Runs `body` on the input as `[UInt8]`.
@inline(__always)
func withFuzzBytes(_ data: UnsafePointer<UInt8>, _ size: Int, _ body: ([UInt8]) -> Void) -> CInt {
    body(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

/// Empties the `ArchivedObject`s in what `decodeObject(forKey:)` returned (inside Foundation collections and the
/// attributes of attributed strings too): an object of an unknown class may be cyclic, and would outlive the input.
func breakCycles(decoded: Any) {
    var pending = [decoded]
    while let value = pending.popLast() {
        switch value {
        case let object as ArchivedObject: ArchivedValue.object(object).breakReferenceCycles()
        case let array as [Any]: pending.append(contentsOf: array)
        case let dictionary as [AnyHashable: Any]: pending.append(contentsOf: dictionary.values)
        case let dictionary as [String: Any]: pending.append(contentsOf: dictionary.values)
        case let text as ArchiveAttributedString:
            for run in text.runs { pending.append(contentsOf: run.attributes.values) }
        default: continue
        }
    }
}
