#!/usr/bin/env bash
# Typedstream decoding beside python-typedstream (PyPI `pytypedstream`), each run as a whole process:
#   1. a chat.db-sized batch: 100,000 iMessage attributedBody blobs in a `message` table (the crabstep samples
#      of ../shared/corpus/typedstream whose root is an attributed string, cycled);
#   2. the largest nib of the corpus (WorldWideWeb-0.12_WorldWideWeb.nib), 2,000 times, as rows of a table.
# This package: `autocoding batch --sqlite DB --table message --column attributedBody --jobs 1` (validate,
# resolve the object graph, map the root's Foundation value, write an NDJSON record per row).
# python-typedstream: read the same rows with sqlite3 and `typedstream.unarchive_from_data` each blob (its
# class-level decoder), single process. Prints the wall-clock seconds of each and the ratio.
# Usage: scripts/bench-typedstream.sh [ROWS]   (needs `swift build -c release` and pip; not part of CI)
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-100000}
work=${BENCH_DIR:-$PWD/.build-bench}
mkdir -p "$work"
[[ -x $work/venv/bin/python ]] || { python3 -m venv "$work/venv" && "$work/venv/bin/pip" install -q pytypedstream==0.1.0; }
swift build -c release --scratch-path .build-release --product autocoding >&2
bin=$(swift build -c release --scratch-path .build-release --show-bin-path)/autocoding

"$work/venv/bin/python" - "$work" "$rows" <<'PY'
import glob, os, sqlite3, sys
work, rows = sys.argv[1], int(sys.argv[2])
corpus = "../shared/corpus/typedstream"
blobs = []
for path in sorted(glob.glob(corpus + "/crabstep_*")):
    data = open(path, "rb").read()
    if b"AttributedString" in data[:80]:
        blobs.append(data)
nib = open(corpus + "/WorldWideWeb-0.12_WorldWideWeb.nib", "rb").read()
for name, items in (("chat.db", [blobs[i % len(blobs)] for i in range(rows)]), ("nib.db", [nib] * 2000)):
    path = os.path.join(work, name)
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE message (ROWID INTEGER PRIMARY KEY, guid TEXT, attributedBody BLOB)")
    db.executemany("INSERT INTO message VALUES (?, ?, ?)", [(i + 1, "G%d" % i, b) for i, b in enumerate(items)])
    db.commit()
    db.close()
print("samples: %d attributedBody blobs cycled to %d rows; nib %d bytes x 2000" % (len(blobs), rows, len(nib)), file=sys.stderr)
PY

cat > "$work/python_decode.py" <<'PY'
import sqlite3, sys, typedstream
db = sqlite3.connect(sys.argv[1])
ok = failed = 0
for (blob,) in db.execute("SELECT attributedBody FROM message ORDER BY ROWID"):
    try:
        typedstream.unarchive_from_data(blob)
        ok += 1
    except Exception:
        failed += 1
print("python: %d ok, %d failed" % (ok, failed), file=sys.stderr)
PY

timeit() { local start end; start=$(date +%s.%N); "$@" >/dev/null || true; end=$(date +%s.%N); echo "$end - $start" | bc; }
for db in chat.db nib.db; do
    swift_s=$(timeit "$bin" batch --sqlite "$work/$db" --table message --column attributedBody --jobs 1 --quiet -o /dev/null)
    python_s=$(timeit "$work/venv/bin/python" "$work/python_decode.py" "$work/$db")
    printf '%s: autocoding %.2f s, python-typedstream %.2f s, ratio %.1fx\n' "$db" "$swift_s" "$python_s" \
        "$(echo "$python_s / $swift_s" | bc -l)"
done
