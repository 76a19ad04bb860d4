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
public protocol ArchiveCoding: AnyObject {
    /// Writes the object's fields.
    func encode(with coder: KeyedArchiver) throws
    /// Reads the object's fields. A reference cycle back to an object whose `init(coder:)` is still running
    /// is reported as an error, because a Swift initializer cannot hand out `self` before it finishes.
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
