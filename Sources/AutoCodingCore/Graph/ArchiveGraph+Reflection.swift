import AutoCodingFast
import Foundation
import OrderedCollections

extension ArchiveGraph {
    /// The graph of any Swift value, read with `Mirror`: the fallback for types that have neither
    /// `@AutoCoding` nor `Codable`. Encode only: reflection can read stored properties but cannot create an
    /// instance or set a property, so such an archive is read back through the dynamic graph, a `Codable`
    /// model or an `@AutoCoding` model of the same shape.
    ///
    /// What is written:
    /// - a class instance is one object however often it is referenced, so shared references and cycles are
    ///   kept; its class name comes from the registry, ``ArchiveCodable``, or the module-qualified type name, with
    ///   the superclass chain; its fields are its stored properties and its superclasses', under their names
    ///   (`lazy` storage is skipped, a property wrapper's `_name` is stored as `name`);
    /// - a struct is an object of its type's name (structs have no identity: each occurrence is a copy);
    /// - `String`, numbers and `Bool`, `Data`, `Date`, `URL` and `UUID` take their Foundation forms, numbers and
    ///   booleans in place in fields as `encodeInteger:forKey:` writes them;
    /// - arrays, sets and dictionaries become `NSArray`, `NSSet` and `NSDictionary` (keys of any type);
    /// - `nil` is `$null` (an optional field that is `nil` is left out, as AutoCoding does);
    /// - an enum case without a payload is its name as a string; with a payload, an object of the enum's type
    ///   name with `$case` and the payload's fields; a tuple is an `NSArray`.
    ///
    /// Objects are filled from a worklist, so long chains cost no stack; values nested deeper than
    /// `depthLimit` inside one object throw `ArchiveError.Code.depthLimitExceeded`.
    public init(reflecting value: Any, registry: ArchiveClassRegistry = .shared, depthLimit: Int = 512) throws(ArchiveError) {
        var reflector = ArchiveReflector(registry: registry, depthLimit: depthLimit)
        self.init(root: try reflector.graphValue(of: value))
    }
}

/// Builds graph values from `Mirror`s, one object at a time. One reflector keeps identity across the values
/// it is given, so the encoder keeps one for a whole archive.
struct ArchiveReflector {
    let registry: ArchiveClassRegistry
    let depthLimit: Int
    /// Objects made for class instances, by identity.
    private var objects: [ObjectIdentifier: ArchivedObject] = [:]
    /// Class instances kept alive while they are pending, so that no identifier is reused.
    private var pending: [(instance: AnyObject, object: ArchivedObject)] = []

    init(registry: ArchiveClassRegistry, depthLimit: Int) {
        self.registry = registry
        self.depthLimit = depthLimit
    }

    /// The graph value of `value`, with every class instance it reaches filled.
    mutating func graphValue(of value: Any) throws(ArchiveError) -> ArchivedValue {
        let result = try self.value(value, depth: 0, inField: false)
        try drain()
        return result
    }

    /// Fills every class instance met so far and those its fields reach.
    private mutating func drain() throws(ArchiveError) {
        while let (instance, object) = pending.popLast() {
            var mirror: Mirror? = Mirror(reflecting: instance)
            var levels: [Mirror] = []
            while let level = mirror {
                levels.append(level)
                mirror = level.superclassMirror
            }
            // Superclass fields first, as `@AutoCoding` writes them.
            for level in levels.reversed() {
                try fill(object, from: level.children, depth: 0)
            }
        }
    }

    /// The graph value of `value`. Scalars in fields are stored in place; elsewhere they are references.
    private mutating func value(_ value: Any, depth: Int, inField: Bool) throws(ArchiveError) -> ArchivedValue {
        guard depth < depthLimit else {
            throw ArchiveError(.depthLimitExceeded, "reflected values nest deeper than \(depthLimit) levels")
        }
        if let scalar = Self.scalar(value) { return inField ? .inline(scalar) : .reference(scalar) }
        switch value {
        case let string as String: return .reference(.string(string))
        case let string as Substring: return .reference(.string(String(string)))
        case let data as Data: return .reference(.data([UInt8](data)))
        case let date as Date:
            return .object(ArchivedObject(archiveClass: FoundationClass.date, fields: [FoundationKey.time: .inline(.real(date.timeIntervalSinceReferenceDate))]))
        case let url as URL:
            return .object(ArchivedObject(archiveClass: FoundationClass.url, fields: [
                FoundationKey.base: .null, FoundationKey.relative: .reference(.string(url.relativeString)),
            ]))
        case let uuid as UUID:
            return .object(ArchivedObject(archiveClass: FoundationClass.uuid, fields: [
                FoundationKey.uuidBytes: .reference(.data(withUnsafeBytes(of: uuid.uuid) { Array($0) })),
            ]))
        default: break
        }
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .optional:
            guard let wrapped = mirror.children.first?.value else { return .null }
            return try self.value(wrapped, depth: depth, inField: inField)
        case .class:
            let instance = value as AnyObject
            if let object = objects[ObjectIdentifier(instance)] { return .object(object) }
            let object = ArchivedObject(archiveClass: archiveClass(for: type(of: value)))
            objects[ObjectIdentifier(instance)] = object
            pending.append((instance, object))
            return .object(object)
        case .collection, .tuple:
            return .object(ArchivedObject(archiveClass: FoundationClass.array, fields: [
                FoundationKey.objects: .array(try elements(mirror.children, depth: depth)),
            ]))
        case .set:
            return .object(ArchivedObject(archiveClass: FoundationClass.set, fields: [
                FoundationKey.objects: .array(try elements(mirror.children, depth: depth)),
            ]))
        case .dictionary:
            var keys: [ArchivedValue] = []
            var values: [ArchivedValue] = []
            for entry in mirror.children {
                let pair = Array(Mirror(reflecting: entry.value).children)
                guard pair.count == 2 else { continue }
                keys.append(try self.value(pair[0].value, depth: depth + 1, inField: false))
                values.append(try self.value(pair[1].value, depth: depth + 1, inField: false))
            }
            return .object(ArchivedObject(archiveClass: FoundationClass.dictionary, fields: [
                FoundationKey.keys: .array(keys), FoundationKey.objects: .array(values),
            ]))
        case .enum:
            guard let payload = mirror.children.first else { return .reference(.string(String(describing: value))) }
            let object = ArchivedObject(archiveClass: archiveClass(for: type(of: value)))
            object.fields["$case"] = .reference(.string(payload.label ?? String(describing: value)))
            let payloadMirror = Mirror(reflecting: payload.value)
            if payloadMirror.displayStyle == .tuple {
                try fill(object, from: payloadMirror.children, depth: depth + 1)
            } else {
                object.fields["$0"] = try self.value(payload.value, depth: depth + 1, inField: true)
            }
            return .object(object)
        default:
            // Structs, and values that reflect as leaves (their description would lose information, so
            // their stored parts are written as a struct's would be).
            let object = ArchivedObject(archiveClass: archiveClass(for: type(of: value)))
            try fill(object, from: mirror.children, depth: depth + 1)
            return .object(object)
        }
    }

    /// Writes `children` as fields of `object`. Unlabelled children (tuple parts) are `$0`, `$1` ...
    private mutating func fill(_ object: ArchivedObject, from children: Mirror.Children, depth: Int) throws(ArchiveError) {
        for (offset, child) in children.enumerated() {
            var name = child.label ?? "$\(offset)"
            if name.hasPrefix("$__lazy_storage_$_") { continue }
            if name.hasPrefix("_"), name.count > 1 { name.removeFirst() }
            let field = try value(child.value, depth: depth, inField: true)
            if case .null = field { continue }
            object.fields[name] = field
        }
    }

    private mutating func elements(_ children: Mirror.Children, depth: Int) throws(ArchiveError) -> [ArchivedValue] {
        var result: [ArchivedValue] = []
        for child in children { result.append(try value(child.value, depth: depth + 1, inField: false)) }
        return result
    }

    private func archiveClass(for type: Any.Type) -> ArchiveClass {
        if let name = registry.className(for: type) {
            return ArchiveClass(name: name, chain: ArchiveNaming.defaultChain(for: type, name: name))
        }
        let (name, chain) = ArchiveNaming.archiveClass(for: type)
        return ArchiveClass(name: name, chain: chain)
    }

    /// Numbers and booleans as plist scalars.
    private static func scalar(_ value: Any) -> ArchiveValue? {
        switch value {
        case let v as Bool: .bool(v)
        case let v as Int: .integer(Int64(v))
        case let v as Int8: .integer(Int64(v))
        case let v as Int16: .integer(Int64(v))
        case let v as Int32: .integer(Int64(v))
        case let v as Int64: .integer(v)
        case let v as UInt8: .integer(Int64(v))
        case let v as UInt16: .integer(Int64(v))
        case let v as UInt32: .integer(Int64(v))
        case let v as UInt: InlineScalar.integer(v)
        case let v as UInt64: InlineScalar.integer(v)
        case let v as Double: .real(v)
        case let v as Float: .real(Double(v))
        default: nil
        }
    }
}
