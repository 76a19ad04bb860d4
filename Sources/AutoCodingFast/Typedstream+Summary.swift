extension Typedstream {
    /// How many objects the stream stores literally (its ``TypedstreamEvent/beginObject`` events).
    public var objectCount: Int {
        events.reduce(0) { count, event in if case .beginObject = event { count + 1 } else { count } }
    }

    /// How many entries the reference table has: literal objects, classes and C strings.
    public var referenceCount: Int {
        events.reduce(0) { count, event in
            switch event {
            case .beginObject, .classInfo, .cString: count + 1
            default: count
            }
        }
    }

    /// How many top-level groups of values the stream has.
    public var topLevelGroupCount: Int {
        var depth = 0
        var groups = 0
        for event in events {
            switch event {
            case .beginGroup:
                if depth == 0 { groups += 1 }
                depth += 1
            case .endGroup: depth -= 1
            default: break
            }
        }
        return groups
    }

    /// The class name of the first top-level object, or nil when the stream does not start with one.
    public var rootClassName: String? {
        guard events.count > 2, case .beginObject = events[1], case .classInfo(let name, _) = events[2] else {
            return nil
        }
        return String(decoding: bytes(of: name), as: UTF8.self)
    }
}
