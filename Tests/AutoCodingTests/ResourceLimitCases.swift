// The hostile inputs of the resource-limit tests. No test framework here: scripts/limits.sh also compiles
// this file, with the engine optimized, to check the same cases in a release build.
import AutoCoding
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The hostile inputs of issue 8, each with the error that must end it.
enum LimitCase: String, CaseIterable, Sendable, CustomStringConvertible {
    /// 30 arrays each referring twice to the next: 2³¹ nodes once expanded.
    case sharedReferenceBomb
    /// The same bomb through the libplist backend, which would copy every shared reference.
    case sharedReferenceBombLibplist
    /// The bomb inside a keyed archive, decoded to the dynamic object graph.
    case sharedReferenceBombGraph
    /// The bomb inside a keyed archive, decoded into Codable values (each reference decoded again).
    case sharedReferenceBombTyped
    /// 1,000,000 arrays, each holding the next.
    case millionDeepPlist
    /// 1,000,000 nested `<array>` elements.
    case millionDeepXML
    /// 1,000,000 objects, each the `next` of the one before, decoded into a Codable model. (An `@AutoCoding`
    /// class decodes such a chain without recursion and so without error: it is valid input, 1,000,000
    /// objects in 31 MB, and costs time and memory in proportion; see SECURITY.md.)
    case millionDeepObjectGraph
    /// An array claiming 2³¹ elements in a 60-byte file.
    case arrayCountBeyondTheFile
    /// A trailer claiming 32 million objects in a 60-byte file.
    case objectCountBeyondTheFile
    /// Data with a length field of 2 GiB.
    case twoGiBLengthField
    /// Two million one-byte objects, the last of them invalid.
    case millionsOfTinyObjects
    /// 100 MB of XML.
    case hugeXML
    /// One 1 MiB string referenced 1,000 times (a 1 MB file), printed as JSON: 1 GB before shared scalars got
    /// `$ref`; now about 1 MB, within the output budget, with no error.
    case sharedStringJSON
    /// 22 arrays each holding the next twice inside a keyed archive, resolved and printed as JSON: 2²² nodes
    /// expanded; the resolver shares them and the JSON stops at its output budget. (Not more levels: the engine's
    /// UID check in `KeyedArchive.validate()` still walks the expanded tree, 2 s of debug CPU at 2²⁴.)
    case referenceDAGJSON

    var description: String { rawValue }

    var expectedError: String {
        switch self {
        case .sharedReferenceBomb, .sharedReferenceBombLibplist, .sharedReferenceBombGraph, .hugeXML:
            "limitExceeded"
        case .millionDeepPlist, .millionDeepXML: "depthLimitExceeded"
        case .millionDeepObjectGraph, .sharedReferenceBombTyped: "dataCorrupted"
        case .arrayCountBeyondTheFile, .objectCountBeyondTheFile, .twoGiBLengthField: "truncated"
        case .millionsOfTinyObjects: "invalidObject"
        case .sharedStringJSON: "none"
        case .referenceDAGJSON: "limitExceeded"
        }
    }

    /// Builds the input (not measured) and returns the decode to measure.
    func prepare() -> () -> Error? {
        switch self {
        case .sharedReferenceBomb:
            let bytes = HostilePlists.nestedArrays(levels: 30, fanOut: 2)
            return { catching { _ = try ArchiveValue(propertyList: bytes) } }
        case .sharedReferenceBombLibplist:
            let bytes = HostilePlists.nestedArrays(levels: 30, fanOut: 2)
            var options = ArchiveReadingOptions()
            options.backend = .libplist
            return { catching { _ = try ArchiveValue(propertyList: bytes, options: options) } }
        case .sharedReferenceBombGraph:
            let bytes = HostilePlists.keyedArchiveHoldingBomb(levels: 30)
            return { catching { _ = try ArchiveGraph(bytes: bytes) } }
        case .sharedReferenceBombTyped:
            let bytes = HostilePlists.keyedArchiveHoldingBomb(levels: 30)
            return { catching { _ = try KeyedArchiveDecoder().decode(LimitBombHolder.self, from: bytes) } }
        case .millionDeepPlist:
            let bytes = HostilePlists.nestedArrays(levels: 1_000_000, fanOut: 1)
            return { catching { _ = try ArchiveValue(propertyList: bytes) } }
        case .millionDeepXML:
            var xml = Array("<plist>".utf8)
            xml.reserveCapacity(16_000_020)
            for _ in 0..<1_000_000 { xml += "<array>".utf8 }
            for _ in 0..<1_000_000 { xml += "</array>".utf8 }
            xml += "</plist>".utf8
            return { catching { _ = try ArchiveValue(propertyList: xml) } }
        case .millionDeepObjectGraph:
            let bytes = HostilePlists.objectChain(length: 1_000_000)
            return { catching { _ = try KeyedArchiveDecoder().decode(LimitLink.self, from: bytes) } }
        case .arrayCountBeyondTheFile:
            // An array whose 4-byte length says 2^31 references follow.
            let bytes = HostilePlists.singleObject([0xAF, 0x12, 0x80, 0x00, 0x00, 0x00])
            return { catching { _ = try ArchiveValue(propertyList: bytes) } }
        case .objectCountBeyondTheFile:
            var bytes = HostilePlists.singleObject([0x08])
            let count = bytes.count - 32 + 8
            bytes.replaceSubrange(count..<count + 8, with: HostilePlists.bigEndian(32 << 20, width: 8))
            return { catching { _ = try ArchiveValue(propertyList: bytes) } }
        case .twoGiBLengthField:
            // Data whose 8-byte length is 2^31.
            let bytes = HostilePlists.singleObject([0x4F, 0x13, 0, 0, 0, 0, 0x80, 0, 0, 0])
            return { catching { _ = try ArchiveValue(propertyList: bytes) } }
        case .millionsOfTinyObjects:
            let bytes = HostilePlists.tinyObjects(count: 2_000_000)
            return { catching { _ = try ArchiveValue(propertyList: bytes) } }
        case .hugeXML:
            // Above the 16 MiB XML limit; libplist would build ~1.8 GB of tree from it.
            var xml = Array(#"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><array>"#.utf8)
            xml.reserveCapacity(100_000_100)
            while xml.count < 100_000_000 { xml += "<true/>".utf8 }
            xml += "</array></plist>".utf8
            return { catching { _ = try ArchiveValue(propertyList: xml) } }
        case .sharedStringJSON:
            let bytes = HostilePlists.sharedString(length: 1 << 20, references: 1_000)
            return {
                catching {
                    let json = try ArchiveGraph(bytes: bytes).json(maxOutputBytes: OutputBudget.bytes(forInputBytes: bytes.count))
                    // The string once, and a `$ref` line per reference.
                    guard json.utf8.count < (1 << 20) + 100_000 else { throw LimitCaseFailure.outputTooLarge(json.utf8.count) }
                }
            }
        case .referenceDAGJSON:
            let bytes = HostilePlists.keyedArchiveHoldingBomb(levels: 22)
            return {
                catching { _ = try ArchiveGraph(bytes: bytes).json(maxOutputBytes: OutputBudget.bytes(forInputBytes: bytes.count)) }
            }
        }
    }

    private func catching(_ body: () throws -> Void) -> Error? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }
}

/// A case that ended without an error but with the wrong result.
enum LimitCaseFailure: Error {
    case outputTooLarge(Int)
}

/// The instance holding the bomb, decoded as a value.
struct LimitBombHolder: Decodable {
    var payload: LimitNest
}

/// An array of arrays as a value: each shared array is decoded once per reference.
struct LimitNest: Decodable {
    var elements: [LimitNest] = []

    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        while !container.isAtEnd { elements.append(try container.decode(LimitNest.self)) }
    }
}

/// A Codable link of a chain: decoding a long chain nests once per link.
final class LimitLink: Codable {
    var next: LimitLink?
}

/// Hand-built hostile binary plists (4-byte offsets and references throughout).
enum HostilePlists {
    static func bigEndian(_ value: Int, width: Int) -> [UInt8] {
        (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * (width - 1 - $0))) }
    }

    /// A plist of `objects` (each its marker and payload, references 4 bytes wide), top object `top`.
    static func plist(_ objects: [[UInt8]], top: Int = 0) -> [UInt8] {
        var bytes = Array("bplist00".utf8)
        bytes.reserveCapacity(8 + objects.reduce(0) { $0 + $1.count + 4 } + 32)
        var offsets: [Int] = []
        offsets.reserveCapacity(objects.count)
        for object in objects {
            offsets.append(bytes.count)
            bytes += object
        }
        return finish(bytes, offsets: offsets, top: top)
    }

    /// Appends the offset table and trailer.
    static func finish(_ body: [UInt8], offsets: [Int], top: Int) -> [UInt8] {
        var bytes = body
        let table = bytes.count
        for offset in offsets { bytes += bigEndian(offset, width: 4) }
        bytes += [0, 0, 0, 0, 0, 0, 4, 4]
        bytes += bigEndian(offsets.count, width: 8) + bigEndian(top, width: 8) + bigEndian(table, width: 8)
        return bytes
    }

    static func singleObject(_ object: [UInt8]) -> [UInt8] { plist([object]) }

    /// A container marker with its count (inline below 15, else a 4-byte integer after 0xF).
    static func marker(_ high: UInt8, count: Int) -> [UInt8] {
        count < 15 ? [high | UInt8(count)] : [high | 0x0F, 0x12] + bigEndian(count, width: 4)
    }

    static func refs(_ objects: [Int]) -> [UInt8] { objects.flatMap { bigEndian($0, width: 4) } }

    static func ascii(_ s: String) -> [UInt8] { marker(0x50, count: s.utf8.count) + Array(s.utf8) }

    /// `levels` arrays, each holding `fanOut` references to the next.
    static func nestedArrays(levels: Int, fanOut: Int) -> [UInt8] {
        var body = Array("bplist00".utf8)
        body.reserveCapacity(levels * (1 + 4 * fanOut) + 8)
        var offsets: [Int] = []
        offsets.reserveCapacity(levels)
        for level in 0..<levels {
            offsets.append(body.count)
            if level == levels - 1 {
                body.append(0xA0)
            } else {
                body.append(0xA0 | UInt8(fanOut))
                for _ in 0..<fanOut { body += bigEndian(level + 1, width: 4) }
            }
        }
        return finish(body, offsets: offsets, top: 0)
    }

    /// `count` one-byte objects (`false`), the last an unknown marker, in an array.
    static func tinyObjects(count: Int) -> [UInt8] {
        var body = Array("bplist00".utf8)
        body.reserveCapacity(count * 9 + 64)
        var offsets: [Int] = []
        offsets.reserveCapacity(count + 1)
        offsets.append(body.count)
        body += marker(0xA0, count: count)
        for i in 1...count { body += bigEndian(i, width: 4) }
        for i in 1...count {
            offsets.append(body.count)
            body.append(i == count ? 0x70 : 0x08)
        }
        return finish(body, offsets: offsets, top: 0)
    }

    /// The common head of a keyed archive: objects 0...5 are the root dictionary's keys and values.
    /// Object numbers: 0 root dict, 1 "$archiver", 2 "NSKeyedArchiver", 3 "$version", 4 100000, 5 "$top",
    /// 6 top dict, 7 "$objects", 8 objects array, 9 "root", 10 UID of the root instance.
    private static func keyedHead(objectsArray: [UInt8], rootUID: Int) -> [[UInt8]] {
        [
            marker(0xD0, count: 4) + refs([1, 3, 5, 7]) + refs([2, 4, 6, 8]),
            ascii("$archiver"), ascii("NSKeyedArchiver"), ascii("$version"), [0x12] + bigEndian(100_000, width: 4),
            ascii("$top"), [0xD1] + refs([9, 10]), ascii("$objects"), objectsArray, ascii("root"),
            [0x83] + bigEndian(rootUID, width: 4),
        ]
    }

    /// A keyed archive whose `root` is a chain of `length` instances, each with `next` the one after.
    /// `$objects`: 0 `$null`, 1 the class descriptor, 2... the links.
    static func objectChain(length: Int) -> [UInt8] { plist(objectChainObjects(length: length)) }

    /// The bplist objects of ``objectChain(length:)``, for tests that damage one of them.
    static func objectChainObjects(length: Int) -> [[UInt8]] {
        // Plist objects: 0...10 head, 11 "$null", 12 class dict, 13 "$classname", 14 "Link", 15 "$class",
        // 16 "next", 17 UID 1 (the class), 18 UID 0; then per link i: dict at 19 + 2i, UID(i + 3) at 20 + 2i.
        let first = 19
        var objectsArray = marker(0xA0, count: length + 2) + refs([11, 12])
        objectsArray.reserveCapacity(objectsArray.count + 4 * length)
        for i in 0..<length { objectsArray += bigEndian(first + 2 * i, width: 4) }
        var objects = keyedHead(objectsArray: objectsArray, rootUID: 2)
        objects += [
            ascii("$null"), [0xD1] + refs([13, 14]), ascii("$classname"), ascii("Link"), ascii("$class"),
            ascii("next"), [0x80, 1], [0x80, 0],
        ]
        objects.reserveCapacity(objects.count + 2 * length)
        for i in 0..<length {
            let next = i == length - 1 ? 18 : first + 2 * i + 1
            objects.append([0xD2] + refs([15, 16]) + refs([17, next]))
            // The last link's UID object is unused; it must still name an existing object (UID 0).
            objects.append([0x83] + bigEndian(i == length - 1 ? 0 : i + 3, width: 4))
        }
        return objects
    }

    /// A keyed archive whose root NSArray refers `references` times to one string entry of `length` bytes.
    static func sharedString(length: Int, references: Int) -> [UInt8] {
        // 11 "$null", 12 NSArray class dict, 13 "$classname", 14 "NSArray", 15 the instance, 16 "$class", 17 UID 1,
        // 18 "NS.objects", 19 the elements, 20 UID 3, 21 the string.
        let objectsArray = marker(0xA0, count: 4) + refs([11, 12, 15, 21])
        var objects = keyedHead(objectsArray: objectsArray, rootUID: 2)
        objects += [
            ascii("$null"), [0xD1] + refs([13, 14]), ascii("$classname"), ascii("NSArray"),
            [0xD2] + refs([16, 18]) + refs([17, 19]), ascii("$class"), [0x80, 1], ascii("NS.objects"),
            marker(0xA0, count: references) + refs(Array(repeating: 20, count: references)), [0x80, 3],
            ascii(String(repeating: "x", count: length)),
        ]
        return plist(objects)
    }

    /// A keyed archive whose root instance has a field holding a reference bomb of `levels` arrays.
    static func keyedArchiveHoldingBomb(levels: Int) -> [UInt8] {
        // 11 "$null", 12 class dict, 13 "$classname", 14 "Bomb", 15 the instance, 16 "$class", 17 UID 1,
        // 18 "payload", then the bomb's arrays from 19.
        let objectsArray = marker(0xA0, count: 3) + refs([11, 12, 15])
        var objects = keyedHead(objectsArray: objectsArray, rootUID: 2)
        objects += [
            ascii("$null"), [0xD1] + refs([13, 14]), ascii("$classname"), ascii("Bomb"),
            [0xD2] + refs([16, 18]) + refs([17, 19]), ascii("$class"), [0x80, 1], ascii("payload"),
        ]
        for level in 0..<levels {
            objects.append(level == levels - 1 ? [0xA0] : [0xA2] + refs([19 + level + 1, 19 + level + 1]))
        }
        return plist(objects)
    }
}

/// glibc's `malloc_trim`, which the Glibc module does not import (it is in `<malloc.h>`).
@_silgen_name("malloc_trim")
private func mallocTrim(_ pad: Int) -> Int32

/// What one case cost: the error that ended it, CPU time and peak-memory growth.
struct LimitMeasurement {
    var error: String
    var message: String
    var cpuMicroseconds: Int
    var memoryKB: Int

    /// The issue's bounds: 50 ms and 64 MB above the baseline.
    static let timeBoundMicroseconds = 50_000
    static let memoryBoundKB = 64 * 1024

    /// Builds the case's input, then measures only its decode: CPU time (user + system, from `getrusage`,
    /// which load from other processes on a shared machine does not inflate as it does wall time) and the peak
    /// resident size minus the resident size just before decoding. Run it in a fresh child process.
    ///
    /// The peak is the kernel's high-water mark `VmHWM`, reset just before decoding (`5` written to
    /// `/proc/self/clear_refs`). Not `getrusage`'s `ru_maxrss`: Linux carries it across `exec` from the process
    /// that spawned the child, so a child of a 300 MB test process starts at 300 MB.
    static func measure(_ limitCase: LimitCase) -> LimitMeasurement {
        let decode = limitCase.prepare()
        // Return what building the input freed to the system, so that the decode cannot reuse it unseen.
        _ = mallocTrim(0)
        let resetPeak = (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil
        let baselineKB = status("VmRSS")
        let before = usage()
        let error = decode()
        let after = usage()
        // Without the reset (an old kernel), the peak may include building the input: an upper bound.
        let peakKB = resetPeak ? status("VmHWM") : max(status("VmHWM"), after.ru_maxrss)
        return LimitMeasurement(
            error: code(of: error),
            message: error.map { "\($0)" }?.replacingOccurrences(of: "\n", with: " ") ?? "no error",
            cpuMicroseconds: cpuMicroseconds(after) - cpuMicroseconds(before),
            memoryKB: max(0, peakKB - baselineKB))
    }

    /// Four lines: error code, CPU microseconds, KB, message.
    var serialized: String { "\(error)\n\(cpuMicroseconds)\n\(memoryKB)\n\(message)\n" }

    init(error: String, message: String, cpuMicroseconds: Int, memoryKB: Int) {
        self.error = error
        self.message = message
        self.cpuMicroseconds = cpuMicroseconds
        self.memoryKB = memoryKB
    }

    init?(serialized text: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count >= 4, let cpu = Int(lines[1]), let memory = Int(lines[2]) else { return nil }
        self.init(error: String(lines[0]), message: String(lines[3]), cpuMicroseconds: cpu, memoryKB: memory)
    }

    /// The error's code name: an ``ArchiveError`` code, or the `DecodingError` case.
    static func code(of error: Error?) -> String {
        switch error {
        case nil: return "none"
        case let error as ArchiveError: return "\(error.code)"
        case DecodingError.dataCorrupted?: return "dataCorrupted"
        case let error?: return "\(type(of: error))"
        }
    }

    private static func usage() -> rusage {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage
    }

    private static func cpuMicroseconds(_ usage: rusage) -> Int {
        (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1_000_000 + usage.ru_utime.tv_usec + usage.ru_stime.tv_usec
    }

    /// A `/proc/self/status` field in KB (`VmRSS`, `VmHWM`), or 0.
    private static func status(_ field: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            return line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap { Int($0) } ?? 0
        }
        return 0
    }
}
