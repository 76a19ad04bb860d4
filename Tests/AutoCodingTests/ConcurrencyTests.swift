import AutoCoding
import Foundation
import Testing

/// Decoding is safe from many tasks at once. The ThreadSanitizer run of this workload is
/// `scripts/sanitize.sh thread` (see SECURITY.md).
@Suite("Concurrency")
struct ConcurrencyTests {
    @Test func decodesTheSameBytesInManyTasksWithASharedRegistry() async throws {
        let matched = try await ConcurrentDecodingWorkload.run(tasks: 16, rounds: 5)
        #expect(matched == 16 * 5)
    }

    /// The public value types and options cross task boundaries.
    @Test func publicValueTypesAndOptionsAreSendable() {
        func requireSendable<T: Sendable>(_: T.Type) {}
        requireSendable(ArchiveReadingOptions.self)
        requireSendable(ArchiveValue.self)
        requireSendable(ArchiveUID.self)
        requireSendable(ArchiveError.self)
        requireSendable(ArchiveClass.self)
        requireSendable(KeyedArchive.self)
        requireSendable(KeyedArchiveView.self)
        requireSendable(KeyedArchiveDecoder.self)
        requireSendable(KeyedArchiveEncoder.self)
        requireSendable(ArchiveClassRegistry.self)
        requireSendable(ArchiveRange.self)
        requireSendable(ArchiveRect.self)
        requireSendable(ArchivePathError.self)
        requireSendable(ArchiveJSONError.self)
        requireSendable(TypedstreamDecodingError.self)
    }
}
