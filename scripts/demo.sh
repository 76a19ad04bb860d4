#!/usr/bin/env bash
# Sets up and runs the main job on data the project makes itself: builds the `autocoding` tool in release mode
# and validates (with a write/read round trip) the bundled sample archives, then the shared corpus if present.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build -c release --product autocoding
bin=.build/release/autocoding
"$bin" validate --roundtrip Tests/AutoCodingFastTests/Fixtures
if [ -d ../shared/corpus/apple ]; then
    "$bin" validate --roundtrip ../shared/corpus/apple ../shared/corpus/plain | tail -n 1
fi
