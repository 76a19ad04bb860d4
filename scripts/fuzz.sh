#!/usr/bin/env bash
# Builds and runs one libFuzzer target: scripts/fuzz.sh TARGET SECONDS [libFuzzer flags...]
#
# Targets (FuzzTesting/<target>.swift): bplist, xml, graph, modeldecode, roundtrip. FuzzTesting/Models.swift holds the
# model types that modeldecode and roundtrip share (the target was named `models` before 0.1.0; that file name
# differed from Models.swift only in case).
# `scripts/fuzz.sh build` builds them all; `scripts/fuzz.sh TARGET 0 FILE...` replays inputs.
# The engine is compiled with swiftc directly (`-sanitize=fuzzer,address`), without SwiftPM or swift-syntax;
# only the `modeldecode` and `roundtrip` targets need the @AutoCoding macro plugin, taken from a `swift build` (built if missing).
# Corpora live in .build-fuzz/corpus/<target> (seeded from the fixtures and ../shared/corpus, never committed);
# crashes are written to .build-fuzz/crashes/<target>. Minimize a crasher with `-minimize_crash=1` and commit it as
# a named case in Tests/*/FuzzRegressionTests.swift.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=${FUZZ_BUILD_DIR:-$root/.build-fuzz}
targets=(bplist xml graph modeldecode roundtrip)
opt=(-O -g -swift-version 6 -package-name autocoding -parse-as-library -sanitize=fuzzer,address)

# shellcheck source=scripts/swiftc-modules.sh
source "$root/scripts/swiftc-modules.sh"

build_target() {
    local target=$1
    local binary=$out/bin/fuzz-$target
    mkdir -p "$out/bin"
    if [[ -x $binary && $binary -nt FuzzTesting/$target.swift && $binary -nt $out/lib/.stamp
        && $binary -nt FuzzTesting/Support.swift && $binary -nt FuzzTesting/Models.swift ]]; then
        return
    fi
    local extra=()
    if [[ $target == modeldecode || $target == roundtrip ]]; then
        extra=(-load-plugin-executable "$(macro_plugin)#AutoCodingMacros" FuzzTesting/Models.swift)
    fi
    echo "fuzz: building $binary" >&2
    swiftc "${opt[@]}" -module-name "Fuzz_$target" -I "$out/lib" -I Sources/CPlistShim -L "$out/lib" \
        -lAutoCoding -lAutoCodingCore -lAutoCodingFast -lOrderedCollections -lInternalCollectionsUtilities -lplist-2.0 \
        "${extra[@]}" FuzzTesting/Support.swift "FuzzTesting/$target.swift" -o "$binary"
}

# Seeds: committed fixtures and the shared corpus (binary and XML alike; each target takes what it can).
seed() {
    local target=$1 dir=$out/corpus/$target
    [[ -d $dir ]] && return
    mkdir -p "$dir"
    local sources=(Tests/AutoCodingFastTests/Fixtures)
    [[ -d ../shared/corpus ]] && sources+=(../shared/corpus/apple ../shared/corpus/plain ../shared/corpus/malformed)
    [[ -d /work/shared/corpus ]] && sources+=(/work/shared/corpus/apple /work/shared/corpus/plain /work/shared/corpus/malformed)
    find "${sources[@]}" -type f -size -300k 2>/dev/null | while read -r file; do
        cp "$file" "$dir/$(sha1sum "$file" | cut -c1-40)"
    done
}

target=${1:?usage: scripts/fuzz.sh TARGET|build SECONDS [libFuzzer flags...]}
build_libraries
if [[ $target == build ]]; then
    for t in "${targets[@]}"; do build_target "$t"; done
    exit 0
fi
[[ " ${targets[*]} " == *" $target "* ]] || { echo "unknown target $target (${targets[*]})" >&2; exit 2; }
seconds=${2:-60}
shift $(($# < 2 ? $# : 2))
build_target "$target"
if [[ $seconds == 0 ]]; then
    SWIFT_BACKTRACE=enable=no exec "$out/bin/fuzz-$target" "$@"
fi
seed "$target"
mkdir -p "$out/crashes/$target"
# 8 KiB inputs keep executions fast; -rss_limit_mb bounds memory like the resource tests do.
SWIFT_BACKTRACE=enable=no exec "$out/bin/fuzz-$target" -max_total_time="$seconds" -max_len="${FUZZ_MAX_LEN:-8192}" -rss_limit_mb=2048 \
    -timeout=10 -print_final_stats=1 -artifact_prefix="$out/crashes/$target/" "$@" "$out/corpus/$target"
