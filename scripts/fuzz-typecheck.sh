#!/usr/bin/env bash
# Type-checks every libFuzzer target (FuzzTesting/) against this package's debug build, so that a target never
# stops compiling unnoticed: the fuzz scripts build them with swiftc only when someone fuzzes. swiftc -typecheck
# with the built modules (built with testing enabled, for `@testable import`) and the macro plugin, about a
# minute. Prints one line per target and exits 1 if any does not compile.
# Usage: scripts/fuzz-typecheck.sh   (after `swift build`)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bin=$(swift build --show-bin-path)
plugin=$(find "$bin" -maxdepth 1 -name 'AutoCodingMacros-tool' -type f | head -1)
[[ -d $bin/Modules && -n $plugin ]] || { echo "fuzz-typecheck: run swift build first" >&2; exit 2; }
log=$(mktemp /tmp/fuzz-typecheck.XXXXXX)
trap 'rm -f "$log"' EXIT
failed=0
for target in FuzzTesting/[a-z]*.swift; do
    name=$(basename "$target" .swift)
    case $name in
    structured-*) sources=(FuzzTesting/Structured*.swift "$target") ;;
    modeldecode | roundtrip) sources=(FuzzTesting/Support.swift FuzzTesting/Models.swift "$target") ;;
    typedstream) sources=("$target") ;;  # scripts/fuzz-typedstream.sh compiles it with the engine's files alone
    *) sources=(FuzzTesting/Support.swift "$target") ;;
    esac
    if swiftc -typecheck -swift-version 6 -package-name autocoding -parse-as-library -module-name "Fuzz_${name//-/_}" \
        -I "$bin/Modules" -load-plugin-executable "$plugin#AutoCodingMacros" \
        -Xcc -fmodule-map-file="$root/Sources/CPlistShim/module.modulemap" \
        -Xcc -fmodule-map-file="$root/Sources/CSQLite/module.modulemap" "${sources[@]}" >"$log" 2>&1; then
        echo "fuzz target $name: ok"
    else
        echo "fuzz target $name: does not compile"
        grep -m 10 'error:' "$log" || true
        failed=$((failed + 1))
    fi
done
[[ $failed == 0 ]] || { echo "$failed fuzz targets do not compile" >&2; exit 1; }
