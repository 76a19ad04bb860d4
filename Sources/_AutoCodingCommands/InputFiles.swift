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
            // `-` is standard input, read as one input.
            if path == ArchiveInput.standardInputName {
                result.append(path)
                continue
            }
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

    /// The whole file as bytes (`-`: standard input), at most the default `maxInputBytes`.
    public static func read(_ path: String) throws -> [UInt8] {
        try read(path, limit: ArchiveReadingOptions().maxInputBytes)
    }

    /// The whole file as bytes (`-`: standard input), read once; more than `limit` bytes throws
    /// ``ArchiveError/Code-swift.struct/limitExceeded`` (see ``ArchiveInput``).
    public static func read(_ path: String, limit: Int) throws -> [UInt8] {
        try ArchiveInput.read(path, limit: limit)
    }
}
