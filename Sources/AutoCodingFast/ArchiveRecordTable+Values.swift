#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The values of validated records: what a decoder over the table reads scalars through, so that no byte offset
/// or slice of the archive leaves the engine. Each takes a record the caller has validated (``record(_:)``,
/// ``validated(_:)``) and checked to be of the kind it reads.
extension ArchiveRecordTable {
    /// The string of an ASCII or UTF-16 string record.
    @inline(__always)
    package func string(_ record: BPlistIndex.Record) -> String { reader.makeString(record, in: raw) }

    /// The integer of an integer record, as ``ArchiveValue/integer(_:)`` or, above `Int64.max`,
    /// ``ArchiveValue/unsignedInteger(_:)``.
    @inline(__always)
    package func integer(_ record: BPlistIndex.Record) -> ArchiveValue { reader.integer(record, in: raw) }

    /// The floating-point value of a real or date record (a date's seconds since 2001-01-01).
    @inline(__always)
    package func double(_ record: BPlistIndex.Record) -> Double { reader.double(record, in: raw) }

    /// The bytes of a data record, copied.
    package func data(_ record: BPlistIndex.Record) -> Data {
        Data(UnsafeRawBufferPointer(rebasing: raw[record.offset..<record.offset + Int(record.count)]))
    }

    /// The UID a UID record holds.
    @inline(__always)
    package func uid(_ record: BPlistIndex.Record) -> UInt32 { reader.uid(record) }
}
