#!/usr/bin/env bash
# Smoke run of the benchmark harness: `autocoding bench --quick` runs every decode and encode path of issue 7
# (swift-corelibs-foundation, libplist's C API, this package) at N = 1000, once each, and checks every result
# against its source data (counts and a sample of fields). No timing is asserted. Exit status: non-zero when
# any path's result does not match, or the harness fails.
#
# By default it uses the debug build in .build (the one `swift build` / scripts/test.sh make), so in CI it adds
# no build time. Environment: CONFIG (debug or release), SCRATCH (build folder), BENCH_ARGS (extra arguments,
# e.g. "--no-rss" to skip the peak-RSS child processes).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
CONFIG="${CONFIG:-debug}"
SCRATCH="${SCRATCH:-.build}"
swift build -c "$CONFIG" --scratch-path "$SCRATCH" --product autocoding
BIN="$(swift build -c "$CONFIG" --scratch-path "$SCRATCH" --show-bin-path)/autocoding"
# shellcheck disable=SC2086
"$BIN" bench --quick ${BENCH_ARGS:-}
