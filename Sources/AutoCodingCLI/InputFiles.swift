import Foundation

/// Expands the paths given on the command line: files as given, directories recursively in sorted order.
enum InputFiles {
    /// Regular files under `paths`; a path that does not exist is returned as is, so that reading it reports it.
    static func expand(_ paths: [String]) -> [String] {
        var result: [String] = []
        let manager = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                result.append(path)
                continue
            }
            let base = URL(fileURLWithPath: path)
            guard let walker = manager.enumerator(at: base, includingPropertiesForKeys: [.isRegularFileKey]) else {
                continue
            }
            var files: [String] = []
            for case let url as URL in walker {
                if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
                    files.append(url.path)
                }
            }
            result.append(contentsOf: files.sorted())
        }
        return result
    }

    /// The whole file as bytes.
    static func read(_ path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: path])
        }
        return [UInt8](data)
    }
}
