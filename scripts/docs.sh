#!/usr/bin/env bash
# Builds the DocC documentation with swift-docc-plugin (a dependency of the root package only: packages that
# depend on this one never resolve it) and prints the path of each .doccarchive it made, one per line:
#   AutoCodingCore (the catalogue: the object layer's types and the articles), AutoCoding (the macros) and
#   AutoCodingFast (the engine's types, from their /// comments). A DocC warning (a link that does not resolve) fails
#   it: a link to another module's symbol cannot resolve, so such names are written in code font.
# Usage: scripts/docs.sh [TARGET...]     (default: the three above; DOCS_DIR sets the output folder)
# Preview one in a browser with `swift package --disable-sandbox preview-documentation --target AutoCodingCore`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
out=${DOCS_DIR:-$PWD/.build/docs}
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(AutoCodingCore AutoCoding AutoCodingFast)
mkdir -p "$out"
for target in "${targets[@]}"; do
    archive=$out/$target.doccarchive
    rm -rf "$archive"
    swift package --allow-writing-to-directory "$out" generate-documentation --target "$target" \
        --output-path "$archive" --warnings-as-errors >&2
    [[ -d $archive ]] || { echo "docs: no archive for $target" >&2; exit 1; }
    echo "$archive"
done
