import AutoCodingFast

/// How one property is written into a keyed archive when the Swift type alone does not say: whether a
/// number is stored in place or as its own `$objects` entry, whether `nil` is written as `$null`, and which
/// Foundation class a collection, string or data is archived as. Decoding reads every form.
///
/// Objective-C classes choose these per field (`encodeInteger:forKey:` stores in place, `encodeObject:@(n)`
/// stores a referenced NSNumber; `encodeObject:nil` stores `$null`; an `NSMutableArray` ivar stays mutable).
/// Give a property the forms of the archives it must reproduce with `ArchiveAs(_:)`; `autocoding codegen`
/// writes them from what it sees. Coders other than this package's ignore every form except
/// ``omitWhenNil`` (which leaves a `nil` key out, as `encodeIfPresent(_:forKey:)`) and ``conditional`` (which
/// they leave out).
public struct ArchiveForm: Sendable, Hashable {
    enum Storage: Sendable, Hashable {
        case nullWhenNil
        case omitWhenNil
        case conditional
        case inline
        case referenced
        case archiveClass(ArchiveClass, valueKey: String?)
    }

    let storage: Storage

    /// A `nil` optional is written as a `$null` reference, as Apple's `encodeObject:nil forKey:` writes it. This
    /// is what `@AutoCoding` writes by default; the form is kept for models that name it.
    public static let nullWhenNil = ArchiveForm(storage: .nullWhenNil)

    /// A `nil` optional is left out of the archive (no key), as the seeds' AutoCoding and `encodeIfPresent`
    /// do, instead of the default `$null`. Readers find the key missing; `decodeObject(forKey:)` answers nil
    /// either way.
    public static let omitWhenNil = ArchiveForm(storage: .omitWhenNil)

    /// An object is referenced only if it is archived unconditionally elsewhere, and `$null` otherwise, as
    /// `encodeConditionalObject:forKey:` writes it (for `weak` back references: a child archived alone does not
    /// drag its parent in). It applies to class instances. Other coders than this package's leave the key out.
    public static let conditional = ArchiveForm(storage: .conditional)

    /// A number, boolean, string or data is stored in place in its object (`encodeInteger:forKey:`,
    /// `encodeBytes:length:forKey:`). Numbers and booleans are stored so by default.
    public static let inline = ArchiveForm(storage: .inline)

    /// A number, boolean, string or data is stored as its own `$objects` entry and referenced by UID
    /// (`encodeObject:forKey:` with an NSNumber, NSString or NSData). Strings and data are stored so by default.
    public static let referenced = ArchiveForm(storage: .referenced)

    /// The value is archived as an instance of this Foundation class: a mutable collection
    /// (`"NSMutableArray", "NSArray", "NSObject"`), or for a string or data an instance holding it under
    /// `valueKey` (`NSMutableString` with `NS.string`, `NSMutableData` with `NS.data` by default; some
    /// archivers write `NS.bytes`). `name` is the class; `superclasses` its chain above it.
    public static func archiveClass(_ name: String, _ superclasses: String..., valueKey: String? = nil) -> ArchiveForm {
        let chain = superclasses.isEmpty ? [] : [name] + superclasses
        return archiveClass(ArchiveClass(name: name, chain: chain), valueKey: valueKey)
    }

    /// The value is archived as an instance of `archiveClass` (see ``archiveClass(_:_:valueKey:)``).
    public static func archiveClass(_ archiveClass: ArchiveClass, valueKey: String? = nil) -> ArchiveForm {
        ArchiveForm(storage: .archiveClass(archiveClass, valueKey: valueKey))
    }
}
