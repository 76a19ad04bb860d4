/// Class instances held as `T` and as `AnyObject`, converted without the runtime's casts. `as AnyObject` on a
/// generic value goes through the Objective-C bridging lookup (about 2,400 instructions a call: 8 % of a W1
/// decode), and `as? T` through a dynamic cast, where a class reference is one word either way.
enum ClassReferences {
    /// `value` as an object. `T` must be a class type (callers check it once, per type).
    @inline(__always)
    static func object<T>(_ value: T) -> AnyObject {
        // A class existential is wider than one reference: it takes the general path.
        MemoryLayout<T>.size == MemoryLayout<AnyObject>.size ? unsafeBitCast(value, to: AnyObject.self) : value as AnyObject
    }

    /// Whether `object`'s class is exactly `T`: then `unsafeBitCast(object, to: T.self)` is `object` as a `T`.
    /// (A `T?` result would cost a runtime lookup of `Optional<T>`'s metadata per call in unspecialized code.)
    @inline(__always)
    static func isExactly<T>(_ object: AnyObject, _: T.Type) -> Bool {
        ObjectIdentifier(Swift.type(of: object)) == ObjectIdentifier(T.self)
    }
}
