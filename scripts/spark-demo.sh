#!/usr/bin/env bash
# Scale-out example (not part of CI): Apache Spark in local mode reads the generated samples itself
# (binaryFile), pipes their bytes as frames through `autocoding batch --stdin-frames`, and collects the NDJSON
# records. Installs pyspark with pip when it is missing (needs Java 17+). See docs/SCALING.md.
#
#   COUNT=2000 PARTITIONS=8 scripts/spark-demo.sh      # AUTOCODING_BIN=path skips the build
#   SPARK_DEMO_DIR=/tmp/spark-demo scripts/spark-demo.sh   # an absolute or relative output folder
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
case "$bin" in /*) ;; *) bin="$(pwd)/$bin" ;; esac
# The output folder: an absolute SPARK_DEMO_DIR as given, a relative one under the package.
out="${SPARK_DEMO_DIR:-.build/spark-demo}"
case "$out" in /*) ;; *) out="$(pwd)/$out" ;; esac
mkdir -p "$out"
"$bin" sample -o "$out/samples" --count "${COUNT:-2000}" --rows 0 --force --quiet
rm -f "$out/samples/messages.db"  # Only files: archives/ and the 9 non-archives of other/.

export SPARK_LOCAL_IP=127.0.0.1 PYSPARK_PYTHON=python3
python3 scripts/spark_batch.py --bin "$bin" --input "$out/samples" --output "$out/records.ndjson" \
    --master "local[${SPARK_CORES:-*}]" --partitions "${PARTITIONS:-8}"
echo "records: $(wc -l < "$out/records.ndjson") lines in $out/records.ndjson"
