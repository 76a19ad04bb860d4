#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An error thrown when bytes are not a valid property list or keyed archive, or when a file cannot be read
/// or written.
///
/// The ``code`` is stable and is the only part that takes part in equality and hashing, so tests and callers
/// can match on it. The human-readable reason names the offset, object or UID at fault; it is available
/// through `String(describing:)`.
///
/// A failed file-system call is this error with the code ``Code-swift.struct/fileAccess`` in every layer (the
/// mapped reader of ``LazyKeyedArchive``, `ArchiveFile`'s reads and atomic writes): its reason names the call
/// and the path, and ``errnoCode`` keeps the `errno`.
public struct ArchiveError: Error, Hashable, CustomStringConvertible, Sendable {
    /// The kind of failure.
    public let code: Code
    /// What went wrong, naming the offset, object or UID at fault (for a file, the call and the path).
    public let reason: String
    /// For ``Code-swift.struct/fileAccess``: the `errno` the failed call set (`ENOENT`, `EISDIR` …); nil for
    /// other codes and for a path that opens but is not a regular file.
    public let errnoCode: Int32?
    /// The engine source location that raised the error.
    public let file: String
    /// The engine source line that raised the error.
    public let line: UInt

    /// Creates an error with a code and a reason.
    public init(_ code: Code, _ reason: String, file: String = #fileID, line: UInt = #line) {
        self.init(code, reason, errnoCode: nil, file: file, line: line)
    }

    private init(_ code: Code, _ reason: String, errnoCode: Int32?, file: String, line: UInt) {
        self.code = code
        self.reason = reason
        self.errnoCode = errnoCode
        self.file = file
        self.line = line
    }

    /// A description with the code and the reason, for logs and command-line output.
    public var description: String { "\(code): \(reason)" }

    /// Errors compare by code only.
    public static func == (lhs: ArchiveError, rhs: ArchiveError) -> Bool { lhs.code == rhs.code }

    /// Errors hash by code only.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

extension ArchiveError {
    /// A stable error code. New codes can be added without breaking callers that switch over known ones.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Base: String, Hashable, Sendable {
            case notPropertyList, truncated, corruptTrailer, invalidOffset, invalidReference, invalidUID,
                invalidObject, unexpectedType, missingKey, referenceCycle, depthLimitExceeded,
                limitExceeded, unsupportedVersion, libplistFailure, notKeyedArchive, notTypedstream, invalidTag,
                invalidTypeEncoding
            case fileAccess
        }
        fileprivate let base: Base
        fileprivate init(_ base: Base) { self.base = base }

        /// The bytes are neither a binary (`bplist00`) nor an XML property list.
        public static let notPropertyList = Code(.notPropertyList)
        /// The input ends before a structure it declares (a header, a trailer, an object or its payload).
        public static let truncated = Code(.truncated)
        /// The 32-byte binary plist trailer holds impossible values (widths, counts, table position).
        public static let corruptTrailer = Code(.corruptTrailer)
        /// An offset-table entry points outside the object area.
        public static let invalidOffset = Code(.invalidOffset)
        /// A container refers to an object number beyond the object table.
        public static let invalidReference = Code(.invalidReference)
        /// A keyed-archive UID is not below the `$objects` count, or is wider than 32 bits.
        public static let invalidUID = Code(.invalidUID)
        /// An object's bytes are malformed: unknown marker, bad integer width, invalid string encoding.
        public static let invalidObject = Code(.invalidObject)
        /// A value has a type other than the one the format requires at its place.
        public static let unexpectedType = Code(.unexpectedType)
        /// A required key (`$objects`, `$top`, `$class`, `$classname` ...) is missing.
        public static let missingKey = Code(.missingKey)
        /// A container contains itself, directly or through other containers.
        public static let referenceCycle = Code(.referenceCycle)
        /// Containers are nested deeper than ``ArchiveReadingOptions/depthLimit``.
        public static let depthLimitExceeded = Code(.depthLimitExceeded)
        /// The input exceeds one of the size or count limits of ``ArchiveReadingOptions``.
        public static let limitExceeded = Code(.limitExceeded)
        /// The archive's `$version` is not 100000.
        public static let unsupportedVersion = Code(.unsupportedVersion)
        /// libplist rejected the input or failed to produce output.
        public static let libplistFailure = Code(.libplistFailure)
        /// The property list is valid but is not a keyed archive (no `$archiver`/`$objects`/`$top`).
        public static let notKeyedArchive = Code(.notKeyedArchive)
        /// The bytes do not start with a typedstream header (`\u{4}\u{B}streamtyped` or `\u{4}\u{B}typedstream`).
        public static let notTypedstream = Code(.notTypedstream)
        /// A typedstream head byte is a tag that is not allowed where it stands (such as an end-of-object
        /// marker in place of an integer), or a reserved tag no writer produces.
        public static let invalidTag = Code(.invalidTag)
        /// A typedstream type-encoding string is empty, unbalanced, or names a type that cannot be read
        /// (a union, an unknown code).
        public static let invalidTypeEncoding = Code(.invalidTypeEncoding)
        /// A file-system call failed: a file could not be opened, inspected, memory-mapped, read or written
        /// (``ArchiveError/errnoCode`` keeps the `errno`).
        public static let fileAccess = Code(.fileAccess)

        /// The code's name, such as `invalidUID`.
        public var description: String { base.rawValue }
    }
}

extension ArchiveError {
    /// A failed file-system call: `operation` (`open`, `read`, `rename … to` …) on `path` set `errno` to
    /// `errnoCode`. The reason reads `open /tmp/a.archive: No such file or directory (errno 2)`.
    @inline(never)
    package static func fileAccess(
        _ operation: String, _ path: String, errnoCode: Int32, file: String = #fileID, line: UInt = #line
    ) -> ArchiveError {
        let text = String(cString: strerror(errnoCode))
        return ArchiveError(
            .fileAccess, "\(operation) \(path): \(text) (errno \(errnoCode))", errnoCode: errnoCode, file: file,
            line: line)
    }

    @inline(never)
    static func truncated(_ what: String, at offset: Int, file: String = #fileID, line: UInt = #line) -> ArchiveError {
        ArchiveError(.truncated, "\(what) at offset \(offset) runs past the end of the data", file: file, line: line)
    }

    @inline(never)
    static func invalidObject(_ what: String, object: Int, offset: Int, file: String = #fileID, line: UInt = #line)
        -> ArchiveError
    {
        ArchiveError(.invalidObject, "object \(object) at offset \(offset): \(what)", file: file, line: line)
    }

    @inline(never)
    static func invalidUID(_ uid: UInt64, objectCount: Int, file: String = #fileID, line: UInt = #line)
        -> ArchiveError
    {
        ArchiveError(.invalidUID, "UID \(uid) ≥ object count \(objectCount)", file: file, line: line)
    }

    /// The memory for a record table of `objects` bplist objects (``BPlistIndex``, ``ArchiveRecordTable``) could
    /// not be had.
    @inline(never)
    static func recordTableUnavailable(objects: Int, file: String = #fileID, line: UInt = #line) -> ArchiveError {
        ArchiveError(.limitExceeded, "cannot allocate a record table for \(objects) objects", file: file, line: line)
    }

    /// A UID record, bplist object `object`, at or above the `$objects` count: the UID rule of the keyed
    /// readers (the whole-file view checks every UID record, the record table each on first touch).
    @inline(never)
    static func uidBeyondObjects(_ uid: UInt32, object: Int, objectCount: Int, file: String = #fileID, line: UInt = #line)
        -> ArchiveError
    {
        ArchiveError(.invalidUID, "UID \(uid) (bplist object \(object)) ≥ object count \(objectCount)", file: file, line: line)
    }

    /// Container `object` refers to `child`, not an object of the table (`count` objects): the reference rule of
    /// the whole-file pass and of first-touch validation.
    @inline(never)
    static func referenceBeyondTable(
        _ child: UInt64, from object: Int, count: Int, file: String = #fileID, line: UInt = #line
    ) -> ArchiveError {
        ArchiveError(
            .invalidReference, "object \(object) refers to object \(child), beyond the \(count) objects of the table",
            file: file, line: line)
    }

    /// Dictionary `object` has a key (object `key`) that is not a string: the key rule of the whole-file pass
    /// and of first-touch validation.
    @inline(never)
    static func keyIsNotAString(_ key: Int, kind: String, in object: Int, file: String = #fileID, line: UInt = #line)
        -> ArchiveError
    {
        unexpectedType("dictionary object \(object) has a key (object \(key)) that is a \(kind), not a string", file: file, line: line)
    }

    @inline(never)
    static func unexpectedType(_ what: String, file: String = #fileID, line: UInt = #line) -> ArchiveError {
        ArchiveError(.unexpectedType, what, file: file, line: line)
    }

    @inline(never)
    static func missingKey(_ key: String, in place: String, file: String = #fileID, line: UInt = #line)
        -> ArchiveError
    {
        ArchiveError(.missingKey, "\(place) has no \(key) key", file: file, line: line)
    }

    /// Containers nested deeper than `limit`: the readers refuse such a plist, and so do the writers, so that
    /// everything written reads back (one rule: ``ArchiveReadingOptions/containerDepthLimit``).
    @inline(never)
    static func depthLimitExceeded(
        _ limit: Int, writing: Bool, at place: String = "", file: String = #fileID, line: UInt = #line
    ) -> ArchiveError {
        let what = writing ? "refusing to write containers that nest" : "containers nest"
        let suffix = writing ? ", which readers refuse (ArchiveReadingOptions.depthLimit)" : ""
        return ArchiveError(
            .depthLimitExceeded, "\(what) deeper than the depth limit \(limit)\(place)\(suffix)", file: file, line: line)
    }
}
