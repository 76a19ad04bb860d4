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

    /// How many times a plain debug build's time this build may take, for the budgets of tests that guard against
    /// runaway (quadratic) paths: ThreadSanitizer runs such code 5 to 15 times slower, AddressSanitizer about 3
    /// times. A budget scaled by it still fails the runaway paths, which took tens of seconds unsanitized.
    package static var timeScale: Int {
        switch name {
        case nil: 1
        case "ThreadSanitizer": 10
        default: 3
        }
    }

    /// Whether an address-space limit can hold a process of this build: a sanitizer reserves terabytes of
    /// address space for its shadow memory, so `batch --isolate`'s workers cannot start under `RLIMIT_AS`.
    package static var allowsAddressSpaceLimits: Bool { name == nil }
}
