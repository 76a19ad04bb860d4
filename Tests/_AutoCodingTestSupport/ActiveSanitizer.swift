#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The sanitizer this test binary was built with (`swift test --sanitize=…`), found at run time: Swift has no
/// compile-time condition for it, but the sanitizer runtimes export their entry points.
package enum ActiveSanitizer {
    package static let name: String? = {
        let everything = dlopen(nil, RTLD_NOW)
        defer { if let everything { dlclose(everything) } }
        if dlsym(everything, "__asan_init") != nil { return "AddressSanitizer" }
        if dlsym(everything, "__tsan_init") != nil { return "ThreadSanitizer" }
        return nil
    }()

    /// Whether an address-space limit can hold a process of this build: a sanitizer reserves terabytes of
    /// address space for its shadow memory, so `batch --isolate`'s workers cannot start under `RLIMIT_AS`.
    package static var allowsAddressSpaceLimits: Bool { name == nil }
}
