/// Bytes owned at a stable address for as long as any ``KeyedArchiveView`` refers to them, so decoders can
/// read through one raw pointer instead of re-entering `withUnsafeBytes` for every field.
package final class ArchiveBytes: @unchecked Sendable {
    /// The bytes. Valid until this object is deinitialized; never written after `init`.
    package let raw: UnsafeRawBufferPointer

    /// Copies `bytes` into storage this object owns.
    package init(copying bytes: [UInt8]) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
        bytes.withUnsafeBytes { source in
            if let base = source.baseAddress { buffer.baseAddress!.copyMemory(from: base, byteCount: source.count) }
        }
        raw = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<bytes.count])
    }

    deinit {
        UnsafeMutableRawPointer(mutating: raw.baseAddress)?.deallocate()
    }
}
