import Foundation

/// Maps archived class names to Swift types and back, for polymorphic decoding and for renamed classes.
///
/// The shared registry (``shared``) is read by every decoder and encoder; each ``KeyedArchiveDecoder`` and
/// ``KeyedArchiveEncoder`` can add its own entries on top (`setClass(_:forClassName:)`,
/// `setClassName(_:for:)`), which win over the shared ones. The registry is thread-safe: lookups and
/// registrations may happen from any task, though registering at setup time keeps results predictable.
public final class ArchiveClassRegistry: @unchecked Sendable {
    private struct Tables {
        var typesByName: [String: any Decodable.Type] = [:]
        var namesByType: [ObjectIdentifier: String] = [:]
    }
    // Guarded by `lock`; metatypes are not `Sendable`-checked, hence the unchecked conformance.
    private var tables = Tables()
    private let lock = NSLock()

    private func withLock<R>(_ body: (inout Tables) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&tables)
    }

    /// Creates an empty registry.
    public init() {}

    /// The process-wide registry.
    public static let shared = ArchiveClassRegistry()

    /// Decodes objects archived under `name` as `type` (for class renames and polymorphic fields).
    public func register(_ type: any Decodable.Type, forClassName name: String) {
        withLock { $0.typesByName[name] = type }
    }

    /// Archives `type` under `name` instead of its default name.
    public func register(className name: String, for type: Any.Type) {
        withLock { $0.namesByType[ObjectIdentifier(type)] = name }
    }

    /// Registers both directions: `type` is written as `name` and `name` is read as `type`.
    public func register(_ type: any Decodable.Type, as name: String) {
        withLock {
            $0.typesByName[name] = type
            $0.namesByType[ObjectIdentifier(type)] = name
        }
    }

    /// The type registered for an archived class name.
    public func type(forClassName name: String) -> (any Decodable.Type)? {
        withLock { $0.typesByName[name] }
    }

    /// Every name → type entry, for a decoder to consult without taking the lock per object.
    func typesByName() -> [String: any Decodable.Type] {
        withLock { $0.typesByName }
    }

    /// The name registered for a type.
    public func className(for type: Any.Type) -> String? {
        withLock { $0.namesByType[ObjectIdentifier(type)] }
    }
}
