/// The `$class` rule of `$objects` entries, the one copy every reader applies:
///
/// - an entry that is a dictionary with `$classname` is a class descriptor: `$classname` is a string and
///   `$classes`, when present, an array of strings;
/// - any other dictionary is an instance: it has `$class`, a UID naming a class descriptor (a dictionary with
///   a string `$classname`, whose `$classes` obeys the rule above).
///
/// The record readers check an entry with ``RecordSource/checkEntry(_:uid:)`` and the descriptor it names with
/// ``RecordSource/checkDescriptor(_:uid:namedBy:)``, remembering which descriptors passed (the whole-file view in
/// a set, the record table in a slot flag). ``KeyedArchive/validate()``, which reads a value tree rather than
/// records, applies the same rule with these errors.
enum ClassDescriptorRule {
    /// A descriptor's `$classname` is not a string.
    static func classNameIsNotAString(uid: Int, _ name: String) -> ArchiveError {
        ArchiveError.unexpectedType("object \(uid): $classname is a \(name), not a string")
    }

    /// A descriptor's `$classes` is not an array of strings.
    static func classesAreNotStrings(uid: Int) -> ArchiveError {
        ArchiveError.unexpectedType("object \(uid): $classes is not an array of strings")
    }

    /// An instance without `$class`.
    static func missingClass(uid: Int) -> ArchiveError {
        ArchiveError.missingKey(ArchiveKey.class, in: "object \(uid) (UID \(uid))")
    }

    /// An instance whose `$class` is not a UID.
    static func classIsNotAUID(uid: Int, _ name: String) -> ArchiveError {
        ArchiveError.unexpectedType("object \(uid) (UID \(uid)): $class is a \(name), not a UID")
    }

    /// An instance whose `$class` names an entry that is not a class descriptor.
    static func notADescriptor(uid: Int, classUID: Int) -> ArchiveError {
        ArchiveError(
            .unexpectedType,
            "object \(uid) (UID \(uid)): $class UID \(classUID) is not a class descriptor with a $classname")
    }
}

extension RecordSource {
    /// Applies the rule to `$objects[uid]`, bplist object `object`. A descriptor is checked whole here; for an
    /// instance, returns the UID its `$class` names, whose descriptor the caller checks with
    /// ``checkDescriptor(_:uid:namedBy:)`` unless it did already. Nil for a descriptor and for what is not a
    /// dictionary (strings, numbers, plain arrays: no rule).
    func checkEntry(_ object: Int, uid: Int) throws(ArchiveError) -> Int? {
        let entry = try record(object)
        guard entry.kind == .dictionary else { return nil }
        let classRef: Int?
        if let slot = recordedClassSlot(object) {
            // Validating the dictionary found `$class` there and no `$classname`: the two lookups, answered.
            classRef = ref(object, Int(entry.count) + slot)
        } else {
            if let name = lookUp(ArchiveKey.className, in: object) {
                let kind = try record(name).kind
                guard kind.isString else { throw ClassDescriptorRule.classNameIsNotAString(uid: uid, "\(kind)") }
                try checkClassChain(of: object, uid: uid)
                return nil
            }
            classRef = lookUp(ArchiveKey.class, in: object)
        }
        guard let classRef else { throw ClassDescriptorRule.missingClass(uid: uid) }
        let classRecord = try record(classRef)
        guard classRecord.kind == .uid else { throw ClassDescriptorRule.classIsNotAUID(uid: uid, "\(classRecord.kind)") }
        // Below the object count: every reader checks a UID record before a rule reads it.
        return Int(reader.uid(classRecord))
    }

    /// Checks that bplist object `descriptor`, `$objects[classUID]`, is the class descriptor that the `$class`
    /// of `$objects[uid]` names.
    func checkDescriptor(_ descriptor: Int, uid classUID: Int, namedBy uid: Int) throws(ArchiveError) {
        let record = try record(descriptor)
        let name = record.kind == .dictionary ? lookUp(ArchiveKey.className, in: descriptor) : nil
        guard let name, try self.record(name).kind.isString else {
            throw ClassDescriptorRule.notADescriptor(uid: uid, classUID: classUID)
        }
        try checkClassChain(of: descriptor, uid: classUID)
    }

    /// A descriptor's `$classes`, when present, is an array of strings.
    private func checkClassChain(of descriptor: Int, uid: Int) throws(ArchiveError) {
        guard let chain = lookUp(ArchiveKey.classes, in: descriptor) else { return }
        let chainRecord = try record(chain)
        guard chainRecord.kind == .array else { throw ClassDescriptorRule.classesAreNotStrings(uid: uid) }
        for i in 0..<Int(chainRecord.count) where try !record(ref(chain, i)).kind.isString {
            throw ClassDescriptorRule.classesAreNotStrings(uid: uid)
        }
    }
}
