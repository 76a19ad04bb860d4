// XML reading through libplist: the prescan (size, depth, text), libplist's parser, the misread checks and
// the `CF$UID` conversion. Accepted values must survive an XML write and read.
import AutoCodingFast

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzXML(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    withFuzzBytes(data, size) { bytes in
        guard ArchiveFormat.detect(bytes) == .xmlPlist else { return }
        guard let value = try? ArchiveValue(propertyList: bytes, options: fuzzOptions) else { return }
        _ = try? KeyedArchive(propertyList: value, options: fuzzOptions)
        guard let xml = try? value.xmlPropertyList() else { return }
        do { _ = try ArchiveValue(propertyList: xml, options: fuzzOptions) } catch {
            fuzzFailure("XML written from an accepted value does not read back: \(error)")
        }
    }
}
