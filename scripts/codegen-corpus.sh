#!/bin/sh
# Runs `autocoding codegen` once over every archive of ../shared/corpus/apple into one Models.swift, compiles it
# with scripts/codegen-corpus/main.swift against this package's debug build (swiftc with the built modules, the
# macro plugin and the object files: no second swift-syntax build), then decodes each archive into the typed
# models, re-encodes it and compares graphs. Prints one line per archive and a summary; exit 1 if it does not
# compile. Usage: scripts/codegen-corpus.sh [corpus-dir]   (after `swift build --scratch-path .build`)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=${1:-$root/../shared/corpus/apple}
debug=$root/.build/debug
if [ ! -d "$corpus" ]; then echo "skipped: no corpus at $corpus"; exit 0; fi
work=$(mktemp -d /tmp/codegen-corpus.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$debug/autocoding" codegen "$corpus"/* -o "$work/Models.swift" 2> "$work/notes.txt" || { cat "$work/notes.txt"; exit 1; }
echo "codegen: $(grep -c '^final class' "$work/Models.swift") classes, $(wc -l < "$work/notes.txt") not fully typed"
sed 's/^/  /' "$work/notes.txt"
cd "$debug"
swiftc -I Modules -load-plugin-executable "AutoCodingMacros-tool#AutoCodingMacros" \
    -Xcc -fmodule-map-file="$root/Sources/CPlistShim/module.modulemap" \
    "$work/Models.swift" "$root/scripts/codegen-corpus/main.swift" \
    AutoCoding.build/*.o AutoCodingCore.build/*.o AutoCodingFast.build/*.o OrderedCollections.build/*.o InternalCollectionsUtilities.build/*.o \
    -lplist-2.0 -o "$work/roundtrip"
echo "compiled"
cd "$corpus"
"$work/roundtrip" *
