#!/usr/bin/env bash
# Scale-out example (not part of CI): runs `autocoding batch --stdin` under Apache Spark in local mode with
# RDD.pipe over the paths of the generated samples, and collects the NDJSON records. Installs pyspark with pip
# when it is missing (needs Java 17+). See docs/SCALING.md.
#
#   COUNT=2000 PARTITIONS=8 scripts/spark-demo.sh      # AUTOCODING_BIN=path skips the build
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if ! python3 -c "import pyspark" 2>/dev/null; then
    python3 -m pip install --quiet pyspark
fi
java -version 2>&1 | head -n 1

# AUTOCODING_BIN names an already built executable; by default the release build is made here.
bin="${AUTOCODING_BIN:-}"
if [ -z "$bin" ]; then
    swift build -c release --product autocoding
    bin="$(swift build -c release --show-bin-path)/autocoding"
fi
out="$(pwd)/${SPARK_DEMO_DIR:-.build/spark-demo}"
mkdir -p "$out"
"$bin" sample -o "$out/samples" --count "${COUNT:-2000}" --rows 0 --force --quiet
# Absolute paths: Spark's tasks run in their own working directories.
find "$out/samples/archives" "$out/samples/other" -type f | sort > "$out/paths.txt"

export SPARK_LOCAL_IP=127.0.0.1 PYSPARK_PYTHON=python3
python3 scripts/spark_batch.py --bin "$bin" --paths "$out/paths.txt" --output "$out/records.ndjson" \
    --master "local[${SPARK_CORES:-*}]" --partitions "${PARTITIONS:-8}"
echo "records: $(wc -l < "$out/records.ndjson") lines in $out/records.ndjson"
