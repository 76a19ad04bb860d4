import AutoCodingFast
import Foundation

extension EncodingContext {
    /// Encodes a property with the forms ``ArchiveAs(_:)`` gave it (``ArchiveForm/nullWhenNil`` is handled by
    /// the caller, which sees the optional). Returns the field value: a scalar in place or a UID.
    func encode<T: Encodable>(_ value: T, as forms: [ArchiveForm], codingPathNode: CodingPathNode) throws -> ArchiveValue {
        var placement: ArchiveForm.Storage?
        var archiveClass: ArchiveClass?
        var valueKey: String?
        for form in forms {
            switch form.storage {
            case .inline, .referenced: placement = form.storage
            case .archiveClass(let named, let key): (archiveClass, valueKey) = (named, key)
            case .nullWhenNil: break
            }
        }
        if let scalar = Self.foundationScalar(value) {
            if let archiveClass {
                // NSMutableString and NSMutableData are instances holding the plain value in place.
                let standard: String? = T.self == String.self ? FoundationKey.string : T.self == Data.self ? FoundationKey.data : nil
                let key = standard.map { valueKey ?? $0 }
                guard let key else { throw formError(value, "\(archiveClass.name) applies to collections, strings and data", codingPathNode) }
                return .uid(builder.appendInstance(archiveClass, [key: scalar]))
            }
            let referenced = placement.map { $0 == .referenced } ?? (T.self == String.self || T.self == Data.self)
            return referenced ? .uid(builder.append(scalar)) : scalar
        }
        if placement != nil {
            throw formError(value, "inline and referenced apply to numbers, booleans, strings and data", codingPathNode)
        }
        let encoded = try encodeReference(value, codingPathNode: codingPathNode)
        guard let archiveClass else { return encoded }
        // The value is a Foundation instance (NSArray, NSDictionary, NSSet …) written just now: give it the class.
        guard case .uid(let uid) = encoded, case .dictionary(var fields) = builder.objects[uid.index],
            fields[ArchiveKey.class] != nil
        else {
            throw formError(value, "\(archiveClass.name) applies to collections, strings and data", codingPathNode)
        }
        fields[ArchiveKey.class] = .uid(builder.classUID(archiveClass))
        builder.fill(uid, with: .dictionary(fields))
        return encoded
    }

    private func formError<T>(_ value: T, _ reason: String, _ path: CodingPathNode) -> EncodingError {
        EncodingError.invalidValue(value, .init(codingPath: path.path, debugDescription: "@ArchiveAs on a \(T.self): \(reason)"))
    }
}
