#!/usr/bin/env bash
# Smoke run of the comparison runner (the Benchmarks package's `autocoding-bench`): `--quick` runs every decode
# and encode path (swift-corelibs-foundation, libplist's C API, this package) at N = 1000, once each, and checks
# every result against its source data (counts and a sample of fields). No timing is asserted. Exit status:
# non-zero when any path's result does not match, or the harness fails.
#
# Environment: CONFIG (debug or release), BENCH_ARGS (extra arguments, e.g. "--no-rss" to skip the peak-RSS child
# processes). The build lives in Benchmarks/.build.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
CONFIG="${CONFIG:-debug}"
swift build --package-path Benchmarks -c "$CONFIG" --product autocoding-bench
BIN="$(swift build --package-path Benchmarks -c "$CONFIG" --show-bin-path)/autocoding-bench"
# shellcheck disable=SC2086
"$BIN" --quick ${BENCH_ARGS:-}
