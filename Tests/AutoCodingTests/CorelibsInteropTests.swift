/// Interop between this package and swift-corelibs-foundation's `NSKeyedArchiver` / `NSKeyedUnarchiver`
/// (Linux), in both directions.
///
/// corelibs traps (`fatalError`, SIGILL/SIGSEGV) rather than throwing on many decoding failures, which would
/// kill the whole test process. So every corelibs *decode* of bytes this package wrote runs in a child
/// process: a ~110-line helper (``CorelibsChild/source``) compiled once per toolchain with `swiftc` (cached
/// in the temporary directory under a hash of its source and of the compiler), which decodes one archive
/// file with `NSKeyedUnarchiver` and prints a canonical text form of the root object (`int(42)`,
/// `["a", "b"]`, `url("b/c", base: "https://example.com/a/")` …). Corelibs *encoding* is safe and runs
/// in-process. Tests that need the helper are disabled, visibly, when no `swiftc` is found.
///
/// | Swift value (ours)                  | Foundation class             | ours → corelibs | corelibs → ours: typed (`KeyedArchiveDecoder`) / dynamic (`KeyedUnarchiver.decodeObject`) |
/// |-------------------------------------|------------------------------|-----------------|----------------------------------------------------------|
/// | `String` (ASCII, non-ASCII, empty)  | NSString, NSMutableString    | yes             | yes / `String`                                           |
/// | `Int`, negative, `Int64.max/.min`   | NSNumber                     | yes             | yes / `Int`                                              |
/// | `UInt64.max`, `1 << 63`             | NSNumber (128-bit bplist int)| yes             | yes / `UInt64`                                           |
/// | `Double` (incl. -0.0, NaN), `Float` | NSNumber                     | yes             | yes / `Double`                                           |
/// | `Bool`                              | NSNumber (CFBoolean)         | yes             | yes / `Bool` (but see the uniquing bug)                  |
/// | `Data`                              | NSData, NSMutableData        | yes             | yes / `Data`                                             |
/// | `Date`                              | NSDate (`NS.time`)           | yes             | yes / `Date`                                             |
/// | `UUID`                              | NSUUID (`NS.uuidbytes`)      | yes             | yes / `UUID`                                             |
/// | `URL` absolute / relative + base    | NSURL (`NS.base`, `NS.relative`) | yes, base kept | yes, base kept / `URL` (from an `NSURL`; a Swift `URL` loses its base in corelibs' archiver) |
/// | `[T]`, nested `[[T]]`, empty        | NSArray, NSMutableArray      | yes             | yes / `[Any]`                                            |
/// | `[String: V]`, `[Int: V]`           | NSDictionary, NSMutableDictionary | yes        | yes / `[AnyHashable: Any]`                               |
/// | `Set<T>`                            | NSSet, NSMutableSet          | yes             | yes / `[Any]` (dynamic decoding gives an array)          |
/// | `OrderedSet<T>`                     | NSOrderedSet (`NS.object.N`), NSMutableOrderedSet | yes | yes (`OrderedSet`, `[T]`) / `[Any]`            |
/// | `NSNull` (via `KeyedArchiver`)      | NSNull                       | yes             | — / `NSNull`                                             |
/// | `nil` root                          | `$null`                      | yes (`nil`)     | —                                                        |
/// | `ArchiveRange`/`Point`/`Size`/`Rect`/`EdgeInsets` | NSValue (`NS.special` 4/1/2/3/12) | yes | yes / the same `Archive…` value           |
/// | `ArchiveAttributedString`           | NSAttributedString           | yes (one or several runs) | — / `ArchiveAttributedString` (corelibs cannot read its own: below) |
/// | `ArchiveCoding` class, shared refs  | custom `NSObject, NSCoding`  | yes, sharing kept (`===`) | `Decodable` class, sharing kept (`===`) / `ArchivedObject`, sharing kept |
/// | `ArchiveCoding` objects in an array | custom `NSCoding` in NSArray | yes, sharing kept | `ArchiveCoding` class through `init(coder:)`, sharing kept |
/// | `@AutoCoding` class (nil optionals as `$null`, arrays, sharing) | custom `NSCoding` (`decodeObject(of:forKey:)`) | yes | into the `@AutoCoding` class registered for the name; unregistered: refused naming both classes |
/// | `Decimal`                           | NSDecimalNumber (Apple's keys) | — corelibs cannot decode NSDecimalNumber, even its own | — (tested against archives built in Apple's form) |
/// | NSTimeZone, NSLocale, NSCalendar, NSCharacterSet, NSIndexSet | (no Swift mapping)  | —    | — / `ArchivedObject` with the class name; re-encodes to an equivalent graph |
/// | A graph read from corelibs bytes, re-encoded by `ArchiveGraph` | any of the above | yes, decodes identically | —       |
/// | XML plist (`outputFormat = .xml`)   | —                            | yes             | yes                                                      |
///
/// Does not decode, and why:
/// - ours → corelibs, a Codable struct or class without an Objective-C counterpart (archived under its
///   module-qualified name): corelibs' `NSClassFromString` finds no class and `decodeObject(forKey:)` traps
///   (the child dies). Expected: corelibs can only instantiate classes it knows.
/// - corelibs → ours typed, an NSDictionary into a Codable struct: a struct reads an object's keyed fields
///   (as this package archives structs, and as an `NSCoding` class writes them), not an NSDictionary's
///   `NS.keys`/`NS.objects`; decode a `[String: V]` or use dynamic decoding instead.
/// - corelibs → corelibs, NSAttributedString with one run: corelibs writes no `NSAttributeInfo` (as Apple
///   does for one run) but its own decoder requires it and traps. This package reads that archive.
/// - Reference cycles, either way: corelibs' archiver crashes on them (SIGSEGV, so none is made
///   in-process), and its unarchiver dies (SIGSEGV) on the well-formed cycle this package writes.
///
/// Known corelibs behaviours, each pinned by a test that fails if corelibs changes:
/// - `NSKeyedArchiver.setClassName(_:for:)` is ignored: the archive names the Swift class (this package
///   honours the rename).
/// - corelibs *does* unique scalars, and by `isEqual:` rather than identity: two distinct equal strings share
///   one `$objects` entry (this package writes one entry per value), distinct equal `NSMutableArray`s become
///   one shared object, and, worse, `1`, `true` and `1.0` are equal NSNumbers, so `[1, true, 1.0]` archives
///   as three references to one integer and reads back as `[1, 1, 1]`.
/// - A Swift `URL` with a `baseURL` is archived flattened to its absolute string; so is an `NSURL` put in an
///   `NSDictionary(dictionary:)` (it is bridged to `URL` on the way). A root `NSURL` keeps `NS.base`.
/// - `nil` elements this package writes into `NS.objects` (`[String?]`) are dropped by corelibs' NSArray.
///
/// Bugs found in this package's sources: none in these paths (see the report for details).
import AutoCoding
import AutoCodingFast
import Foundation
import OrderedCollections
import Testing

#if canImport(Glibc)
import Glibc
#endif

// MARK: - The child process that decodes with corelibs

/// Builds and runs the helper that decodes archives with corelibs' `NSKeyedUnarchiver`.
enum CorelibsChild {
    /// What the child printed and how it ended.
    struct Outcome: Sendable, CustomStringConvertible {
        var status: Int32
        /// Whether it died from a signal (a corelibs trap).
        var crashed: Bool
        var output: String
        var errorOutput: String
        /// Exited normally with status 0.
        var succeeded: Bool { !crashed && status == 0 }
        var description: String {
            "status \(status)\(crashed ? " (signal)" : ""), stdout: \(output), stderr: \(errorOutput.prefix(600))"
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The helper, compiled with `-module-name InteropHelper` so that its `Pair` class is archived as
    /// `InteropHelper.Pair`.
    static let source = #"""
        import Foundation

        setvbuf(stdout, nil, _IONBF, 0)

        /// Mirrors the test's `InteropPair`, archived as "InteropHelper.Pair".
        final class Pair: NSObject, NSCoding {
            let name: String
            let left: Pair?
            let right: Pair?
            init(name: String, left: Pair?, right: Pair?) {
                self.name = name
                self.left = left
                self.right = right
            }
            func encode(with coder: NSCoder) {
                coder.encode(name, forKey: "name")
                coder.encode(left, forKey: "left")
                coder.encode(right, forKey: "right")
            }
            required init?(coder: NSCoder) {
                name = coder.decodeObject(forKey: "name") as? String ?? "?"
                left = coder.decodeObject(forKey: "left") as? Pair
                right = coder.decodeObject(forKey: "right") as? Pair
            }
        }

        /// Mirrors the test's `@AutoCoding` `InteropPerson`, archived as "InteropHelper.Person". `best` is read
        /// with `decodeObject(of:forKey:)`, as a secure NSCoding reader reads it.
        final class Person: NSObject, NSCoding {
            let name: String
            let age: Int
            let best: Person?
            let friends: [Person]
            func encode(with coder: NSCoder) {}
            required init?(coder: NSCoder) {
                name = coder.decodeObject(forKey: "name") as? String ?? "?"
                age = coder.decodeInteger(forKey: "age")
                best = coder.decodeObject(of: Person.self, forKey: "best")
                friends = coder.decodeObject(forKey: "friends") as? [Person] ?? []
            }
        }

        /// Pairs are numbered by identity in order of appearance, so a shared one prints as `Pair#n` again.
        var pairNumbers: [ObjectIdentifier: Int] = [:]

        func text(_ s: String) -> String { String(reflecting: s) }

        func canon(_ value: Any?) -> String {
            guard let value else { return "nil" }
            switch value {
            case is NSNull:
                return "null"
            case let pair as Pair:
                if let n = pairNumbers[ObjectIdentifier(pair)] { return "Pair#\(n)" }
                let n = pairNumbers.count
                pairNumbers[ObjectIdentifier(pair)] = n
                return "Pair#\(n)(\(text(pair.name)), \(canon(pair.left)), \(canon(pair.right)))"
            case let person as Person:
                if let n = pairNumbers[ObjectIdentifier(person)] { return "Person#\(n)" }
                let n = pairNumbers.count
                pairNumbers[ObjectIdentifier(person)] = n
                return "Person#\(n)(\(text(person.name)), int(\(person.age)), \(canon(person.best)), "
                    + "[\(person.friends.map(canon).joined(separator: ", "))])"
            case let number as NSNumber:
                if String(describing: type(of: number)).contains("Boolean") { return "bool(\(number.boolValue))" }
                switch String(cString: number.objCType) {
                case "f", "d": return "real(\(number.doubleValue))"
                case "Q", "L", "I": return "int(\(number.uint64Value))"
                default: return "int(\(number.int64Value))"
                }
            case let string as NSString:
                return text(string._bridgeToSwift())
            case let string as String:
                return text(string)
            case let data as NSData:
                return "data(" + data._bridgeToSwift().map { String(format: "%02x", $0) }.joined() + ")"
            case let date as NSDate:
                return "date(\(date.timeIntervalSinceReferenceDate))"
            case let uuid as NSUUID:
                return "uuid(\(uuid.uuidString))"
            case let url as NSURL:
                return "url(\(text(url.relativeString)), base: \(url.baseURL.map { text($0.absoluteString) } ?? "nil"))"
            case let string as NSAttributedString:
                var runs: [String] = []
                string.enumerateAttributes(in: NSRange(location: 0, length: string.length), options: []) { attributes, range, _ in
                    let entries = attributes.map { "\(text($0.key.rawValue)): \(canon($0.value))" }.sorted()
                    runs.append("\(range.location)..<\(range.location + range.length) {\(entries.joined(separator: ", "))}")
                }
                return "attr(\(text(string.string)), [\(runs.joined(separator: ", "))])"
            case let set as NSOrderedSet:
                return "oset[" + set.array.map(canon).joined(separator: ", ") + "]"
            case let set as NSSet:
                return "set{" + set.allObjects.map(canon).sorted().joined(separator: ", ") + "}"
            case let array as NSArray:
                return "[" + array.map(canon).joined(separator: ", ") + "]"
            case let dictionary as NSDictionary:
                let entries = dictionary.map { "\(canon($0.key)): \(canon($0.value))" }.sorted()
                return "{" + entries.joined(separator: ", ") + "}"
            case let value as NSValue:
                let type = String(cString: value.objCType)
                if type.hasPrefix("{_NSRange") {
                    let r = value.rangeValue
                    return "range(\(r.location), \(r.length))"
                } else if type.hasPrefix("{CGRect") {
                    let r = value.rectValue
                    return "rect(\(r.origin.x), \(r.origin.y), \(r.size.width), \(r.size.height))"
                } else if type.hasPrefix("{CGPoint") {
                    let p = value.pointValue
                    return "point(\(p.x), \(p.y))"
                } else if type.hasPrefix("{CGSize") {
                    let s = value.sizeValue
                    return "size(\(s.width), \(s.height))"
                } else if type.hasPrefix("{NSEdgeInsets") {
                    let e = value.edgeInsetsValue
                    return "insets(\(e.top), \(e.left), \(e.bottom), \(e.right))"
                }
                return "value(\(type))"
            default:
                return "object(\(String(reflecting: type(of: value))))"
            }
        }

        // Usage: helper FILE. Decodes the archive's root with NSKeyedUnarchiver and prints its canonical form.
        let data = try Data(contentsOf: URL(fileURLWithPath: CommandLine.arguments[1]))
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = false
        let root = unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey)
        if let error = unarchiver.error {
            print("error: \(error)")
            exit(3)
        }
        unarchiver.finishDecoding()
        print(canon(root))
        """#

    /// `swiftc`: `$SWIFTC`, else on `PATH`, else the usual toolchain places.
    static let swiftc: URL? = {
        let fm = FileManager.default
        let environment = ProcessInfo.processInfo.environment
        var candidates: [String] = []
        if let explicit = environment["SWIFTC"] { candidates.append(explicit) }
        for directory in (environment["PATH"] ?? "").split(separator: ":") {
            candidates.append("\(directory)/swiftc")
        }
        candidates += ["/opt/swift/usr/bin/swiftc", "/usr/bin/swiftc", "/usr/local/bin/swiftc"]
        return candidates.first(where: fm.isExecutableFile(atPath:)).map { URL(fileURLWithPath: $0) }
    }()

    static var isAvailable: Bool { swiftc != nil }

    /// The compiled helper: built once per process (this `static let`), and reused across runs while the source
    /// and the compiler are unchanged.
    static let executable: Result<URL, Failure> = build()

    private static func build() -> Result<URL, Failure> {
        guard let swiftc else { return .failure(Failure(description: "swiftc not found")) }
        let fm = FileManager.default
        let attributes = (try? fm.attributesOfItem(atPath: swiftc.resolvingSymlinksInPath().path)) ?? [:]
        let stamp = "\(swiftc.resolvingSymlinksInPath().path) \(attributes[.size] ?? 0) \(attributes[.modificationDate] ?? "")"
        let key = String(fnv1a(source + "\n" + stamp), radix: 16)
        let directory = fm.temporaryDirectory.appendingPathComponent("autocoding-interop-helper-\(key)")
        let helper = directory.appendingPathComponent("helper")
        if fm.isExecutableFile(atPath: helper.path) { return .success(helper) }
        do {
            try fm.createDirectory(at: directory, withIntermediateDirectories: true)
            let unique = UUID().uuidString
            let sourceFile = directory.appendingPathComponent("main-\(unique).swift")
            let output = directory.appendingPathComponent("helper-\(unique).tmp")
            try Data(source.utf8).write(to: sourceFile)
            defer { try? fm.removeItem(at: sourceFile) }
            let outcome = try run(swiftc, ["-module-name", "InteropHelper", "-o", output.path, sourceFile.path], timeout: 300)
            guard outcome.succeeded, fm.isExecutableFile(atPath: output.path) else {
                return .failure(Failure(description: "swiftc failed: \(outcome)"))
            }
            // rename(2) replaces atomically, so test processes running side by side never see half a file.
            guard rename(output.path, helper.path) == 0 else {
                return .failure(Failure(description: "cannot move the helper into place (errno \(errno))"))
            }
            return .success(helper)
        } catch {
            return .failure(Failure(description: "cannot build the helper: \(error)"))
        }
    }

    private static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }

    /// Decodes `archive` with corelibs in the child and returns what it printed.
    static func decode(_ archive: Data) throws -> Outcome {
        let helper = try executable.get()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("autocoding-interop-\(UUID().uuidString).plist")
        try archive.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try run(helper, [file.path], timeout: 60)
    }

    /// Runs a process; standard error goes to a file so that only one pipe is read. A process still running
    /// after `timeout` seconds is terminated.
    static func run(_ executable: URL, _ arguments: [String], timeout: Double) throws -> Outcome {
        let fm = FileManager.default
        let errorFile = fm.temporaryDirectory.appendingPathComponent("autocoding-interop-\(UUID().uuidString).stderr")
        guard fm.createFile(atPath: errorFile.path, contents: nil) else {
            throw Failure(description: "cannot create \(errorFile.path)")
        }
        defer { try? fm.removeItem(at: errorFile) }
        let errorHandle = try FileHandle(forWritingTo: errorFile)
        defer { try? errorHandle.close() }

        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"  // a trap should end the child quickly and quietly
        process.environment = environment
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = errorHandle
        try process.run()
        let pid = process.processIdentifier
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        let errorOutput = (try? Data(contentsOf: errorFile)) ?? Data()
        return Outcome(
            status: process.terminationStatus,
            crashed: process.terminationReason == .uncaughtSignal,
            output: String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines),
            errorOutput: String(decoding: errorOutput, as: UTF8.self))
    }
}

// MARK: - Classes on both sides

/// Archived as `InteropHelper.Pair`, the child's `NSCoding` class, so that corelibs instantiates it.
final class InteropPair: ArchiveCoding, ArchiveCodable {
    static let archiveClassName = "InteropHelper.Pair"
    let name: String
    var left: InteropPair?
    var right: InteropPair?

    init(name: String, left: InteropPair? = nil, right: InteropPair? = nil) {
        self.name = name
        self.left = left
        self.right = right
    }

    func encode(with coder: KeyedArchiver) throws {
        coder.encode(name, forKey: "name")
        try coder.encode(left, forKey: "left")
        try coder.encode(right, forKey: "right")
    }

    init(coder: KeyedUnarchiver) throws {
        name = try coder.decodeString(forKey: "name") ?? ""
        left = try coder.decodeObject(of: InteropPair.self, forKey: "left")
        right = try coder.decodeObject(of: InteropPair.self, forKey: "right")
    }
}

/// Archived as `InteropHelper.Person`, the child's `NSCoding` class.
@AutoCoding
final class InteropPerson {
    var name = ""
    var age = 0
    var best: InteropPerson?
    var friends: [InteropPerson] = []
}

extension InteropPerson: ArchiveCodable {
    static var archiveClassName: String { "InteropHelper.Person" }
    static var archiveClassChain: [String] { ["InteropHelper.Person", "NSObject"] }
}

/// The same fields as ``InteropPerson``, as a corelibs `NSCoding` class, archived in-process by corelibs.
final class CorelibsInteropPerson: NSObject, NSCoding {
    let name: String
    let age: Int
    let best: CorelibsInteropPerson?
    let friends: [CorelibsInteropPerson]

    init(name: String, age: Int, best: CorelibsInteropPerson? = nil, friends: [CorelibsInteropPerson] = []) {
        (self.name, self.age, self.best, self.friends) = (name, age, best, friends)
    }

    func encode(with coder: NSCoder) {
        coder.encode(name, forKey: "name")
        coder.encode(age, forKey: "age")
        coder.encode(best, forKey: "best")
        coder.encode(friends, forKey: "friends")
    }

    required init?(coder: NSCoder) { (name, age, best, friends) = ("", 0, nil, []) }
}

/// A corelibs `NSCoding` class, archived in-process by corelibs.
final class CorelibsInteropNode: NSObject, NSCoding {
    let name: String
    let rank: Int
    let child: CorelibsInteropNode?

    init(name: String, rank: Int, child: CorelibsInteropNode? = nil) {
        self.name = name
        self.rank = rank
        self.child = child
    }

    func encode(with coder: NSCoder) {
        coder.encode(name, forKey: "name")
        coder.encode(rank, forKey: "rank")
        coder.encode(child, forKey: "child")
    }

    required init?(coder: NSCoder) {
        name = coder.decodeObject(forKey: "name") as? String ?? ""
        rank = coder.decodeInteger(forKey: "rank")
        child = coder.decodeObject(forKey: "child") as? CorelibsInteropNode
    }
}

/// A corelibs `NSCoding` object that archives each entry of a dictionary as one of its fields.
final class CorelibsInteropBag: NSObject, NSCoding {
    let fields: [String: Any]
    init(_ fields: [String: Any]) { self.fields = fields }
    func encode(with coder: NSCoder) {
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) { coder.encode(value, forKey: key) }
    }
    required init?(coder: NSCoder) { fields = [:] }
}

/// The NSCoding-style reading of ``CorelibsInteropNode``.
final class InteropNodeCoding: ArchiveCoding {
    let name: String
    let rank: Int
    let child: InteropNodeCoding?
    func encode(with coder: KeyedArchiver) throws {}
    init(coder: KeyedUnarchiver) throws {
        name = try coder.decodeString(forKey: "name") ?? ""
        rank = try coder.decodeInteger(forKey: "rank")
        child = try coder.decodeObject(of: InteropNodeCoding.self, forKey: "child")
    }
}

/// The Codable reading of ``CorelibsInteropNode``'s fields.
final class InteropNodeMirror: Decodable {
    let name: String
    let rank: Int
    let child: InteropNodeMirror?
}

/// A Swift class renamed with `setClassName(_:for:)` on our side.
final class InteropRenamed: ArchiveCoding {
    init() {}
    func encode(with coder: KeyedArchiver) throws { coder.encode(1, forKey: "v") }
    init(coder: KeyedUnarchiver) throws {}
}

/// A Codable struct: archived under its Swift name, which corelibs cannot instantiate.
struct InteropPlainStruct: Codable, Sendable {
    var value = 1
}

// MARK: - Shared helpers

private func corelibsArchive(_ object: Any) throws -> Data {
    try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: false)
}

private func typed<T: Decodable>(_ type: T.Type, _ data: Data) throws -> T {
    try KeyedArchiveDecoder().decode(type, from: data)
}

private func dynamic(_ data: Data) throws -> Any? {
    try KeyedUnarchiver(forReadingFrom: data).decodeObject(forKey: ArchiveKey.root)
}

private func objectCount(_ data: Data) throws -> Int {
    try KeyedArchiveView(bytes: [UInt8](data)).objectCount
}

private func rootClassName(_ data: Data) throws -> String? {
    try ArchiveGraph(bytes: [UInt8](data)).root?.object?.className
}

// MARK: - The suite

@Suite("Interop with swift-corelibs-foundation")
struct CorelibsInteropTests {

    // MARK: Ours → corelibs

    /// One archive written by this package and the canonical form the child prints for it.
    struct OursCase: Sendable, CustomTestStringConvertible {
        var name: String
        var expected: String
        var bytes: @Sendable () throws -> Data
        var testDescription: String { name }

        init(_ name: String, _ expected: String, _ bytes: @escaping @Sendable () throws -> Data) {
            self.name = name
            self.expected = expected
            self.bytes = bytes
        }

        /// Encoded by `KeyedArchiveEncoder`.
        static func encoder<T: Encodable & Sendable>(_ name: String, _ value: T, _ expected: String) -> OursCase {
            OursCase(name, expected) { try KeyedArchiveEncoder().encode(value) }
        }
    }

    static let oursCases: [OursCase] = [
        .encoder("String", "héllo 🌍", #""héllo 🌍""#),
        .encoder("ASCII String", "plain", #""plain""#),
        .encoder("empty String", "", #""""#),
        .encoder("Int", 42, "int(42)"),
        .encoder("negative Int", -42, "int(-42)"),
        .encoder("Int64.max", Int64.max, "int(9223372036854775807)"),
        .encoder("Int64.min", Int64.min, "int(-9223372036854775808)"),
        .encoder("UInt64.max", UInt64.max, "int(18446744073709551615)"),
        .encoder("Double", 3.25, "real(3.25)"),
        .encoder("Double 0.1", 0.1, "real(0.1)"),
        .encoder("Double -0.0", -0.0, "real(-0.0)"),
        .encoder("Double NaN", Double.nan, "real(nan)"),
        .encoder("Float", Float(1.5), "real(1.5)"),
        .encoder("Bool true", true, "bool(true)"),
        .encoder("Bool false", false, "bool(false)"),
        .encoder("Data", Data([0, 1, 2, 255]), "data(000102ff)"),
        .encoder("empty Data", Data(), "data()"),
        .encoder("Date", Date(timeIntervalSinceReferenceDate: 123_456.5), "date(123456.5)"),
        .encoder("UUID", UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!, "uuid(E621E1F8-C36C-495A-93FC-0C247A3E6E5F)"),
        .encoder("absolute URL", URL(string: "https://example.com/a?b=c")!, #"url("https://example.com/a?b=c", base: nil)"#),
        .encoder(
            "relative URL with base", URL(string: "b/c", relativeTo: URL(string: "https://example.com/a/")!)!,
            #"url("b/c", base: "https://example.com/a/")"#),
        .encoder("[String]", ["a", "b", "a"], #"["a", "b", "a"]"#),
        .encoder("[Int]", [1, 2, 3], "[int(1), int(2), int(3)]"),
        .encoder("empty [Int]", [Int](), "[]"),
        .encoder("[[Int]]", [[1], [], [2, 3]], "[[int(1)], [], [int(2), int(3)]]"),
        .encoder("[String: Int]", ["a": 1, "b": 2], #"{"a": int(1), "b": int(2)}"#),
        .encoder("[Int: String]", [1: "one", 2: "two"], #"{int(1): "one", int(2): "two"}"#),
        .encoder("[String: [Double]]", ["x": [0.5], "y": []], #"{"x": [real(0.5)], "y": []}"#),
        .encoder("Set<String>", Set(["x", "y", "z"]), #"set{"x", "y", "z"}"#),
        .encoder("OrderedSet<Int>", OrderedSet([3, 1, 2]), "oset[int(3), int(1), int(2)]"),
        .encoder("[Date]", [Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: -1.5)],
                 "[date(0.0), date(-1.5)]"),
        .encoder("ArchiveRange", ArchiveRange(location: 2, length: 5), "range(2, 5)"),
        .encoder("ArchivePoint", ArchivePoint(x: 1.5, y: -2), "point(1.5, -2.0)"),
        .encoder("ArchiveSize", ArchiveSize(width: 3, height: 4.25), "size(3.0, 4.25)"),
        .encoder("ArchiveRect", ArchiveRect(x: 1, y: 2, width: 3, height: 4), "rect(1.0, 2.0, 3.0, 4.0)"),
        .encoder("ArchiveEdgeInsets", ArchiveEdgeInsets(top: 1, left: 2, bottom: 3, right: 4.5), "insets(1.0, 2.0, 3.0, 4.5)"),
        OursCase("NSNull via KeyedArchiver", "null") { try KeyedArchiver.archivedData(withRootObject: NSNull()) },
        OursCase("nil root via KeyedArchiver", "nil") { try KeyedArchiver.archivedData(withRootObject: nil) },
        OursCase("ArchiveAttributedString, one run", #"attr("hi", [0..<2 {"k": "v"}])"#) {
            let text = ArchiveAttributedString(string: "hi", runs: [.init(range: 0..<2, attributes: ["k": "v"])])
            return try KeyedArchiver.archivedData(withRootObject: text)
        },
        OursCase("ArchiveAttributedString, two runs", #"attr("hi there", [0..<2 {"k": "a"}, 2..<8 {"k": "b", "n": int(3)}])"#) {
            let text = ArchiveAttributedString(string: "hi there", runs: [
                .init(range: 0..<2, attributes: ["k": "a"]), .init(range: 2..<8, attributes: ["k": "b", "n": 3]),
            ])
            return try KeyedArchiver.archivedData(withRootObject: text)
        },
        OursCase("ArchiveCoding objects with a shared reference", #"Pair#0("root", Pair#1("leaf", nil, nil), Pair#1)"#) {
            let leaf = InteropPair(name: "leaf")
            return try KeyedArchiver.archivedData(withRootObject: InteropPair(name: "root", left: leaf, right: leaf))
        },
        OursCase("ArchiveCoding objects in an array", #"[Pair#0("x", nil, nil), Pair#1("y", Pair#0, nil), Pair#0]"#) {
            let x = InteropPair(name: "x")
            return try KeyedArchiver.archivedData(withRootObject: [x, InteropPair(name: "y", left: x), x])
        },
        OursCase(
            "@AutoCoding model with nil optionals, shared references",
            #"Person#0("a", int(1), Person#1("b", int(2), nil, []), [Person#1, Person#1])"#
        ) {
            let b = InteropPerson()
            (b.name, b.age) = ("b", 2)
            let a = InteropPerson()
            (a.name, a.age, a.best, a.friends) = ("a", 1, b, [b, b])
            return try KeyedArchiver.archivedData(withRootObject: a)
        },
        OursCase("@AutoCoding models in a Codable array", #"[Person#0("c", int(3), nil, []), Person#0]"#) {
            let c = InteropPerson()
            (c.name, c.age) = ("c", 3)
            return try KeyedArchiveEncoder().encode([c, c])
        },
        OursCase("XML plist", #"{"a": [int(1), int(2)], "b": []}"#) {
            var encoder = KeyedArchiveEncoder()
            encoder.outputFormat = .xml
            return try encoder.encode(["a": [1, 2], "b": []])
        },
    ]

    @Test("ours → corelibs", .enabled(if: CorelibsChild.isAvailable, "swiftc not found: cannot build the corelibs child"),
          arguments: oursCases)
    func oursDecodedByCorelibs(_ example: OursCase) throws {
        let outcome = try CorelibsChild.decode(try example.bytes())
        #expect(outcome.succeeded, "\(outcome)")
        #expect(outcome.output == example.expected)
    }

    /// A graph read from corelibs' bytes and written again by this package decodes in corelibs exactly as the
    /// original does.
    @Test(.enabled(if: CorelibsChild.isAvailable, "swiftc not found: cannot build the corelibs child"))
    func corelibsArchiveReencodedByArchiveGraph() throws {
        let original = try corelibsArchive(NSDictionary(dictionary: [
            "list": NSArray(array: [1, "two", 3.5, false]),
            "set": NSSet(array: ["p", "q"]),
            "ordered": NSOrderedSet(array: ["z", "y"]),
            "when": NSDate(timeIntervalSinceReferenceDate: 42),
            "id": NSUUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
            "link": NSURL(string: "b/c", relativeTo: URL(string: "https://example.com/a/"))!,
            "range": NSValue(range: NSRange(location: 7, length: 8)),
            "bytes": NSData(data: Data([9, 8, 7])),
            "nothing": NSNull(),
        ]))
        let graph = try ArchiveGraph(bytes: [UInt8](original))
        let reencoded = Data(graph.binaryPlist())
        #expect(graph.isEquivalent(to: try ArchiveGraph(bytes: [UInt8](reencoded))))

        let fromCorelibs = try CorelibsChild.decode(original)
        let fromOurs = try CorelibsChild.decode(reencoded)
        #expect(fromCorelibs.succeeded, "\(fromCorelibs)")
        #expect(fromOurs.succeeded, "\(fromOurs)")
        #expect(fromOurs.output == fromCorelibs.output)
        #expect(fromOurs.output.contains(#""bytes": data(090807)"#))
    }

    /// Archives corelibs cannot decode: it traps, so the child dies (this is why decoding runs in a child).
    @Test(.enabled(if: CorelibsChild.isAvailable, "swiftc not found: cannot build the corelibs child"))
    func oursNotDecodableByCorelibs() throws {
        // A Codable struct is archived under its Swift name ("AutoCodingTests.InteropPlainStruct"), a class
        // corelibs cannot find.
        let plain = try CorelibsChild.decode(try KeyedArchiveEncoder().encode(InteropPlainStruct()))
        #expect(!plain.succeeded, "\(plain)")
        #expect(plain.output.isEmpty)
    }

    /// A reference cycle written by this package (a well-formed archive: its graph is the cycle) kills corelibs'
    /// unarchiver, which recurses through `init(coder:)` without end (SIGSEGV). corelibs' archiver crashes on
    /// cycles too, so cycles do not cross between the two in either direction.
    @Test(.enabled(if: CorelibsChild.isAvailable, "swiftc not found: cannot build the corelibs child"))
    func oursCycleKillsCorelibs() throws {
        let a = InteropPair(name: "a")
        let b = InteropPair(name: "b", left: a)
        a.left = b
        defer { a.left = nil }  // break the cycle so that both are freed
        let data = try KeyedArchiver.archivedData(withRootObject: a)
        let root = try #require(try ArchiveGraph(bytes: [UInt8](data)).root?.object)
        #expect(root["name"]?.string == "a")
        #expect(root["left"]?.object?["left"]?.object === root)

        let outcome = try CorelibsChild.decode(data)
        // Known corelibs limitation: no cycle support when decoding NSCoding objects.
        #expect(outcome.crashed, "\(outcome)")
        #expect(outcome.output.isEmpty)
    }

    /// `nil` inside an array is a `$null` UID in `NS.objects`, which an NSArray cannot hold: corelibs decodes
    /// the array without it (silently shorter). This package reads it back as `[String?]` unchanged.
    @Test(.enabled(if: CorelibsChild.isAvailable, "swiftc not found: cannot build the corelibs child"))
    func oursNilElementsDroppedByCorelibs() throws {
        let data = try KeyedArchiveEncoder().encode(["a", nil, "b"] as [String?])
        let outcome = try CorelibsChild.decode(data)
        #expect(outcome.succeeded, "\(outcome)")
        #expect(outcome.output == #"["a", "b"]"#)
        #expect(try typed([String?].self, data) == ["a", nil, "b"])
    }

    // MARK: Corelibs → ours

    @Test func corelibsScalarsDecode() throws {
        let string = try corelibsArchive(NSString(string: "héllo 🌍"))
        #expect(try typed(String.self, string) == "héllo 🌍")
        #expect(try dynamic(string) as? String == "héllo 🌍")

        let mutableString = try corelibsArchive(NSMutableString(string: "grow"))
        #expect(try typed(String.self, mutableString) == "grow")
        #expect(try dynamic(mutableString) as? String == "grow")

        let negative = try corelibsArchive(NSNumber(value: -42))
        #expect(try typed(Int.self, negative) == -42)
        #expect(try dynamic(negative) as? Int == -42)

        let big = try corelibsArchive(NSNumber(value: Int64.max))
        #expect(try typed(Int64.self, big) == .max)
        #expect(try dynamic(big) as? Int == Int(Int64.max))

        let small = try corelibsArchive(NSNumber(value: Int64.min))
        #expect(try typed(Int64.self, small) == .min)

        let unsigned = try corelibsArchive(NSNumber(value: UInt64.max))
        #expect(try typed(UInt64.self, unsigned) == .max)
        #expect(try dynamic(unsigned) as? UInt64 == .max)
        #expect(try typed(UInt64.self, try corelibsArchive(NSNumber(value: UInt64(1) << 63))) == 1 << 63)

        let negativeZero = try typed(Double.self, try corelibsArchive(NSNumber(value: -0.0)))
        #expect(negativeZero == 0 && negativeZero.sign == .minus)
        #expect(try typed(Double.self, try corelibsArchive(NSNumber(value: Double.nan))).isNaN)

        let double = try corelibsArchive(NSNumber(value: 3.25))
        #expect(try typed(Double.self, double) == 3.25)
        #expect(try dynamic(double) as? Double == 3.25)

        let float = try corelibsArchive(NSNumber(value: Float(1.5)))
        #expect(try typed(Float.self, float) == 1.5)

        for flag in [true, false] {
            let bool = try corelibsArchive(NSNumber(value: flag))
            #expect(try typed(Bool.self, bool) == flag)
            #expect(try dynamic(bool) as? Bool == flag)
        }
    }

    @Test func corelibsDataDateUUIDDecode() throws {
        let data = try corelibsArchive(NSData(data: Data([0, 1, 2, 255])))
        #expect(try typed(Data.self, data) == Data([0, 1, 2, 255]))
        #expect(try dynamic(data) as? Data == Data([0, 1, 2, 255]))

        let mutableData = try corelibsArchive(NSMutableData(data: Data([7, 8])))
        #expect(try typed(Data.self, mutableData) == Data([7, 8]))
        #expect(try dynamic(mutableData) as? Data == Data([7, 8]))

        let when = Date(timeIntervalSinceReferenceDate: 123_456.5)
        let date = try corelibsArchive(NSDate(timeIntervalSinceReferenceDate: 123_456.5))
        #expect(try typed(Date.self, date) == when)
        #expect(try dynamic(date) as? Date == when)

        let id = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        let uuid = try corelibsArchive(NSUUID(uuidString: id.uuidString)!)
        #expect(try typed(UUID.self, uuid) == id)
        #expect(try dynamic(uuid) as? UUID == id)
    }

    @Test func corelibsURLsDecode() throws {
        let absolute = try corelibsArchive(NSURL(string: "https://example.com/a?b=c")!)
        #expect(try typed(URL.self, absolute).absoluteString == "https://example.com/a?b=c")
        #expect(try typed(URL.self, absolute).baseURL == nil)
        #expect((try dynamic(absolute) as? URL)?.absoluteString == "https://example.com/a?b=c")

        let relative = try corelibsArchive(NSURL(string: "b/c", relativeTo: URL(string: "https://example.com/a/"))!)
        let url = try typed(URL.self, relative)
        #expect(url.relativeString == "b/c")
        #expect(url.baseURL?.absoluteString == "https://example.com/a/")
        #expect(url.absoluteString == "https://example.com/a/b/c")
        let dynamicURL = try #require(try dynamic(relative) as? URL)
        #expect(dynamicURL.relativeString == "b/c")
        #expect(dynamicURL.baseURL?.absoluteString == "https://example.com/a/")
    }

    @Test func corelibsCollectionsDecode() throws {
        let strings = try corelibsArchive(NSArray(array: ["a", "b", "a"]))
        #expect(try typed([String].self, strings) == ["a", "b", "a"])
        #expect((try dynamic(strings) as? [Any])?.compactMap { $0 as? String } == ["a", "b", "a"])

        let ints = try corelibsArchive(NSMutableArray(array: [1, 2, 3]))
        #expect(try typed([Int].self, ints) == [1, 2, 3])
        #expect((try dynamic(ints) as? [Any])?.compactMap { $0 as? Int } == [1, 2, 3])

        let empty = try corelibsArchive(NSArray())
        #expect(try typed([Int].self, empty) == [])
        #expect((try dynamic(empty) as? [Any])?.isEmpty == true)

        let nested = try corelibsArchive(NSArray(array: [NSArray(array: [1]), NSArray(), NSArray(array: [2, 3])]))
        #expect(try typed([[Int]].self, nested) == [[1], [], [2, 3]])

        let stringKeys = try corelibsArchive(NSDictionary(dictionary: ["a": 1, "b": 2]))
        #expect(try typed([String: Int].self, stringKeys) == ["a": 1, "b": 2])
        let dynamicStringKeys = try #require(try dynamic(stringKeys) as? [AnyHashable: Any])
        #expect(dynamicStringKeys.count == 2)
        #expect(dynamicStringKeys["a"] as? Int == 1)
        #expect(dynamicStringKeys["b"] as? Int == 2)

        let intKeys = try corelibsArchive(NSMutableDictionary(dictionary: [1: "one", 2: "two"]))
        #expect(try typed([Int: String].self, intKeys) == [1: "one", 2: "two"])
        let dynamicIntKeys = try #require(try dynamic(intKeys) as? [AnyHashable: Any])
        #expect(dynamicIntKeys[1] as? String == "one")
        #expect(dynamicIntKeys[2] as? String == "two")

        let set = try corelibsArchive(NSSet(array: ["x", "y", "z"]))
        #expect(try typed(Set<String>.self, set) == ["x", "y", "z"])
        // Dynamic decoding has no Set mapping: an NSSet comes back as an array of its elements.
        #expect(Set((try dynamic(set) as? [Any])?.compactMap { $0 as? String } ?? []) == ["x", "y", "z"])

        let mutableSet = try corelibsArchive(NSMutableSet(array: [4, 5]))
        #expect(try typed(Set<Int>.self, mutableSet) == [4, 5])

        let ordered = try corelibsArchive(NSOrderedSet(array: ["z", "y", "x"]))
        #expect(try typed(OrderedSet<String>.self, ordered) == ["z", "y", "x"])
        #expect(try typed([String].self, ordered) == ["z", "y", "x"])
        #expect((try dynamic(ordered) as? [Any])?.compactMap { $0 as? String } == ["z", "y", "x"])

        let mutableOrdered = try corelibsArchive(NSMutableOrderedSet(array: [3, 1]))
        #expect(try typed(OrderedSet<Int>.self, mutableOrdered) == [3, 1])
    }

    /// Nested collections of mixed classes: the fields of an `NSCoding` object decode into a Codable model;
    /// an NSDictionary of them decodes dynamically. (A Codable struct reads an object's fields, not an
    /// NSDictionary's `NS.keys`/`NS.objects`.)
    @Test func corelibsNestedCollectionsDecode() throws {
        struct Model: Decodable, Equatable {
            var list: [[String: Int]]
            var map: [String: [String]]
            var when: Date
            var id: UUID
            var flags: Set<String>
            var nested: [[Double]]
        }
        let fields: [String: Any] = [
            "list": NSArray(array: [NSDictionary(dictionary: ["a": 10]), NSDictionary(dictionary: ["b": 20, "c": 30])]),
            "map": NSDictionary(dictionary: ["x": NSArray(array: ["p", "q"]), "y": NSArray()]),
            "when": NSDate(timeIntervalSinceReferenceDate: 99),
            "id": NSUUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
            "flags": NSSet(array: ["on", "off"]),
            "nested": NSArray(array: [NSArray(array: [0.5, 1.5]), NSArray()]),
        ]
        let model = try typed(Model.self, try corelibsArchive(CorelibsInteropBag(fields)))
        #expect(model == Model(
            list: [["a": 10], ["b": 20, "c": 30]], map: ["x": ["p", "q"], "y": []],
            when: Date(timeIntervalSinceReferenceDate: 99), id: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
            flags: ["on", "off"], nested: [[0.5, 1.5], []]))

        let data = try corelibsArchive(NSDictionary(dictionary: fields))
        let root = try #require(try dynamic(data) as? [AnyHashable: Any])
        let list = try #require(root["list"] as? [Any])
        #expect((list.first as? [AnyHashable: Any])?["a"] as? Int == 10)
        #expect(((root["map"] as? [AnyHashable: Any])?["x"] as? [Any])?.compactMap { $0 as? String } == ["p", "q"])
        #expect(root["when"] as? Date == Date(timeIntervalSinceReferenceDate: 99))
        #expect(root["id"] as? UUID == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
    }

    @Test func corelibsNullAndValuesDecode() throws {
        #expect(try dynamic(try corelibsArchive(NSNull())) is NSNull)

        let range = try corelibsArchive(NSValue(range: NSRange(location: 2, length: 5)))
        #expect(try typed(ArchiveRange.self, range) == ArchiveRange(location: 2, length: 5))
        #expect(try dynamic(range) as? ArchiveRange == ArchiveRange(location: 2, length: 5))

        let point = try corelibsArchive(NSValue(point: NSPoint(x: 1.5, y: -2)))
        #expect(try typed(ArchivePoint.self, point) == ArchivePoint(x: 1.5, y: -2))
        #expect(try dynamic(point) as? ArchivePoint == ArchivePoint(x: 1.5, y: -2))

        let size = try corelibsArchive(NSValue(size: NSSize(width: 3, height: 4.25)))
        #expect(try typed(ArchiveSize.self, size) == ArchiveSize(width: 3, height: 4.25))

        let rect = try corelibsArchive(NSValue(rect: NSRect(x: 1, y: 2, width: 3, height: 4)))
        #expect(try typed(ArchiveRect.self, rect) == ArchiveRect(x: 1, y: 2, width: 3, height: 4))
        #expect(try dynamic(rect) as? ArchiveRect == ArchiveRect(x: 1, y: 2, width: 3, height: 4))

        let insets = try corelibsArchive(NSValue(edgeInsets: NSEdgeInsets(top: 1, left: 2, bottom: 3, right: 4.5)))
        #expect(try typed(ArchiveEdgeInsets.self, insets) == ArchiveEdgeInsets(top: 1, left: 2, bottom: 3, right: 4.5))
    }

    /// corelibs writes a one-run NSAttributedString without `NSAttributeInfo`; this package reads it as one run.
    @Test func corelibsAttributedStringDecodes() throws {
        let data = try corelibsArchive(NSAttributedString(string: "hi", attributes: [NSAttributedString.Key("k"): "v"]))
        let text = try #require(try dynamic(data) as? ArchiveAttributedString)
        #expect(text.string == "hi")
        #expect(text.runs.count == 1)
        #expect(text.runs.first?.range == 0..<2)
        #expect(text.runs.first?.attributes["k"] as? String == "v")
    }

    /// A custom `NSCoding` class decodes as an `ArchivedObject` dynamically and into a `Decodable` class by its
    /// fields; the object two others share is one instance either way.
    @Test func corelibsCustomClassWithSharedReference() throws {
        let shared = CorelibsInteropNode(name: "shared", rank: 3)
        let data = try corelibsArchive(NSArray(array: [
            CorelibsInteropNode(name: "first", rank: 1, child: shared),
            CorelibsInteropNode(name: "second", rank: 2, child: shared),
        ]))
        let className = NSStringFromClass(CorelibsInteropNode.self)
        #expect(className.hasSuffix("CorelibsInteropNode"))

        let objects = try #require(try dynamic(data) as? [Any])
        let first = try #require(objects.first as? ArchivedObject)
        let second = try #require(objects.last as? ArchivedObject)
        #expect(objects.count == 2)
        #expect(first.className == className)
        #expect(first.archiveClass.chain.first == className)
        #expect(first["name"]?.string == "first")
        #expect(first["rank"]?.int == 1)
        #expect(second["name"]?.string == "second")
        let firstChild = try #require(first["child"]?.object)
        let secondChild = try #require(second["child"]?.object)
        #expect(firstChild === secondChild)
        #expect(firstChild.className == className)
        #expect(firstChild["name"]?.string == "shared")
        #expect(firstChild["rank"]?.int == 3)
        #expect(firstChild["child"]?.isNull == true)

        let nodes = try typed([InteropNodeMirror].self, data)
        #expect(nodes.map(\.name) == ["first", "second"])
        #expect(nodes.map(\.rank) == [1, 2])
        let child = try #require(nodes[0].child)
        #expect(child === nodes[1].child)
        #expect(child.name == "shared")
        #expect(child.child == nil)
    }

    /// A corelibs `NSCoding` class decodes into an `@AutoCoding` class registered for its name: `$null`
    /// optionals, arrays of objects and shared references included.
    @Test func corelibsNSCodingClassDecodesIntoAnAutoCodingModel() throws {
        let b = CorelibsInteropPerson(name: "b", age: 2)
        let data = try corelibsArchive(CorelibsInteropPerson(name: "a", age: 1, best: b, friends: [b, b]))
        var decoder = KeyedArchiveDecoder()
        decoder.setClass(InteropPerson.self, forClassName: NSStringFromClass(CorelibsInteropPerson.self))
        let a = try decoder.decode(InteropPerson.self, from: data)
        #expect(a.name == "a" && a.age == 1)
        let best = try #require(a.best)
        #expect(best.name == "b" && best.age == 2 && best.best == nil && best.friends.isEmpty)
        #expect(a.friends.count == 2 && a.friends.allSatisfy { $0 === best })
        // Unregistered, the corelibs class is not an InteropPerson: refused, naming both classes.
        do {
            _ = try KeyedArchiveDecoder().decode(InteropPerson.self, from: data)
            Issue.record("an unregistered class was accepted")
        } catch let error as DecodingError {
            #expect("\(error)".contains("CorelibsInteropPerson") && "\(error)".contains("InteropHelper.Person"))
        }
    }

    /// An `ArchiveCoding` class and an array of them, read from corelibs' archive of a same-shaped class.
    @Test func corelibsNSCodingObjectsDecodeThroughInitCoder() throws {
        let shared = CorelibsInteropNode(name: "shared", rank: 3)
        let data = try corelibsArchive(NSArray(array: [
            CorelibsInteropNode(name: "first", rank: 1, child: shared), shared,
        ]))
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        unarchiver.setClass(InteropNodeCoding.self, forClassName: NSStringFromClass(CorelibsInteropNode.self))
        let nodes = try #require(try unarchiver.decodeObject(of: [InteropNodeCoding].self, forKey: "root"))
        #expect(nodes.map(\.name) == ["first", "shared"])
        #expect(nodes[0].child === nodes[1])
        #expect(nodes[1].rank == 3)
    }

    /// corelibs' XML plist output decodes too.
    @Test func corelibsXMLArchiveDecodes() throws {
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.outputFormat = .xml
        archiver.encode(NSDictionary(dictionary: ["a": NSArray(array: ["x", "y"]), "b": NSArray()]), forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        let data = archiver.encodedData
        #expect(data.starts(with: Data("<?xml".utf8)))
        #expect(try typed([String: [String]].self, data) == ["a": ["x", "y"], "b": []])
    }

    /// Secure decoding of corelibs archives: allowed classes decode, others are a thrown error (never a trap).
    @Test func corelibsSecureDecoding() throws {
        let data = try corelibsArchive(NSMutableDictionary(dictionary: ["a": NSArray(array: [1, 2]), "b": NSArray()]))
        let decoded = try KeyedUnarchiver.unarchivedObject(ofClasses: [[String: [Int]].self, [Int].self, String.self, Int.self], from: data)
        let dictionary = try #require(decoded as? [AnyHashable: Any])
        #expect((dictionary["a"] as? [Any])?.compactMap { $0 as? Int } == [1, 2])
        #expect(throws: DecodingError.self) {
            try KeyedUnarchiver.unarchivedObject(ofClasses: [[String: [Int]].self, [Int].self, String.self], from: data)
        }

        let node = try corelibsArchive(CorelibsInteropNode(name: "n", rank: 1))
        #expect(throws: DecodingError.self) { try KeyedUnarchiver.unarchivedObject(ofClasses: [String.self], from: node) }
    }

    /// Foundation classes with no Swift mapping here are kept as `ArchivedObject`s and survive re-encoding.
    @Test func corelibsUnmappedClassesKeptAsArchivedObjects() throws {
        let objects: [(String, NSObject)] = [
            ("NSTimeZone", NSTimeZone(name: "Europe/Paris")!),
            ("NSLocale", NSLocale(localeIdentifier: "fr_FR")),
            ("NSCalendar", NSCalendar(identifier: .gregorian)!),
            ("NSIndexSet", NSIndexSet(indexesIn: NSRange(location: 1, length: 3))),
            ("NSCharacterSet", NSCharacterSet(charactersIn: "ab")),
        ]
        for (name, object) in objects {
            let data = try corelibsArchive(object)
            let decoded = try dynamic(data) as? ArchivedObject
            #expect(decoded?.className == name, "\(name)")
            let graph = try ArchiveGraph(bytes: [UInt8](data))
            #expect(graph.isEquivalent(to: try ArchiveGraph(bytes: graph.binaryPlist())), "\(name)")
        }
    }

    // MARK: Known corelibs bugs (each test expects the bug and fails if corelibs changes)

    /// corelibs ignores `setClassName(_:for:)`: the archive still names the Swift class. This package honours it.
    @Test func knownBugCorelibsIgnoresSetClassName() throws {
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.setClassName("RenamedNode", for: CorelibsInteropNode.self)
        archiver.encode(CorelibsInteropNode(name: "n", rank: 1), forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        // Bug: Apple's archiver would write "RenamedNode".
        #expect(try rootClassName(archiver.encodedData) == NSStringFromClass(CorelibsInteropNode.self))

        let ours = KeyedArchiver()
        ours.setClassName("RenamedNode", for: InteropRenamed.self)
        try ours.encode(InteropRenamed(), forKey: ArchiveKey.root)
        #expect(try rootClassName(try ours.encodedData()) == "RenamedNode")
    }

    /// corelibs uniques archived objects by `isEqual:`/`hash` (its `_objRefMap` is keyed by `AnyHashable`), not
    /// by identity as Apple's archiver does; this package uniques strings by identity (their storage).
    @Test func knownBugCorelibsUniquesByEquality() throws {
        // Two distinct but equal strings: corelibs writes one entry ($null, the array, the string, the class = 4);
        // ours writes two, as Apple's archiver writes two objects, unless they are one string.
        let text = "a string too long to be a small string"
        let first = NSMutableString(string: text).copy() as! NSString
        let second = NSMutableString(string: text).copy() as! NSString
        #expect(first !== second)
        let corelibs = try corelibsArchive(NSArray(array: [first, second]))
        #expect(try objectCount(corelibs) == 4)
        #expect(try typed([String].self, corelibs) == [text, text])
        let distinct = [String(decoding: Array(text.utf8), as: UTF8.self), String(decoding: Array(text.utf8), as: UTF8.self)]
        #expect(try objectCount(KeyedArchiveEncoder().encode(distinct)) == 5)
        #expect(try objectCount(KeyedArchiveEncoder().encode([text, text])) == 4)

        // Bug: `1`, `true` and `1.0` are equal NSNumbers, so corelibs archives one integer three times and the
        // Bool and the Double are lost: the array reads back as [1, 1, 1] (in corelibs too).
        let mixed = try corelibsArchive(NSArray(array: [NSNumber(value: 1), NSNumber(value: true), NSNumber(value: 1.0)]))
        #expect(try objectCount(mixed) == 4)
        let values = try #require(try dynamic(mixed) as? [Any])
        #expect(values.count == 3)
        #expect(values.allSatisfy { ($0 as? Int) == 1 })
        #expect(!values.contains { $0 is Bool || $0 is Double })

        // Bug: two distinct, equal mutable arrays become one shared object.
        let arrays = try corelibsArchive(NSArray(array: [NSMutableArray(array: [1]), NSMutableArray(array: [1])]))
        let elements = try #require(try ArchiveGraph(bytes: [UInt8](arrays)).root?.object?["NS.objects"]?.elements)
        #expect(elements.count == 2)
        #expect(elements[0].object != nil && elements[0].object === elements[1].object)
    }

    /// corelibs archives a Swift `URL` with a base flattened to its absolute string (bridging to NSURL drops
    /// the base); an `NSURL` keeps `NS.base` (see ``corelibsURLsDecode()``).
    @Test func knownBugCorelibsFlattensSwiftURLBase() throws {
        let url = URL(string: "b/c", relativeTo: URL(string: "https://example.com/a/")!)!
        let data = try corelibsArchive(url)
        let decoded = try typed(URL.self, data)
        #expect(decoded.absoluteString == "https://example.com/a/b/c")
        // Bug: the base is lost.
        #expect(decoded.baseURL == nil)
        #expect(decoded.relativeString == "https://example.com/a/b/c")
    }

    /// corelibs cannot decode its own one-run NSAttributedString (no `NSAttributeInfo`, which its decoder
    /// requires): the child traps. This package decodes it (``corelibsAttributedStringDecodes()``).
    @Test(.enabled(if: CorelibsChild.isAvailable, "swiftc not found: cannot build the corelibs child"))
    func knownBugCorelibsCannotReadItsOwnAttributedString() throws {
        let data = try corelibsArchive(NSAttributedString(string: "hi", attributes: [NSAttributedString.Key("k"): "v"]))
        let outcome = try CorelibsChild.decode(data)
        // Bug: corelibs traps ("No value found for key NSAttributeInfo").
        #expect(!outcome.succeeded, "\(outcome)")
        #expect(outcome.errorOutput.contains("NSAttributeInfo"), "\(outcome)")
        #expect(try dynamic(data) is ArchiveAttributedString)
    }
}
