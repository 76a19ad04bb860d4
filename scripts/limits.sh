#!/usr/bin/env bash
# Runs the resource-limit cases (Tests/AutoCodingTests/ResourceLimitCases.swift) with the engine built `-O`, as
# shipped, and checks the issue's exact bounds: each case ends with its error in under 50 ms of CPU time and
# under 64 MB of peak memory above its baseline, each measured in its own child process.
# `swift test` runs the same cases in a debug build (see ResourceLimitTests.swift); this script is the release
# check. Usage: scripts/limits.sh [CASE...]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=${LIMITS_BUILD_DIR:-$root/.build-limits}
opt=(-O -swift-version 6 -package-name autocoding -parse-as-library)

# shellcheck source=scripts/swiftc-modules.sh
source "$root/scripts/swiftc-modules.sh"

build_libraries
binary=$out/bin/limits
if [[ ! -x $binary || $binary -ot $out/lib/.stamp || $binary -ot Tests/AutoCodingTests/ResourceLimitCases.swift
    || $binary -ot scripts/limits-main.swift ]]; then
    mkdir -p "$out/bin"
    swiftc "${opt[@]}" -module-name Limits -I "$out/lib" -I Sources/CPlistShim -L "$out/lib" \
        -lAutoCoding -lAutoCodingCore -lAutoCodingFast -lOrderedCollections -lInternalCollectionsUtilities -lplist-2.0 \
        -load-plugin-executable "$(macro_plugin)#AutoCodingMacros" \
        Tests/AutoCodingTests/ResourceLimitCases.swift scripts/limits-main.swift -o "$binary"
fi
exec "$binary" "$@"
