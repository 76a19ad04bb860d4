#!/usr/bin/env bash
# Compiles every ```swift block of README.md and of the DocC catalogues (Sources/*/*.docc/*.md) against this
# package's debug build: swiftc -typecheck with the built modules and the macro plugin, so no second swift-syntax
# build. Each block is its own program; a block with no import line gets `import AutoCoding` and
# `import Foundation`. A block marked ```swift no-compile (a Package.swift excerpt, a fragment) is skipped.
# Prints one line per block and `N passed, M failed`; exit 1 if any block does not compile.
# Usage: scripts/doc-samples.sh [FILE.md...]   (after `swift build`; builds it when the modules are missing)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bin=$(swift build --show-bin-path)
if [[ ! -d $bin/Modules || -z $(find "$bin" -maxdepth 1 -name 'AutoCodingMacros-tool' -type f) ]]; then
    swift build --product autocoding >&2
    swift build --target AutoCoding >&2
fi
files=("$@")
[[ ${#files[@]} -gt 0 ]] || mapfile -t files < <(ls README.md Sources/*/*.docc/*.md)
work=$(mktemp -d /tmp/doc-samples.XXXXXX)
trap 'rm -rf "$work"' EXIT

python3 - "$work" "${files[@]}" <<'PY'
import os, re, sys
work, files = sys.argv[1], sys.argv[2:]
for path in files:
    lines = open(path, encoding="utf-8").read().split("\n")
    block, start = None, 0
    for number, line in enumerate(lines, 1):
        fence = line.strip()
        if block is None and fence.startswith("```swift"):
            block, start, skip = [], number, fence != "```swift"
        elif block is not None and fence == "```":
            if not skip:
                name = "%s-%d" % (re.sub(r"[^A-Za-z0-9]+", "_", path), start)
                os.makedirs(os.path.join(work, name))
                body = "\n".join(block) + "\n"
                if not re.search(r"^\s*import\s", body, re.M):
                    body = "import AutoCoding\nimport Foundation\n\n" + body
                with open(os.path.join(work, name, "main.swift"), "w", encoding="utf-8") as f:
                    f.write("// %s:%d\n%s" % (path, start, body))
            block = None
        elif block is not None:
            block.append(line)
PY

check() {
    local dir=$1 origin
    origin=$(head -1 "$dir/main.swift" | cut -c4-)
    if (cd "$bin" && swiftc -typecheck -swift-version 6 -I Modules \
        -load-plugin-executable "AutoCodingMacros-tool#AutoCodingMacros" \
        -Xcc -fmodule-map-file="$root/Sources/CPlistShim/module.modulemap" "$dir/main.swift") > "$dir/log" 2>&1; then
        echo "ok   $origin"
    else
        echo "FAIL $origin"
        sed 's/^/     /' "$dir/log"
    fi
}
export -f check
export bin root
find "$work" -mindepth 1 -maxdepth 1 -type d | sort | xargs -P "${JOBS:-2}" -I{} bash -c 'check {}' > "$work/results"
cat "$work/results"
passed=$(grep -c '^ok ' "$work/results" || true)
failed=$(grep -c '^FAIL ' "$work/results" || true)
echo "samples: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
