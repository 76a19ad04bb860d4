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

    /// `object` as a `T` when its class is exactly `T`; nil otherwise (a subclass, or another type: ask `as?`).
    @inline(__always)
    static func exact<T>(_ object: AnyObject, as _: T.Type) -> T? {
        ObjectIdentifier(Swift.type(of: object)) == ObjectIdentifier(T.self) ? unsafeBitCast(object, to: T.self) : nil
    }
}
