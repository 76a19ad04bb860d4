/// Gives a class or struct archiving from its stored properties, with no hand-written coding.
///
/// The macro writes the `Codable` conformance (one keyed field per stored property, keyed by the property
/// name), the static property table `AutoCodingObject.codableProperties`, and for classes the two-phase
/// decode that lets reference cycles come back with identity: an instance is allocated first
/// (`init(autoCodingShell:)`), registered, and then filled (`decodeProperties(from:)`). Classes also get
/// `==` and `hash(into:)` from their properties, or from their identity when `identityEquality` is true; structs
/// get them from their properties too, unless they declare `Equatable` or `Hashable` themselves or pass
/// `equatable: false` (then none is generated).
///
/// What is coded: every stored `var` (and, in structs, `let`) except `lazy` ones and those marked
/// ``Uncodable()``. Class properties need a default value or an optional type, so that the class can be
/// allocated before it is decoded. Rename a key with ``ArchiveKey(_:_:)``; the extra names are read when
/// the first is missing (old archives).
///
/// A subclass of an `@AutoCoding` class that has `@AutoCoding` too archives the superclass's properties first
/// and then its own: its generated members override the superclass's and call them (see the *Automatic model
/// coding* article).
@attached(
    member, conformances: AutoCodingObject,
    names: named(codableProperties), named(init(autoCodingShell:)), named(init(from:)), named(init),
    named(encode(to:)), named(decodeProperties(from:)), named(autoCodingEncode(to:)),
    named(autoCodingDecodeProperties(from:)), named(autoCodingWillEncode(to:)), named(autoCodingDidEncode(to:)),
    named(autoCodingWillDecode(from:)), named(autoCodingDidDecode(from:)), named(isEqual(_:)), named(hash)
)
@attached(
    extension, conformances: AutoCodingObject, AutoCodingValue, Hashable,
    names: named(==), named(hash(into:)), named(codableProperties), named(init(from:)), named(encode(to:))
)
public macro AutoCoding(identityEquality: Bool = false, equatable: Bool = true) =
    #externalMacro(module: "AutoCodingMacros", type: "AutoCodingMacro")

/// Leaves a stored property out of ``AutoCoding(identityEquality:equatable:)`` archiving.
@attached(peer)
public macro Uncodable() = #externalMacro(module: "AutoCodingMacros", type: "MarkerMacro")

/// Archives a property under `key` instead of its name; `fallbacks` are read, in order, when `key` is
/// missing (for archives written before a rename, or with Objective-C ivar names such as `_name`).
@attached(peer)
public macro ArchiveKey(_ key: String, _ fallbacks: String...) = #externalMacro(module: "AutoCodingMacros", type: "MarkerMacro")

/// Archives a property in the given forms (`ArchiveForm`): `nil` as `$null`, a number referenced instead of
/// in place, an array as an `NSMutableArray` … so that a model reproduces the archives it was made from.
@attached(peer)
public macro ArchiveAs(_ forms: ArchiveForm...) = #externalMacro(module: "AutoCodingMacros", type: "MarkerMacro")
