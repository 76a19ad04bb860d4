// The native binary-plist reader: the validated index, value building, the keyed-archive view, and the
// native writer (whatever the reader accepts must write and read back identically, and libplist must accept it).
import AutoCodingFast

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBPlist(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    withFuzzBytes(data, size) { bytes in
        guard bytes.starts(with: Array("bplist00".utf8)) else { return }
        _ = try? KeyedArchiveView(bytes: bytes, options: fuzzOptions)
        guard let value = try? ArchiveValue(propertyList: bytes, options: fuzzOptions) else { return }
        _ = try? KeyedArchive(propertyList: value, options: fuzzOptions)
        let written = value.binaryPropertyList()
        let again: ArchiveValue
        do { again = try ArchiveValue(propertyList: written, options: fuzzOptions) } catch {
            fuzzFailure("native writer output does not read back: \(error)")
        }
        guard identical(value, again) else { fuzzFailure("native write/read changed the value") }
        var libplist = fuzzOptions
        libplist.backend = .libplist
        // The libplist backend may refuse what libplist would misread (libplistFailure), nothing else.
        do { _ = try ArchiveValue(propertyList: bytes, options: libplist) } catch let error as ArchiveError where error.code != .libplistFailure {
            fuzzFailure("the native reader accepts what the libplist backend rejects: \(error)")
        } catch {}
    }
}
