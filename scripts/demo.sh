#!/usr/bin/env bash
# The main job, on data the project makes itself: builds the `autocoding` tool (release), writes a deterministic
# sample set (keyed archives of eight kinds, a few files that are not archives, a chat.db-like SQLite database
# of archive blobs, a chat.db with the real Messages schema), then decodes it all with `batch` and `messages`: a progress bar on a terminal, a summary at the end, the
# NDJSON records in files beside the samples. No network and no files from outside the repository.
#
#   COUNT=10000 JOBS=2 scripts/demo.sh     # defaults: COUNT=5000, JOBS = the number of cores
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build -c release --product autocoding
bin="$(swift build -c release --show-bin-path)/autocoding"
out="${SAMPLES:-.build/samples}"
jobs="${JOBS:-$(nproc 2>/dev/null || sysctl -n hw.ncpu)}"

"$bin" sample -o "$out" --count "${COUNT:-5000}" --force

echo "== the archives"
"$bin" batch "$out/archives" --jobs "$jobs" -o "$out/archives.ndjson"
head -n 2 "$out/archives.ndjson"

echo "== the attributedBody blobs of messages.db"
"$bin" batch --sqlite "$out/messages.db" --jobs "$jobs" -o "$out/messages.ndjson" \
    --query "SELECT ROWID, guid, handle_id, date, attributedBody FROM message"
head -n 1 "$out/messages.ndjson"

echo "== the messages of chat.db (the real schema: typedstream bodies, edits, unsends, attachments)"
"$bin" messages "$out/chat.db" > "$out/chat.ndjson"
head -n 1 "$out/chat.ndjson"

echo "== files that are not archives: one record each, not fatal (exit status 1, since they did not decode)"
status=0
"$bin" batch "$out/other" -o "$out/other.ndjson" || status=$?
if [ "$status" -ne 1 ]; then
    echo "expected exit status 1 for the non-archives, got $status" >&2
    exit 1
fi

if [ -d ../shared/corpus/apple ]; then
    echo "== the team's corpus of real archives"
    "$bin" batch ../shared/corpus/apple --jobs "$jobs" -o "$out/corpus.ndjson"
fi
