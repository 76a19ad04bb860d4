#!/usr/bin/env python3
"""Runs `autocoding batch --stdin-frames` under Apache Spark: Spark reads the files (binaryFile), each
partition pipes their bytes as frames through one `autocoding` process, and the NDJSON records come back.

No executor needs the files at a path of its own: Spark reads them (from a local folder here, from HDFS or
object storage the same way), and the tool sees only bytes on its standard input, each blob with its path as
its id. Used by scripts/spark-demo.sh; see docs/SCALING.md.
"""
import argparse
import collections
import json
import os
import sys
import time

from pyspark.sql import SparkSession


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bin", required=True, help="the autocoding executable (same path on every worker)")
    parser.add_argument("--input", required=True, help="a folder (or any Spark path) of files, read recursively")
    parser.add_argument("--output", required=True, help="where to write the collected NDJSON records")
    parser.add_argument("--master", default="local[*]", help="the Spark master (default: local[*])")
    parser.add_argument("--partitions", type=int, default=8, help="how many partitions of files (default: 8)")
    parser.add_argument("--jobs", type=int, default=1, help="autocoding --jobs per task (default: 1)")
    parser.add_argument("--isolate", action="store_true", help="decode in worker processes (batch --isolate)")
    args = parser.parse_args()

    spark = (
        SparkSession.builder.master(args.master)
        .appName("autocoding-batch")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    # The framing helper travels to the executors with the job.
    spark.sparkContext.addPyFile(os.path.join(os.path.dirname(os.path.abspath(__file__)), "autocoding_frames.py"))
    start = time.time()

    files = spark.read.format("binaryFile").option("recursiveFileLookup", "true").load(args.input)
    total = files.count()
    command = [args.bin, "batch", "--stdin-frames", "--quiet", "--jobs", str(args.jobs)]
    if args.isolate:
        command.append("--isolate")

    def decode_partition(rows):
        from autocoding_frames import run_batch_frames  # imported on the executor
        # Exit status 1 only means some blobs failed, and each failure is a record; a bad frame or a usage
        # error (status 2) fails the task. The count below catches a lost partition.
        return run_batch_frames(command, ((row.path, bytes(row.content)) for row in rows))

    records = files.select("path", "content").repartition(args.partitions).rdd.mapPartitions(decode_partition)
    lines = records.collect()
    seconds = time.time() - start
    spark.stop()

    with open(args.output, "w", encoding="utf-8") as out:
        for line in lines:
            out.write(line + "\n")
    parsed = [json.loads(line) for line in lines]
    failures = collections.Counter(r["error"]["code"] for r in parsed if not r["ok"])
    decoded = sum(1 for r in parsed if r["ok"])
    print(f"spark: {total} files in {args.partitions} partitions on {args.master}: {len(lines)} NDJSON lines "
          f"({decoded} decoded, {len(lines) - decoded} failed) in {seconds:.1f} s -> {args.output}")
    if failures:
        print("failures by code: " + ", ".join(f"{code} {n}" for code, n in failures.most_common()))
    if len(lines) != total:
        print(f"error: {total} files but {len(lines)} records", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
