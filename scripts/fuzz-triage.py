#!/usr/bin/env python3
"""Groups fuzz artifacts by what they violated: python3 scripts/fuzz-triage.py BINARY ARTIFACT...

Replays each artifact (crash-, timeout-, oom-, slow-unit- files of libFuzzer) with the target binary and prints one
line per distinct signature: the oracle and its message for an oracle violation ("fuzz oracle violated [output]:
…"), else the sanitizer's or libFuzzer's summary and the first frame in the package's sources (Sources/…), with the
smallest artifact that shows it. Used by scripts/fuzz-structured.sh triage.
"""
import os
import re
import subprocess
import sys

FRAME = re.compile(r"in (\S+) (/\S*/Sources/[^\s:]+:\d+)")


def demangle(symbol):
    try:
        out = subprocess.run(["swift-demangle", "--simplified", "--compact", symbol], capture_output=True, text=True, timeout=10)
        return out.stdout.strip() or symbol
    except Exception:
        return symbol


def signature(binary, artifact):
    kind = os.path.basename(artifact).split("-")[0]
    env = dict(os.environ, SWIFT_BACKTRACE="enable=no")
    try:
        out = subprocess.run(
            [binary, "-timeout=20", "-rss_limit_mb=2048", "-malloc_limit_mb=2048", "-detect_leaks=0", artifact],
            capture_output=True, text=True, errors="replace", timeout=120, env=env,
        ).stderr
    except subprocess.TimeoutExpired:
        return f"{kind}: hang (no return in 120 s)"
    oracle = re.search(r"fuzz oracle violated \[([^\]]+)\]: (.*)", out)
    if oracle:
        message = re.sub(r"\d{3,}", "N", oracle.group(2))[:110]
        return f"oracle {oracle.group(1)}: {message}"
    summary = re.search(r"SUMMARY: (\S+: [\w-]+)", out)
    error = re.search(r"(Fatal error: [^\n]*|ERROR: AddressSanitizer: [\w-]+|ERROR: libFuzzer: [\w-]+)", out)
    frames = FRAME.findall(out)
    where = ""
    if frames:
        symbol, place = frames[0]
        where = f" at {demangle(symbol)[:90]} ({place.split('/Sources/')[-1]})"
    what = (error.group(1) if error else summary.group(1) if summary else f"{kind}: no failure on replay")
    what = re.sub(r"\d{3,}", "N", what)[:110]
    return what + where


def main():
    binary, artifacts = sys.argv[1], sys.argv[2:]
    groups = {}
    for artifact in sorted(artifacts, key=os.path.getsize):
        groups.setdefault(signature(binary, artifact), []).append(artifact)
    for sig, files in sorted(groups.items(), key=lambda item: -len(item[1])):
        print(f"{len(files):3d}  {sig}\n     smallest: {files[0]} ({os.path.getsize(files[0])} bytes)")


if __name__ == "__main__":
    main()
