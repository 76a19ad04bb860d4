import AutoCodingCore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Expands the paths given on the command line: files as given, directories recursively in sorted order.
public enum InputFiles {
    /// Regular files under `paths`; a path that does not exist is returned as is, so that reading it reports it.
    ///
    /// Directories are walked with `readdir` (its `d_type` saves a `stat` per file, which matters for a hundred
    /// thousand files) and their files returned sorted by path. Symbolic links to files are included; symbolic
    /// links to directories are not followed, so a link loop cannot make the walk endless.
    public static func expand(_ paths: [String]) -> [String] {
        var result: [String] = []
        for path in paths {
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
                result.append(path)
                continue
            }
            var files: [String] = []
            var pending = [path]
            while let directory = pending.popLast() {
                guard let handle = opendir(directory) else { continue }
                defer { closedir(handle) }
                let base = directory.hasSuffix("/") ? directory : directory + "/"
                while let entry = readdir(handle) {
                    let name = withUnsafePointer(to: entry.pointee.d_name) {
                        String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
                    }
                    if name == "." || name == ".." { continue }
                    let full = base + name
                    switch Int32(entry.pointee.d_type) {
                    case Int32(DT_REG): files.append(full)
                    case Int32(DT_DIR): pending.append(full)
                    case Int32(DT_LNK), Int32(DT_UNKNOWN):
                        var target = stat()
                        guard stat(full, &target) == 0 else { continue }
                        if (target.st_mode & S_IFMT) == S_IFREG {
                            files.append(full)
                        } else if (target.st_mode & S_IFMT) == S_IFDIR
                            && Int32(entry.pointee.d_type) == Int32(DT_UNKNOWN)
                        {
                            pending.append(full)
                        }
                    default: continue
                    }
                }
            }
            result.append(contentsOf: files.sorted())
        }
        return result
    }

    /// The whole file as bytes.
    public static func read(_ path: String) throws -> [UInt8] {
        try read(path, limit: ArchiveReadingOptions().maxInputBytes)
    }

    /// The whole file as bytes, read with one buffer sized from `fstat`; a file above `limit` bytes throws
    /// ``ArchiveError/Code-swift.struct/limitExceeded`` before it is read.
    public static func read(_ path: String, limit: Int) throws -> [UInt8] {
        var fd: Int32
        repeat { fd = open(path, O_RDONLY | O_CLOEXEC) } while fd < 0 && errno == EINTR
        guard fd >= 0 else { throw ArchiveFileError(path: path, operation: "open", code: errno) }
        defer { _ = close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw ArchiveFileError(path: path, operation: "stat", code: errno) }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw ArchiveFileError(path: path, operation: "read", code: EISDIR) }
        let size = Int(info.st_size)
        if size > limit {
            throw ArchiveError(.limitExceeded, "\(path) has \(size) bytes, above maxInputBytes \(limit)")
        }
        // st_size is a hint (files under /proc report 0, files grow): read until end of file, growing if needed.
        var bytes = [UInt8](repeating: 0, count: max(size, 4096))
        var count = 0
        while true {
            if count == bytes.count {
                guard count <= limit else {
                    throw ArchiveError(.limitExceeded, "\(path) has more than maxInputBytes \(limit) bytes")
                }
                bytes.append(contentsOf: repeatElement(0, count: min(max(count, 4096), limit + 1 - count)))
            }
            let got = bytes.withUnsafeMutableBytes { buffer in
                systemRead(fd, buffer.baseAddress! + count, buffer.count - count)
            }
            if got < 0 {
                if errno == EINTR { continue }
                throw ArchiveFileError(path: path, operation: "read", code: errno)
            }
            if got == 0 { break }
            count += got
        }
        if count > limit { throw ArchiveError(.limitExceeded, "\(path) has more than maxInputBytes \(limit) bytes") }
        bytes.removeSubrange(count...)
        return bytes
    }
}

/// The POSIX `read`, under a name the `read` members above do not shadow.
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}
