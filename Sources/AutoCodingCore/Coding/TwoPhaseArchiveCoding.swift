/// An ``ArchiveCoding`` class decoded in two phases, so that it can sit on a reference cycle: this package's
/// decoders create it with `init()`, register it, and then fill it with ``decode(with:)``. A reference back to
/// it met while it is being filled (a child's `parent`) gets the same, partly filled instance, as Apple's
/// `initWithCoder:` hands out `self` to `decodeObject` of a back reference.
///
/// ```swift
/// final class Node: TwoPhaseArchiveCoding {
///     var name = ""
///     var children: [Node] = []
///     weak var parent: Node?
///     init() {}
///     func encode(with coder: KeyedArchiver) throws {
///         coder.encode(name, forKey: "name")
///         try coder.encode(children, forKey: "children")
///         coder.encodeConditionalObject(parent, forKey: "parent")
///     }
///     func decode(with coder: KeyedUnarchiver) throws {
///         name = try coder.decodeString(forKey: "name") ?? ""
///         children = try coder.decodeObject(of: [Node].self, forKey: "children") ?? []
///         parent = try coder.decodeObject(of: Node.self, forKey: "parent")
///     }
/// }
/// ```
/// An object read in ``decode(with:)`` may itself be partly filled when it is on the same cycle (here the
/// parent, while its children are decoded): keep the reference, and read its fields after decoding, or in
/// ``ArchiveCoding/awakeAfter(using:)``. A substitute ``ArchiveCoding/awakeAfter(using:)`` returns is handed to
/// references met after it; those met during the fill keep the original, as in Foundation.
///
/// The protocol gives ``ArchiveCoding/init(coder:)`` (both phases, the instance registered in between); keep
/// that default. A class with an `init(coder:)` of its own is one-phase: a cycle through it is a
/// `DecodingError` naming the classes on the cycle.
public protocol TwoPhaseArchiveCoding: ArchiveCoding {
    /// Creates an instance to be filled by ``decode(with:)``.
    init()
    /// Reads the object's fields into `self`.
    func decode(with coder: KeyedUnarchiver) throws
}

extension TwoPhaseArchiveCoding {
    /// Creates an instance and fills it: both phases at once, for callers that need a finished object.
    /// With this package's decoders the instance is registered in between, so references back to it during
    /// ``decode(with:)`` get it.
    public init(coder: KeyedUnarchiver) throws {
        self.init()
        coder.beginFilling(self)
        try decode(with: coder)
    }
}
