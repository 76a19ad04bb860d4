/// The literal keys of the NSKeyedArchiver format, kept in one place.
public enum ArchiveKey {
    /// Top-level key naming the archiver class (`NSKeyedArchiver`, `SCNKeyedArchiver` ...).
    public static let archiver = "$archiver"
    /// Top-level key holding the format version, 100000.
    public static let version = "$version"
    /// Top-level key holding the dictionary of root UIDs (`root`, `$0` ...).
    public static let top = "$top"
    /// Top-level key holding the flat object table.
    public static let objects = "$objects"
    /// Object key referring to the object's class descriptor.
    public static let `class` = "$class"
    /// Class-descriptor key holding the class name.
    public static let className = "$classname"
    /// Class-descriptor key holding the class chain, most derived first.
    public static let classes = "$classes"
    /// The string stored at UID 0.
    public static let null = "$null"
    /// The `$top` key `NSKeyedArchiver` uses for the root object.
    public static let root = "root"
    /// The format version every known archiver writes.
    public static let formatVersion = 100_000
}
