#!/usr/bin/env python3
"""Runs `autocoding batch --stdin` under Apache Spark: RDD.pipe over a list of paths, NDJSON collected back.

Each partition of the path list is piped to one `autocoding batch --stdin` process, which decodes its paths and
prints one NDJSON record per path. Spark gathers the records; this script writes them to one file and prints a
summary. Used by scripts/spark-demo.sh; see docs/SCALING.md.
"""
import argparse
import collections
import json
import os
import shlex
import sys
import time

from pyspark.sql import SparkSession


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bin", required=True, help="the autocoding executable (same path on every worker)")
    parser.add_argument("--paths", required=True, help="a text file of absolute paths, one per line")
    parser.add_argument("--output", required=True, help="where to write the collected NDJSON records")
    parser.add_argument("--master", default="local[*]", help="the Spark master (default: local[*])")
    parser.add_argument("--partitions", type=int, default=8, help="how many slices of the path list (default: 8)")
    parser.add_argument("--jobs", type=int, default=1, help="autocoding --jobs per task (default: 1)")
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
    sc = spark.sparkContext
    start = time.time()

    with open(args.paths, encoding="utf-8") as f:
        paths = [line.strip() for line in f if line.strip()]
    command = f"{shlex.quote(args.bin)} batch --stdin --quiet --jobs {args.jobs}"
    # Exit status 1 only means some inputs failed, and each failure is a record: the records are the result,
    # so the exit status is not checked here (checkCode=False); the count below catches a lost partition.
    records = sc.parallelize(paths, args.partitions).pipe(command, checkCode=False)
    lines = records.collect()
    seconds = time.time() - start
    spark.stop()

    with open(args.output, "w", encoding="utf-8") as out:
        for line in lines:
            out.write(line + "\n")
    parsed = [json.loads(line) for line in lines]
    failures = collections.Counter(r["error"]["code"] for r in parsed if not r["ok"])
    decoded = sum(1 for r in parsed if r["ok"])
    print(f"spark: {len(paths)} paths in {args.partitions} partitions on {args.master}: {len(lines)} NDJSON lines "
          f"({decoded} decoded, {len(lines) - decoded} failed) in {seconds:.1f} s -> {args.output}")
    if failures:
        print("failures by code: " + ", ".join(f"{code} {n}" for code, n in failures.most_common()))
    if len(lines) != len(paths):
        print(f"error: {len(paths)} paths but {len(lines)} records", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
