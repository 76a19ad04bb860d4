// Writes keyed archives made by swift-corelibs-foundation's NSKeyedArchiver (on Linux) or Apple Foundation (on
// macOS), so the engine is tested against archives that an archiver of the Foundation family really wrote.
//
// Usage: SWIFT_DETERMINISTIC_HASHING=1 swift scripts/make-foundation-fixtures.swift OUTDIR
//        (OUTDIR is normally Tests/AutoCodingFastTests/Fixtures)
//
// Every file is written as foundation-<name>.archive, with requiringSecureCoding false. corelibs' NSDictionary
// and NSSet keep their members in a Swift Dictionary/Set, whose order is seeded per process unless
// SWIFT_DETERMINISTIC_HASHING=1 is set; with it, reruns give the same bytes.
//
// corelibs' NSKeyedArchiver crashes on reference cycles, so these graphs share objects but never loop back.
// The custom class is archived as `main.Node`: a script's module is `main`, and corelibs 6.3 ignores
// setClassName(_:for:) (both the class and the instance method), so the name cannot be remapped.

import Foundation

/// A custom NSCoding class: a named node with an optional shared `tag` node and children.
final class Node: NSObject, NSCoding {
    let name: String
    let tag: Node?
    let children: [Node]

    init(name: String, tag: Node? = nil, children: [Node] = []) {
        self.name = name
        self.tag = tag
        self.children = children
    }

    func encode(with coder: NSCoder) {
        coder.encode(name as NSString, forKey: "name")
        coder.encode(tag, forKey: "tag")
        coder.encode(children as NSArray, forKey: "children")
        coder.encode(children.count, forKey: "count")
    }

    init?(coder: NSCoder) {
        guard let name = coder.decodeObject(forKey: "name") as? String else { return nil }
        self.name = name
        self.tag = coder.decodeObject(forKey: "tag") as? Node
        self.children = coder.decodeObject(forKey: "children") as? [Node] ?? []
    }
}

/// 2024-02-29T12:00:00Z, as a fixed reference-date interval.
let leapDay = NSDate(timeIntervalSinceReferenceDate: 730_900_800)

func fixtures() -> [(String, Any)] {
    let sharedString: NSString = "shared"
    let sharedTag = Node(name: "tag")
    let leaf1 = Node(name: "leaf-1", tag: sharedTag)
    let leaf2 = Node(name: "leaf-2", tag: sharedTag)
    let tree = Node(name: "root", tag: sharedTag, children: [leaf1, leaf2, leaf1])

    return [
        ("nsstring", NSString(string: "héllo, 世界 👋")),
        (
            "nsnumber-array",
            NSArray(array: [
                NSNumber(value: 0), NSNumber(value: -1), NSNumber(value: Int64.max), NSNumber(value: Int64.min),
                NSNumber(value: UInt64.max), NSNumber(value: 2.5), NSNumber(value: true), NSNumber(value: Float(0.5)),
            ])
        ),
        ("nsarray-shared", NSArray(array: [sharedString, sharedString, NSArray(array: [sharedString])])),
        (
            "nsdictionary",
            NSDictionary(dictionary: [
                "name": "widget", "count": NSNumber(value: 3), "nested": NSDictionary(dictionary: ["k": "v"]),
            ])
        ),
        ("nsdata", NSData(bytes: [0xDE, 0xAD, 0xBE, 0xEF] as [UInt8], length: 4)),
        ("nsdate", leapDay),
        ("nsuuid", NSUUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
        ("nsurl", NSURL(string: "https://example.com/path?q=1")!),
        (
            "mixed-graph",
            NSDictionary(dictionary: [
                "strings": NSArray(array: ["a", "b", sharedString]),
                "data": NSData(bytes: [1, 2, 3] as [UInt8], length: 3),
                "date": leapDay,
                "uuid": NSUUID(uuidString: "00000000-0000-0000-0000-000000000001")!,
                "url": NSURL(string: "file:///tmp/x")!,
                "again": sharedString,
            ])
        ),
        ("custom-node-graph", tree),
    ]
}

let arguments = CommandLine.arguments
guard arguments.count == 2 else {
    FileHandle.standardError.write("usage: swift scripts/make-foundation-fixtures.swift OUTDIR\n".data(using: .utf8)!)
    exit(2)
}
let outDir = URL(fileURLWithPath: arguments[1], isDirectory: true)
try FileManager.default.createDirectory(at: outDir, withIntermediateDirectories: true)

for (name, object) in fixtures() {
    let data = try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: false)
    let url = outDir.appendingPathComponent("foundation-\(name).archive")
    try data.write(to: url)
    print(String(format: "%6d  %@", data.count, url.lastPathComponent))
}
