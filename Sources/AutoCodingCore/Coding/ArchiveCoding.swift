import Foundation

/// A class that archives itself with keyed calls, as `NSCoding` classes do.
///
/// ```swift
/// final class Note: ArchiveCoding {
///     var title: String
///     var created: Date
///     func encode(with coder: KeyedArchiver) throws {
///         try coder.encode(title, forKey: "title")
///         try coder.encode(created, forKey: "created")
///     }
///     init(coder: KeyedUnarchiver) throws {
///         title = try coder.decodeString(forKey: "title") ?? ""
///         created = try coder.decodeObject(of: Date.self, forKey: "created") ?? .now
///     }
/// }
/// ```
/// The hooks ``replacementObject(for:)``, ``classForKeyedArchiver`` and ``awakeAfter(using:)`` play the
/// parts of NSCoding's `replacementObjectForKeyedArchiver:`, `classForKeyedArchiver` and
/// `awakeAfterUsingCoder:`; their defaults change nothing. Name the class in archives with ``ArchiveCodable``.
///
/// Wherever such an object sits — an array, a dictionary, a set, an optional, a `Codable` value, an
/// `@AutoCoding` property — this package's coders archive it through ``encode(with:)`` and
/// ``init(coder:)`` (and the hooks), decided once per type. For that the protocol is `Codable`, with
/// defaults: other encoders get the object as a nested keyed archive (`Data`), and other decoders read that
/// back (without identity across the outer value, and without cycles).
public protocol ArchiveCoding: AnyObject, Codable {
    /// Writes the object's fields.
    func encode(with coder: KeyedArchiver) throws
    /// Reads the object's fields. A reference cycle back to an object whose `init(coder:)` is still running
    /// is reported as an error, because a Swift initializer cannot hand out `self` before it finishes; a class
    /// on a cycle adopts ``TwoPhaseArchiveCoding`` instead.
    init(coder: KeyedUnarchiver) throws
    /// The object to archive in this object's place. Default: `self`.
    func replacementObject(for archiver: KeyedArchiver) -> Any?
    /// The class to write for this object, when it should differ from its own. Default: nil (its own).
    var classForKeyedArchiver: ArchiveClass? { get }
    /// The object to hand to the caller in place of the one just decoded. Default: `self`.
    func awakeAfter(using unarchiver: KeyedUnarchiver) throws -> Any
}

extension ArchiveCoding {
    /// Archives `self`.
    public func replacementObject(for archiver: KeyedArchiver) -> Any? { self }
    /// Writes the object's own class.
    public var classForKeyedArchiver: ArchiveClass? { nil }
    /// Keeps the decoded object.
    public func awakeAfter(using unarchiver: KeyedUnarchiver) throws -> Any { self }
}

extension ArchiveCoding {
    /// This package's encoders archive the object through ``encode(with:)``; other encoders get it as a
    /// nested keyed archive (`Data`).
    public func encode(to encoder: any Encoder) throws {
        if let archive = _ArchiveEncoder.opened(encoder) {
            archive.storage = .single(try archive.context.encodeCoding(self, codingPathNode: archive.codingPathNode))
            return
        }
        var container = encoder.singleValueContainer()
        try container.encode(KeyedArchiver.archivedData(withRootObject: self))
    }

    /// Decodes through ``init(coder:)``: from the object this package's decoder is positioned on, or from the
    /// nested keyed archive another decoder holds. A Swift initializer makes a new instance, so neither
    /// sharing with the rest of the decode nor ``awakeAfter(using:)`` applies here: this package's decoders
    /// call `init(coder:)` themselves and keep both.
    public init(from decoder: any Decoder) throws {
        if let archive = _ArchiveDecoder.opened(decoder) {
            try self.init(coder: KeyedUnarchiver(context: archive.context, node: archive.node, path: archive.codingPathNode))
            return
        }
        let data = try decoder.singleValueContainer().decode(Data.self)
        let top = try KeyedUnarchiver(forReadingFrom: data)
        try self.init(coder: top.rootObjectCoder())
    }
}
