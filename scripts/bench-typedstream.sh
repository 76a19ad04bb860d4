#!/usr/bin/env bash
# Typedstream decoding beside python-typedstream (PyPI `pytypedstream` 0.1.0), each run as a whole process
# on the same input file, wall clock measured around the process:
#   1. a chat.db-sized batch: 100,000 iMessage attributedBody blobs (the crabstep samples of
#      ../shared/corpus/typedstream whose root is an attributed string, cycled);
#   2. the largest nibs of the corpus (WorldWideWeb-0.12_WorldWideWeb.nib, 23,886 bytes, and
#      cynthia-WorldWideWeb_WorldWideWeb.nib_data.nib, 22,162 bytes), 2,000 times each.
# This package (scripts/bench-typedstream/main.swift, compiled with -O together with the engine and object-layer
# files, so that the benchmark needs no swift-syntax build): `graph` = the validating event reader + the object
# graph + the root's Foundation value per blob; `events` = the event reader only. python-typedstream:
# `decode` = `typedstream.unarchive_from_data` (its reader plus its class-level decoder); `read` = its raw
# event reader (`TypedStreamReader`) run to the end. Not part of CI.
# Usage: scripts/bench-typedstream.sh [ROWS]
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-100000}
work=${BENCH_DIR:-$PWD/.build-bench}
mkdir -p "$work"
[[ -x $work/venv/bin/python ]] || { python3 -m venv "$work/venv" && "$work/venv/bin/pip" install -q pytypedstream==0.1.0; }

binary=$work/bench-typedstream
sources=(Sources/AutoCodingFast/ArchiveError.swift Sources/AutoCodingFast/ArchiveReadingOptions.swift
    Sources/AutoCodingFast/Typedstream*.swift Sources/AutoCodingFast/Internal/Typedstream*.swift
    Sources/AutoCodingCore/Typedstream/TypedValue.swift Sources/AutoCodingCore/Typedstream/TypedGraph.swift
    Sources/AutoCodingCore/Typedstream/TypedFoundation.swift scripts/bench-typedstream/main.swift)
if [[ ! -x $binary || -n $(find "${sources[@]}" -newer "$binary" | head -1) ]]; then
    swiftc -O -wmo -swift-version 6 -parse-as-library -module-name AutoCodingFast -suppress-warnings \
        -o "$binary" "${sources[@]}"
fi

"$work/venv/bin/python" - "$work" "$rows" <<'PY'
import glob, os, struct, sys
work, rows = sys.argv[1], int(sys.argv[2])
corpus = "../shared/corpus/typedstream"
blobs = [open(p, "rb").read() for p in sorted(glob.glob(corpus + "/crabstep_*"))]
blobs = [b for b in blobs if b"AttributedString" in b[:80]]
nib = open(corpus + "/WorldWideWeb-0.12_WorldWideWeb.nib", "rb").read()
nib2 = open(corpus + "/cynthia-WorldWideWeb_WorldWideWeb.nib_data.nib", "rb").read()
for name, items in (("blobs.bin", [blobs[i % len(blobs)] for i in range(rows)]), ("nib.bin", [nib] * 2000),
                    ("nib2.bin", [nib2] * 2000)):
    with open(os.path.join(work, name), "wb") as f:
        for b in items:
            f.write(struct.pack("<I", len(b)))
            f.write(b)
print("inputs: %d attributedBody samples cycled to %d blobs; nib of %d bytes x 2000" % (len(blobs), rows, len(nib)))
PY

cat > "$work/python_decode.py" <<'PY'
import struct, sys, time, typedstream
mode = sys.argv[2]
data = open(sys.argv[1], "rb").read()
blobs, i = [], 0
while i + 4 <= len(data):
    (n,) = struct.unpack_from("<I", data, i)
    blobs.append(data[i + 4:i + 4 + n])
    i += 4 + n
start = time.perf_counter()
ok = failed = 0
for blob in blobs:
    try:
        if mode == "read":
            list(typedstream.stream.TypedStreamReader.from_data(blob))
        else:
            typedstream.unarchive_from_data(blob)
        ok += 1
    except Exception:
        failed += 1
print("python %s: %d ok, %d failed, decode loop %.3f s" % (mode, ok, failed, time.perf_counter() - start))
PY

now() { date +%s.%N; }
# The object level against python's class-level decoder, the event level against its raw reader. For the nib
# only the event level: python-typedstream's StreamTable defers the nested streams that hold the whole nib; the
# second largest (cynthia-WorldWideWeb_WorldWideWeb.nib_data.nib, 22,162 bytes, IBObjectData) at both levels.
for run in "blobs.bin graph decode" "blobs.bin events read" "nib.bin events read" "nib2.bin graph decode" \
    "nib2.bin events read"; do
    read -r input ours theirs <<<"$run"
    t0=$(now); "$binary" "$work/$input" "$ours"; t1=$(now)
    "$work/venv/bin/python" "$work/python_decode.py" "$work/$input" "$theirs"; t2=$(now)
    swift_s=$(echo "$t1 - $t0" | bc -l)
    python_s=$(echo "$t2 - $t1" | bc -l)
    printf '%s (%s vs %s), whole process: this package %.2f s, python-typedstream %.2f s, ratio %.1fx\n' \
        "$input" "$ours" "$theirs" "$swift_s" "$python_s" "$(echo "$python_s / $swift_s" | bc -l)"
done
