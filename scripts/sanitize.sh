#!/usr/bin/env bash
# Runs the test suite under a sanitizer: scripts/sanitize.sh address|thread|all [swift test flags...]
#
# Each sanitizer builds the whole package (swift-syntax included) in its own scratch folder (.build-asan,
# .build-tsan): about as long as a first `swift build` per sanitizer, so this is not part of .ci/run (see
# SECURITY.md). Extra flags go to `swift test`, e.g. `scripts/sanitize.sh thread --filter Concurrency`.
#
# `scripts/sanitize.sh quick-thread` instead compiles the engine and the concurrency workload
# (Tests/AutoCodingTests/ConcurrentDecodingWorkload.swift) with swiftc under ThreadSanitizer, without swift-syntax
# or SwiftPM, and runs it: minutes instead of a full sanitized build.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
mode=${1:-all}
shift || true

run() {
    local sanitizer=$1 scratch=$2
    shift 2
    echo "== swift test --sanitize=$sanitizer ($scratch)"
    # Suppress ASan's leak report for the reference cycles that cyclic archived graphs keep on purpose (SECURITY.md).
    # Swift's backtracer reads other threads' stacks, which AddressSanitizer reports, and then hangs: a trap is
    # reported by the sanitizer alone.
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0} TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1} \
        SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no} \
        swift test --scratch-path "$scratch" --sanitize="$sanitizer" "$@"
}

quick_thread() {
    out=${SANITIZE_BUILD_DIR:-$root/.build-tsan-swiftc}
    opt=(-O -g -swift-version 6 -package-name autocoding -parse-as-library -sanitize=thread)
    # shellcheck source=scripts/swiftc-modules.sh
    source "$root/scripts/swiftc-modules.sh"
    build_libraries
    mkdir -p "$out/bin"
    local main=$out/main.swift
    cat > "$main" <<'SWIFT'
@main enum Main {
    static func main() async throws {
        let matched = try await ConcurrentDecodingWorkload.run(tasks: 16, rounds: 20)
        print("concurrent decodes matched: \(matched) of \(16 * 20)")
        if matched != 16 * 20 { fatalError("a concurrent decode differed") }
    }
}
SWIFT
    swiftc "${opt[@]}" -module-name TSanWorkload -I "$out/lib" -I Sources/CPlistShim -L "$out/lib" \
        -lAutoCoding -lAutoCodingCore -lAutoCodingFast -lOrderedCollections -lInternalCollectionsUtilities -lplist-2.0 \
        Tests/AutoCodingTests/ConcurrentDecodingWorkload.swift "$main" -o "$out/bin/workload"
    TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1} "$out/bin/workload"
}

case $mode in
address) run address .build-asan "$@" ;;
thread) run thread .build-tsan "$@" ;;
all)
    run address .build-asan "$@"
    run thread .build-tsan "$@"
    ;;
quick-thread) quick_thread ;;
*)
    echo "usage: scripts/sanitize.sh address|thread|all|quick-thread [swift test flags...]" >&2
    exit 2
    ;;
esac
