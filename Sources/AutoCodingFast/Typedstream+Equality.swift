extension Typedstream: Equatable {
    /// Two streams are equal when their headers and events are, comparing string payloads by their bytes
    /// (not their extents in storage) and reals by bit pattern.
    public static func == (lhs: Typedstream, rhs: Typedstream) -> Bool {
        lhs.firstDifference(from: rhs) == nil
    }

    /// The first event where `self` and `other` differ, described, or nil when they are equal.
    public func firstDifference(from other: Typedstream) -> String? {
        guard streamerVersion == other.streamerVersion, byteOrder == other.byteOrder,
            systemVersion == other.systemVersion
        else { return "headers differ" }
        guard events.count == other.events.count else {
            for (i, (a, b)) in zip(events, other.events).enumerated() where !same(a, b, other) {
                return "event \(i): \(a) vs \(b)"
            }
            return "\(events.count) events vs \(other.events.count)"
        }
        for i in events.indices where !same(events[i], other.events[i], other) {
            return "event \(i): \(events[i]) vs \(other.events[i])"
        }
        return nil
    }

    private func same(_ a: TypedstreamEvent, _ b: TypedstreamEvent, _ other: Typedstream) -> Bool {
        func eq(_ x: TypedstreamString?, _ y: TypedstreamString?) -> Bool {
            switch (x, y) {
            case (nil, nil): true
            case (let x?, let y?): bytes(of: x).elementsEqual(other.bytes(of: y))
            default: false
            }
        }
        switch (a, b) {
        case (.beginGroup(let x), .beginGroup(let y)), (.cString(let x), .cString(let y)),
            (.string(let x), .string(let y)), (.beginStruct(let x), .beginStruct(let y)):
            return eq(x, y)
        case (.atom(let x), .atom(let y)), (.selector(let x), .selector(let y)):
            return eq(x, y)
        case (.classInfo(let x, let v), .classInfo(let y, let w)):
            return v == w && eq(x, y)
        case (.byteArray(let x, let s), .byteArray(let y, let t)):
            return s == t && eq(x, y)
        case (.beginArray(let x, let n), .beginArray(let y, let m)):
            return n == m && eq(x, y)
        case (.float(let x), .float(let y)):
            return x.bitPattern == y.bitPattern
        case (.double(let x), .double(let y)):
            return x.bitPattern == y.bitPattern
        default:
            return a == b
        }
    }
}
