import Foundation

/// Builds Foundation JSON objects, giving up (nil) beyond a depth that would be unsafe to free.
struct JSONObjectSink: JSONSink {
    private struct Partial {
        var isObject: Bool
        var array: [Any] = []
        var object: [String: Any] = [:]
        var key: String?
    }

    private var stack: [Partial] = []
    private var value: Any?
    private var overflowed = false
    private static let depthLimit = 512

    /// The finished value, or nil when it nested too deeply.
    var result: Any? { overflowed ? nil : value }

    private mutating func add(_ element: Any) {
        guard !overflowed else { return }
        guard let last = stack.indices.last else {
            value = element
            return
        }
        if stack[last].isObject {
            stack[last].object[stack[last].key ?? ""] = element
            stack[last].key = nil
        } else {
            stack[last].array.append(element)
        }
    }

    private mutating func begin(isObject: Bool) {
        guard !overflowed else { return }
        guard stack.count < Self.depthLimit else {
            // Stop building: the partial tree is dropped, and what was built is at most 512 levels deep.
            overflowed = true
            stack.removeAll()
            return
        }
        stack.append(Partial(isObject: isObject))
    }

    private mutating func end() {
        guard !overflowed, let finished = stack.popLast() else { return }
        add(finished.isObject ? finished.object as Any : finished.array as Any)
    }

    mutating func beginObject(compact: Bool) { begin(isObject: true) }
    mutating func endObject() { end() }
    mutating func beginArray(compact: Bool) { begin(isObject: false) }
    mutating func endArray() { end() }

    mutating func key(_ key: String) {
        guard !overflowed, let last = stack.indices.last else { return }
        stack[last].key = key
    }

    mutating func string(_ value: String) { add(value) }
    mutating func integer(_ value: Int64) { add(Int(exactly: value).map { $0 as Any } ?? NSNumber(value: value)) }
    mutating func unsigned(_ value: UInt64) { add(NSNumber(value: value)) }
    mutating func real(_ value: Double) { add(value) }
    mutating func bool(_ value: Bool) { add(value) }
    mutating func null() { add(NSNull()) }
    /// Never: this sink has no output budget, only its depth limit (`jsonObject()` is for values you trust;
    /// the text forms take `maxOutputBytes`).
    var isFull: Bool { false }
    mutating func spend(_ bytes: Int) {}
}
