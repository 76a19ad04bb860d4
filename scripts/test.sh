#!/usr/bin/env bash
# Sets up and runs the tests: the README's test command and what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build
swift test
scripts/doc-samples.sh  # every ```swift block of README.md and the DocC articles, typechecked against the debug build
scripts/fuzz-typecheck.sh  # every libFuzzer target (FuzzTesting/), typechecked against the debug build
scripts/docs.sh         # the DocC archives (about a minute after the build above); prints their paths
scripts/codegen-corpus.sh  # codegen over ../shared/corpus/apple, compiled against the debug build (skipped without the corpus)
# The comparison runner's smoke run (every path at N = 1000, results checked, no timing asserted), so that
# `autocoding-bench` never rots. It builds the Benchmarks package in debug (its own .build, a few minutes).
scripts/bench-smoke.sh
