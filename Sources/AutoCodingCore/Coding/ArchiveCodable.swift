import Foundation

/// Customizes how a Swift type is named in archives.
///
/// By default a type is archived under its module-qualified name (`App.Person`), as Apple's
/// `NSStringFromClass` names a Swift class, with the chain `[name, superclass names…, "NSObject"]`.
/// Conform to give an Objective-C name (to read and write archives made by an app's Objective-C classes)
/// or a stable name that survives a module rename.
public protocol ArchiveCodable {
    /// The `$classname` written for this type and matched when reading.
    static var archiveClassName: String { get }
    /// The `$classes` chain, most derived first. Default: the name, the names of `@AutoCoding`/`ArchiveCodable`
    /// superclasses, then `NSObject`.
    static var archiveClassChain: [String] { get }
}

extension ArchiveCodable {
    /// The module-qualified type name.
    public static var archiveClassName: String { ArchiveNaming.typeName(Self.self) }
    /// The name, the superclass names, `NSObject`.
    public static var archiveClassChain: [String] { ArchiveNaming.defaultChain(for: Self.self, name: archiveClassName) }
}

/// How types are named when neither a registry entry nor ``ArchiveCodable`` says otherwise.
enum ArchiveNaming {
    /// The archived class for a Swift type.
    static func archiveClass(for type: Any.Type) -> (name: String, chain: [String]) {
        if let custom = type as? any ArchiveCodable.Type {
            return (custom.archiveClassName, custom.archiveClassChain)
        }
        let name = typeName(type)
        return (name, defaultChain(for: type, name: name))
    }

    /// The module-qualified name of a type, as `String(reflecting:)` writes it (`App.Person`). It is that
    /// function's own answer for a metatype, without its way there: `String(reflecting:)` first asks the runtime
    /// whether the metatype conforms to each printing protocol, and the first such questions in a process scan
    /// every conformance record of the binary (about 65 M instructions, a quarter of a 10,000-person decode).
    static func typeName(_ type: Any.Type) -> String { _typeName(type, qualified: true) }

    /// `[name, superclass names…, "NSObject"]`.
    static func defaultChain(for type: Any.Type, name: String) -> [String] {
        var chain = [name]
        if let cls = type as? AnyClass {
            var superclass: AnyClass? = _getSuperclass(cls)
            while let s = superclass {
                // NSObject is written as Apple writes it, and ends the chain (its Swift name is `Foundation.NSObject`
                // where the Objective-C runtime is not there to name it).
                if ObjectIdentifier(s) == ObjectIdentifier(NSObject.self) { break }
                chain.append((s as? any ArchiveCodable.Type)?.archiveClassName ?? typeName(s))
                superclass = _getSuperclass(s)
            }
        }
        if chain.last != "NSObject" { chain.append("NSObject") }
        return chain
    }
}
