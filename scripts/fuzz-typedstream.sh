#!/usr/bin/env bash
# Builds and runs the typedstream libFuzzer target: scripts/fuzz-typedstream.sh SECONDS [libFuzzer flags...]
#
# The typedstream engine needs nothing but its own files, ArchiveError, ArchiveReadingOptions and the byte readers
# (BPlistBytes.swift: its reader uses `withArchiveBytes`), so they are compiled with swiftc directly into one
# module (`-sanitize=fuzzer,address`), without SwiftPM. The corpus in .build-fuzz/corpus/typedstream is seeded
# from ../shared/corpus/typedstream (never committed); crashes go to .build-fuzz/crashes/typedstream.
# `scripts/fuzz-typedstream.sh 0 FILE...` replays inputs.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${FUZZ_BUILD_DIR:-$PWD/.build-fuzz}
seconds=${1:-60}
shift || true
mkdir -p "$out/corpus/typedstream" "$out/crashes/typedstream"
sources=(Sources/AutoCodingFast/ArchiveError.swift Sources/AutoCodingFast/ArchiveReadingOptions.swift
    Sources/AutoCodingFast/Internal/BPlistBytes.swift Sources/AutoCodingFast/Typedstream*.swift
    Sources/AutoCodingFast/Internal/Typedstream*.swift FuzzTesting/typedstream.swift)
binary=$out/fuzz-typedstream
if [[ ! -x $binary || -n $(find "${sources[@]}" -newer "$binary" | head -1) ]]; then
    echo "fuzz: building $binary" >&2
    swiftc -O -g -swift-version 6 -package-name autocoding -parse-as-library -sanitize=fuzzer,address -module-name AutoCodingFast \
        -suppress-warnings -o "$binary" "${sources[@]}"
fi
if [[ -d ../shared/corpus/typedstream ]]; then cp -n ../shared/corpus/typedstream/* "$out/corpus/typedstream/" 2>/dev/null || true; fi
if [[ $seconds == 0 ]]; then exec "$binary" "$@"; fi
exec "$binary" -max_total_time="$seconds" -max_len=65536 -artifact_prefix="$out/crashes/typedstream/" \
    "$@" "$out/corpus/typedstream"
