#!/usr/bin/env python3
"""Lazy vs eager: time and peak RSS of reading one field of a generated >= 1 GB keyed archive.

Not part of CI. Usage (after `swift build -c release --product autocoding --scratch-path .build-release`, or
with `--bin .build/debug/autocoding` for the debug build):

    scripts/lazy-benchmark.py [--people 1000000] [--text 990] [--bin .build-release/release/autocoding]

It writes /tmp/autocoding-lazy-1g.archive (streamed, a few MB of memory): `$top.root` is an NSArray of
`--people` Person objects, each with an inline `age` and a `name` string of `--text` bytes. Then it runs, each
in a fresh child process measured by GNU time (wall and CPU time, peak RSS):

    autocoding get         FILE '$top.root[PERSON].name'   # lazy: mmap, validate and decode what the path needs
    autocoding get --eager FILE '$top.root[PERSON].name'   # eager: read whole, validate all, decode the whole graph

The file is read once first so that both runs find it in the page cache.
"""
import argparse, os, struct, subprocess, sys, time

def write_archive(path, people, text):
    # Object numbers: fixed objects first, then five per person: its dict, the UID NS.objects holds for it,
    # its name UID, its age, its name string.
    fixed = ["root", "k$archiver", "k$version", "k$objects", "k$top", "archiver", "version", "objects", "top",
             "kroot", "topuid", "null", "arraydict", "k$class", "kNS.objects", "arrayclassuid", "nsobjects",
             "arrayclass", "k$classname", "k$classes", "sNSArray", "sNSObject", "arraychain", "personclass",
             "sPerson", "personchain", "kname", "kage", "personclassuid"]
    num = {name: i for i, name in enumerate(fixed)}
    base = len(fixed)
    count = base + 5 * people
    # $objects: UID 0 $null, 1 the NSArray, 2 its class, 3 the Person class, 4.. people, then names.
    uid_array, uid_array_class, uid_person_class, uid_first_person = 1, 2, 3, 4
    out = open(path, "wb")
    pos = 0
    def emit(b):
        nonlocal pos
        out.write(b)
        pos += len(b)
    def refs(*numbers):
        return b"".join(struct.pack(">I", n) for n in numbers)
    def length(marker, n):
        return bytes([marker | n]) if n < 15 else bytes([marker | 0xF, 0x12]) + struct.pack(">I", n)
    def ascii(s):
        return length(0x50, len(s)) + s.encode()
    def uid(u):
        return bytes([0x83]) + struct.pack(">I", u)
    def obj_person(i): return base + 5 * i
    emit(b"bplist00")
    table = [None] * count
    def put(n, b):
        table[n] = pos
        emit(b)
    # Fixed objects.
    put(num["root"], bytes([0xD4]) + refs(num["k$archiver"], num["k$version"], num["k$objects"], num["k$top"],
                                          num["archiver"], num["version"], num["objects"], num["top"]))
    for k in ["$archiver", "$version", "$objects", "$top"]:
        put(num["k" + k], ascii(k))
    put(num["archiver"], ascii("NSKeyedArchiver"))
    put(num["version"], bytes([0x12]) + struct.pack(">I", 100000))
    # $objects: null, array, array class, person class, people..., names...
    entries = [num["null"], num["arraydict"], num["arrayclass"], num["personclass"]]
    entries += [obj_person(i) for i in range(people)] + [obj_person(i) + 4 for i in range(people)]
    table[num["objects"]] = pos
    emit(length(0xA0, len(entries)))
    for chunk in range(0, len(entries), 65536):
        emit(refs(*entries[chunk:chunk + 65536]))
    put(num["top"], bytes([0xD1]) + refs(num["kroot"], num["topuid"]))
    put(num["kroot"], ascii("root"))
    put(num["topuid"], uid(uid_array))
    put(num["null"], ascii("$null"))
    put(num["arraydict"], bytes([0xD2]) + refs(num["k$class"], num["kNS.objects"], num["arrayclassuid"], num["nsobjects"]))
    put(num["k$class"], ascii("$class"))
    put(num["kNS.objects"], ascii("NS.objects"))
    put(num["arrayclassuid"], uid(uid_array_class))
    table[num["nsobjects"]] = pos
    emit(length(0xA0, people))
    for chunk in range(0, people, 65536):
        emit(refs(*[obj_person(i) + 1 for i in range(chunk, min(people, chunk + 65536))]))
    put(num["arrayclass"], bytes([0xD2]) + refs(num["k$classname"], num["k$classes"], num["sNSArray"], num["arraychain"]))
    put(num["k$classname"], ascii("$classname"))
    put(num["k$classes"], ascii("$classes"))
    put(num["sNSArray"], ascii("NSArray"))
    put(num["sNSObject"], ascii("NSObject"))
    put(num["arraychain"], bytes([0xA2]) + refs(num["sNSArray"], num["sNSObject"]))
    put(num["personclass"], bytes([0xD2]) + refs(num["k$classname"], num["k$classes"], num["sPerson"], num["personchain"]))
    put(num["sPerson"], ascii("Bench.Person"))
    put(num["personchain"], bytes([0xA2]) + refs(num["sPerson"], num["sNSObject"]))
    put(num["kname"], ascii("name"))
    put(num["kage"], ascii("age"))
    put(num["personclassuid"], uid(uid_person_class))
    filler = ("lorem ipsum dolor sit amet " * (text // 27 + 2))
    for i in range(people):
        n = obj_person(i)
        # {$class: UID, name: UID of the name string, age: inline integer}
        put(n, bytes([0xD3]) + refs(num["k$class"], num["kname"], num["kage"], num["personclassuid"], n + 2, n + 3))
        put(n + 1, uid(uid_first_person + i))
        put(n + 2, uid(uid_first_person + people + i))
        put(n + 3, bytes([0x12]) + struct.pack(">I", i % 100))
        put(n + 4, ascii(("person %d: " % i + filler)[:text]))
    table_offset = pos
    for chunk in range(0, count, 65536):
        emit(b"".join(struct.pack(">I", o) for o in table[chunk:chunk + 65536]))
    emit(bytes(6) + bytes([4, 4]) + struct.pack(">QQQ", count, num["root"], table_offset))
    out.close()
    return pos


def run(command):
    """Runs `command` in a child under /usr/bin/time; returns (wall seconds, peak RSS in MB, stdout, CPU seconds).

    GNU time, not this script's wait4: a child's ru_maxrss also counts the copy of the parent it was between
    fork and exec, so a large parent (this script after reading the archive) would inflate small children.
    """
    child = subprocess.run(["/usr/bin/time", "-f", "%e %M %U %S"] + command, capture_output=True)
    if child.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(command), child.stderr.decode()))
    wall, rss_kb, user, system = child.stderr.decode().strip().splitlines()[-1].split()
    return float(wall), int(rss_kb) / 1024, child.stdout.decode().strip(), float(user) + float(system)

def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--people", type=int, default=1_000_000)
    parser.add_argument("--text", type=int, default=990)
    parser.add_argument("--bin", default=".build-release/release/autocoding")
    parser.add_argument("--file", default="/tmp/autocoding-lazy-1g.archive")
    parser.add_argument("--runs", type=int, default=5, help="lazy runs (median reported)")
    parser.add_argument("--eager-runs", type=int, default=1, help="eager runs (median reported)")
    args = parser.parse_args()
    if not os.path.exists("/usr/bin/time"):
        sys.exit("needs GNU time (/usr/bin/time): apt-get install time")
    if not os.path.exists(args.file) or os.environ.get("REGENERATE"):
        start = time.monotonic()
        size = write_archive(args.file, args.people, args.text)
        print("wrote %s: %d bytes (%.2f GB) in %.1f s" % (args.file, size, size / 1e9, time.monotonic() - start))
    size = os.path.getsize(args.file)
    subprocess.run(["cat", args.file], stdout=subprocess.DEVNULL, check=True)  # warm the page cache for both paths
    path = "$top.root[%d].name" % (args.people * 3 // 4)
    base = sorted(run([args.bin, "--help"])[1] for _ in range(3))[1]
    print("baseline (autocoding --help): %.1f MB peak RSS" % base)
    results = {}
    for mode, extra, count in [("lazy", [], args.runs), ("eager", ["--eager"], args.eager_runs)]:
        runs = [run([args.bin, "get"] + extra + [args.file, path]) for _ in range(count)]
        # Medians: single runs on a shared machine vary by tens of percent.
        seconds = sorted(r[0] for r in runs)[len(runs) // 2]
        rss = sorted(r[1] for r in runs)[len(runs) // 2]
        cpu = sorted(r[3] for r in runs)[len(runs) // 2]
        results[mode] = (seconds, rss, runs[0][2], cpu)
        print("%-5s %8.3f s wall %8.3f s CPU %9.1f MB peak RSS (medians of %d)  -> %s" % (
            mode, seconds, cpu, rss, count, runs[0][2][:40]))
    lazy, eager = results["lazy"], results["eager"]
    if lazy[2] != eager[2]:
        sys.exit("the two paths disagree")
    print("file %d bytes; lazy/eager: wall time %.3f%%, CPU time %.3f%%, peak RSS %.3f%% (above the baseline: %.3f%%)" % (
        size, 100 * lazy[0] / eager[0], 100 * lazy[3] / eager[3], 100 * lazy[1] / eager[1],
        100 * (lazy[1] - base) / (eager[1] - base)))

if __name__ == "__main__":
    main()
