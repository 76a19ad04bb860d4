#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import AutoCodingFast
import Foundation

/// What a file holds, as ``ArchiveFile/read(contentsOf:options:)`` classifies it.
public enum ArchiveFileContents {
    /// A keyed archive (binary or XML), resolved into an object graph.
    case keyedArchive(ArchiveGraph)
    /// A valid property list that is not a keyed archive.
    case propertyList(ArchiveValue)
    /// Bytes that do not start like a property list.
    case data(Data)
}

/// Reading and writing archives and property lists as files, after AutoCoding's `objectWithContentsOfFile:`
/// and `writeToFile:atomically:`.
///
/// Writes are atomic by default: the bytes go to a temporary file in the same directory, which is flushed to
/// disk and then renamed over the target, so a crash or a full disk mid-write leaves the old file intact.
public enum ArchiveFile {
    /// The property-list encoding to write an archive in.
    public enum Format: String, Sendable, Hashable, CaseIterable {
        /// A binary property list (`bplist00`), written by the native writer.
        case binary
        /// An XML property list, written through libplist, UIDs as `CF$UID` dictionaries.
        case xml
    }

    // MARK: Reading

    /// Reads the file at `path` and classifies it: a keyed archive if it is one, else a plain property list,
    /// else raw data.
    ///
    /// The rule, decided by the first bytes (so that a damaged archive is reported, never silently demoted):
    /// - bytes that start with neither `bplist00` nor an XML plist header (`<?xml` followed by `<plist` within
    ///   the first 4 KiB, `<plist`, or `<!DOCTYPE plist`) are ``ArchiveFileContents/data(_:)``, including an empty
    ///   file and XML documents that are not plists;
    /// - bytes that start like a plist must parse: a broken one throws its `ArchiveError` (truncated, corrupt
    ///   trailer, bad XML …);
    /// - a plist whose root dictionary has any of `$archiver`, `$objects` or `$top` must be a valid keyed archive
    ///   (a broken one throws); any other plist is ``ArchiveFileContents/propertyList(_:)``.
    ///
    /// Files larger than `options.maxInputBytes` throw `ArchiveError.Code.limitExceeded` without
    /// being read. Failures of the file system throw `ArchiveError.Code.fileAccess` with the
    /// `errno` in `ArchiveError.errnoCode`.
    public static func read(contentsOf path: String, options: ArchiveReadingOptions = .init()) throws
        -> ArchiveFileContents
    {
        try contents(of: readBytes(path, limit: options.maxInputBytes), options: options)
    }

    /// Classifies bytes already in memory by the rule of ``read(contentsOf:options:)``.
    public static func contents(of bytes: [UInt8], options: ArchiveReadingOptions = .init()) throws
        -> ArchiveFileContents
    {
        guard looksLikePropertyList(bytes) else { return .data(Data(bytes)) }
        let value = try ArchiveValue(propertyList: bytes, options: options)
        let archive: KeyedArchive
        do {
            archive = try KeyedArchive(propertyList: value, options: options)
        } catch where error.code == .notKeyedArchive {
            return .propertyList(value)
        }
        return .keyedArchive(try ArchiveGraph(archive: archive))
    }

    /// Whether the bytes claim to be a property list. An XML declaration alone is not enough: plenty of XML is
    /// not a plist, and such a file is data, not a broken plist.
    private static func looksLikePropertyList(_ bytes: [UInt8]) -> Bool {
        switch ArchiveFormat.detect(bytes) {
        case .binaryPlist?: return true
        case .xmlPlist?:
            let head = bytes.prefix(4096)
            let marker = Array("<plist".utf8)
            let doctype = Array("<!DOCTYPE plist".utf8)
            guard head.count >= marker.count else { return false }
            for start in head.indices where head[start] == UInt8(ascii: "<") {
                let rest = head[start...]
                if rest.starts(with: marker) || rest.starts(with: doctype) { return true }
            }
            return false
        case nil: return false
        }
    }

    /// The whole file (`-`: standard input), read once through ``ArchiveInput``.
    static func readBytes(_ path: String, limit: Int) throws -> [UInt8] {
        try ArchiveInput.read(path, limit: limit)
    }

    // MARK: Writing

    /// Writes `bytes` to `path`.
    ///
    /// With `atomically` (the default) the bytes go to a new temporary file beside the target (a unique name,
    /// created exclusively, with the existing file's permission bits or 0644), are flushed with `fsync`, and
    /// the temporary file is renamed over the target; the directory is then flushed so the rename itself is
    /// durable. On any failure the temporary file is removed and the old file is untouched. The new file
    /// belongs to the writing user, and a symbolic link at `path` is replaced, not followed.
    ///
    /// Without `atomically` the target is truncated and written in place: faster, but a failure can leave it
    /// partly written.
    public static func write(_ bytes: [UInt8], to path: String, atomically: Bool = true) throws {
        try bytes.withUnsafeBytes { try write(buffer: $0, to: path, atomically: atomically) }
    }

    /// Writes `data` to `path`; see the `[UInt8]` overload.
    public static func write(_ data: Data, to path: String, atomically: Bool = true) throws {
        try data.withUnsafeBytes { try write(buffer: $0, to: path, atomically: atomically) }
    }

    /// Writes any collection of bytes to `path`; see the `[UInt8]` overload.
    public static func write(_ bytes: some Collection<UInt8>, to path: String, atomically: Bool = true) throws {
        let done: Void? = try bytes.withContiguousStorageIfAvailable {
            try write(buffer: UnsafeRawBufferPointer($0), to: path, atomically: atomically)
        }
        if done == nil { try write(Array(bytes), to: path, atomically: atomically) }
    }

    private static func write(buffer: UnsafeRawBufferPointer, to path: String, atomically: Bool) throws {
        guard atomically else {
            let fd = try openFile(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode: 0o644, operation: "open")
            do {
                try writeAll(fd, buffer, path: path)
            } catch {
                _ = close(fd)
                throw error
            }
            guard close(fd) == 0 else { throw ArchiveError.fileAccess("close", path, errnoCode: errno) }
            return
        }

        let (directory, name) = split(path)
        var info = stat()
        let existingMode: mode_t? = stat(path, &info) == 0 ? info.st_mode & 0o7777 : nil
        let (fd, temporary) = try createTemporary(in: directory, for: name, mode: existingMode ?? 0o644, path: path)
        var isOpen = true
        do {
            // The creation mode passed the umask; an existing file's mode is restored exactly.
            if let existingMode, fchmod(fd, existingMode) != 0 {
                throw ArchiveError.fileAccess("chmod", temporary, errnoCode: errno)
            }
            try writeAll(fd, buffer, path: temporary)
            try retryingEINTR(path: temporary, operation: "fsync") { fsync(fd) }
            isOpen = false
            // Linux closes the descriptor even when close fails, so close is never retried.
            guard close(fd) == 0 else { throw ArchiveError.fileAccess("close", temporary, errnoCode: errno) }
            guard rename(temporary, path) == 0 else {
                throw ArchiveError.fileAccess("rename \(temporary) to", path, errnoCode: errno)
            }
        } catch {
            if isOpen { _ = close(fd) }
            _ = unlink(temporary)
            throw error
        }
        try syncDirectory(directory)
    }

    /// Creates a new file with a unique name beside the target; `O_EXCL` makes sure it is ours alone.
    private static func createTemporary(in directory: String, for name: String, mode: mode_t, path: String) throws
        -> (Int32, String)
    {
        var attempt = 0
        while true {
            let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
            let temporary = directory + "/." + name + ".tmp-" + String(getpid()) + "-" + suffix
            let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
            if fd >= 0 { return (fd, temporary) }
            let code = errno
            attempt += 1
            guard (code == EEXIST || code == EINTR) && attempt < 100 else {
                throw ArchiveError.fileAccess("create a temporary file for", path, errnoCode: code)
            }
        }
    }

    /// Flushes the directory entry of a rename. File systems that cannot sync a directory (EINVAL, ENOTSUP)
    /// and directories that cannot be opened for reading (write-only permissions) are skipped: there is no
    /// way to do better there, and the rename has happened.
    private static func syncDirectory(_ directory: String) throws {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { _ = close(fd) }
        do {
            try retryingEINTR(path: directory, operation: "fsync directory") { fsync(fd) }
        } catch let error as ArchiveError where error.errnoCode == EINVAL || error.errnoCode == ENOTSUP {
            return
        }
    }

    /// The directory (`.` for a bare name) and the file name of `path`.
    private static func split(_ path: String) -> (String, String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }

    private static func openFile(_ path: String, _ flags: Int32, mode: mode_t = 0, operation: String) throws -> Int32
    {
        while true {
            let fd = open(path, flags, mode)
            if fd >= 0 { return fd }
            if errno != EINTR { throw ArchiveError.fileAccess(operation, path, errnoCode: errno) }
        }
    }

    /// Writes every byte, continuing after short writes and interrupted calls.
    private static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, path: String) throws {
        guard let base = buffer.baseAddress else { return }
        var offset = 0
        while offset < buffer.count {
            // Linux writes at most about 2 GiB per call; larger requests are short writes anyway.
            let written = posixWrite(fd, base + offset, min(buffer.count - offset, 1 << 30))
            if written < 0 {
                if errno == EINTR { continue }
                throw ArchiveError.fileAccess("write", path, errnoCode: errno)
            }
            // A regular file never accepts zero bytes of a non-empty write; stop rather than spin.
            if written == 0 { throw ArchiveError.fileAccess("write", path, errnoCode: EIO) }
            offset += written
        }
    }

    private static func retryingEINTR(path: String, operation: String, _ call: () -> Int32) throws {
        while call() != 0 {
            if errno != EINTR { throw ArchiveError.fileAccess(operation, path, errnoCode: errno) }
        }
    }
}

/// The POSIX `write`, under a name the ``ArchiveFile`` members do not shadow.
private func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}

extension ArchiveGraph {
    /// Reads a keyed archive (binary or XML) from a file.
    ///
    /// Throws `ArchiveError.Code.notKeyedArchive` for a valid plist that is not an archive,
    /// `ArchiveError.Code.notPropertyList` for a file that is not a plist, the parse error for a
    /// broken one, and `ArchiveError.Code.fileAccess` when the file cannot be read.
    public init(contentsOf path: String, options: ArchiveReadingOptions = .init()) throws {
        switch try ArchiveFile.read(contentsOf: path, options: options) {
        case .keyedArchive(let graph):
            self = graph
        case .propertyList(let value):
            throw ArchiveError(.notKeyedArchive, "\(path) is a \(value.typeName) property list, not a keyed archive")
        case .data:
            throw ArchiveError(.notPropertyList, "\(path) is neither a keyed archive nor a property list")
        }
    }

    /// Encodes the graph and writes it to a file, atomically by default (see `ArchiveFile.write(_:to:atomically:)`).
    public func write(to path: String, format: ArchiveFile.Format = .binary, atomically: Bool = true) throws {
        let bytes: [UInt8]
        switch format {
        // Refuse what the reader would refuse: a graph built from JSON may nest its values arbitrarily deep.
        case .binary: bytes = try keyedArchive().binaryPlist(readableWith: ArchiveReadingOptions())
        case .xml: bytes = try keyedArchive().xmlPlist()
        }
        try ArchiveFile.write(bytes, to: path, atomically: atomically)
    }
}
