#!/usr/bin/env python3
"""Seed corpora for the structure-aware fuzz targets (scripts/fuzz-structured.sh): python3 scripts/fuzz-seeds.py TARGET DIR

The targets read their input as a program of construction steps (FuzzTesting/StructuredSupport.swift, `Program`):
each step takes one or two bytes, small values pick the common branches, large ones the rare ones (bulk
structures, edge integers, long strings), and an exhausted program reads as zeros. So the seeds are programs, not
archives: every one-byte program (each first choice), and deterministic pseudo-random programs of lengths from 2 to
4,096 bytes with different byte distributions (uniform, low bytes for small valid structures, high bytes for the
rare branches, mostly zeros with a few set bytes). The same seeds serve every target; the target name only varies
the random stream. Written deterministically, so that a corpus can be regenerated; never committed.
"""
import hashlib
import os
import random
import sys


def programs(target):
    rng = random.Random("autocoding-structured-" + target)
    for first in range(256):
        yield bytes([first])
    distributions = {
        "uniform": lambda: rng.randrange(256),
        "low": lambda: rng.randrange(32),
        "high": lambda: rng.randrange(192, 256),
        "sparse": lambda: rng.randrange(256) if rng.random() < 0.1 else 0,
        "mixed": lambda: rng.choice((0, 1, 2, 3, 7, 15, 31, 63, 64, 127, 128, 191, 192, 254, 255)),
    }
    for name, draw in distributions.items():
        for i in range(60):
            # Lengths spread over 2 … 4096 on a log scale.
            length = int(2 ** rng.uniform(1, 12))
            yield bytes(draw() for _ in range(length))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    target, directory = sys.argv[1], sys.argv[2]
    os.makedirs(directory, exist_ok=True)
    count = 0
    for program in programs(target):
        name = hashlib.sha1(program).hexdigest()
        with open(os.path.join(directory, name), "wb") as f:
            f.write(program)
        count += 1
    print(f"fuzz-seeds: {count} programs for {target} in {directory}", file=sys.stderr)


if __name__ == "__main__":
    main()
