#!/usr/bin/env bash
# Sets up and runs the tests: the README's test command and what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build
swift test
scripts/codegen-corpus.sh  # codegen over ../shared/corpus/apple, compiled against the debug build (skipped without the corpus)
