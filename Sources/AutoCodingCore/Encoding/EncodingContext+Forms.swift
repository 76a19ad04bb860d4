import AutoCodingFast
import Foundation

extension EncodingContext {
    /// Encodes a property with the forms ``ArchiveAs(_:)`` gave it (``ArchiveForm/nullWhenNil`` and
    /// ``ArchiveForm/omitWhenNil`` are handled by the caller, which sees the optional). Returns the field value: a scalar in place or a UID.
    func encode<T: Encodable>(_ value: T, as forms: [ArchiveForm], codingPathNode: CodingPathNode) throws
        -> ArchiveValue
    {
        var placement: ArchiveForm.Storage?
        var archiveClass: ArchiveClass?
        var valueKey: String?
        for form in forms {
            switch form.storage {
            case .inline, .referenced: placement = form.storage
            case .archiveClass(let named, let key): (archiveClass, valueKey) = (named, key)
            case .nullWhenNil, .omitWhenNil, .conditional: break
            }
        }
        let misapplied = "\(archiveClass?.name ?? "") applies to collections, strings and data"
        if let scalar = Self.foundationScalar(value) {
            if let archiveClass {
                // NSMutableString and NSMutableData are instances holding the plain value in place.
                let standard = T.self == String.self ? FoundationKey.string : T.self == Data.self ? FoundationKey.data : nil
                guard let key = standard.map({ valueKey ?? $0 }) else { throw formError(value, misapplied, codingPathNode) }
                return .uid(builder.appendInstance(archiveClass, [key: scalar]))
            }
            let referenced = placement.map { $0 == .referenced } ?? (T.self == String.self || T.self == Data.self)
            return referenced ? .uid(builder.append(scalar)) : scalar
        }
        if placement != nil {
            throw formError(value, "inline and referenced apply to numbers, booleans, strings and data", codingPathNode)
        }
        guard let archiveClass else { return try encodeReference(value, codingPathNode: codingPathNode) }
        // Only a Foundation collection is written afresh for this field; a class instance may be shared.
        switch encodeKind(of: T.self) {
        case .list, .dictionary: break
        default: throw formError(value, misapplied, codingPathNode)
        }
        let encoded = try encodeReference(value, codingPathNode: codingPathNode)
        guard case .uid(let uid) = encoded, builder.setClass(uid, to: archiveClass) else {
            throw formError(value, misapplied, codingPathNode)
        }
        return encoded
    }

    private func formError<T>(_ value: T, _ reason: String, _ path: CodingPathNode) -> EncodingError {
        EncodingError.invalidValue(
            value, .init(codingPath: path.path, debugDescription: "@ArchiveAs on a \(T.self): \(reason)"))
    }
}
