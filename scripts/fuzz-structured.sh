#!/usr/bin/env bash
# Structure-aware libFuzzer targets (issue 17): the fuzzer's bytes are a program of construction steps that
# builds keyed archives and typedstreams with the package's own writers, so most inputs are valid and reach the
# semantic layers (graphs, JSON, paths, codegen, the commands' code), judged by output, time and memory budgets
# and by differential oracles, not only by "did not crash".
#
#   scripts/fuzz-structured.sh build                      build every target (both variants)
#   scripts/fuzz-structured.sh seeds                      (re)generate the seed corpora (scripts/fuzz-seeds.py)
#   scripts/fuzz-structured.sh run TARGET SECONDS [flags] fuzz one target for SECONDS (0: replay the files given)
#   scripts/fuzz-structured.sh smoke [SECONDS]            every target for SECONDS (default 60) under ASan
#   scripts/fuzz-structured.sh campaign [RUNS]            every target for RUNS executions (default 10,000,000)
#                                                         without ASan, then a short ASan run (all targets at
#                                                         once, fork mode); prints executions and cov:/ft: of each
#   scripts/fuzz-structured.sh triage                     group every target's artifacts by oracle and place
#   scripts/fuzz-structured.sh minimize TARGET CRASH      -minimize_crash=1 on one artifact
#
# Targets (FuzzTesting/structured-<target>.swift, with FuzzTesting/Structured*.swift):
#   keyed   keyed archives → every keyed entry point and the commands json, inspect, get, codegen, batch, encode
#   typed   typedstreams   → Typedstream, TypedGraph, TypedstreamUnarchiver, IMessageText, json/inspect/batch
#   diff    differential   → native vs libplist, lazy vs eager paths, JSON → archive → JSON fixed point
#
# Variants: FUZZ_VARIANT=asan (default for run/smoke: -sanitize=fuzzer,address, libraries in .build-fuzz/lib, shared
# with scripts/fuzz.sh) or FUZZ_VARIANT=fast (-sanitize=fuzzer only, .build-fuzz/fast). Swift is memory-safe outside
# `unsafe` code, so the long runs use the fast variant for throughput; the ASan run covers the unsafe engine code.
# The commands' module (_AutoCodingCommands, with ArgumentParser and SQLite) is compiled with -enable-testing so the
# targets call the functions the commands call (`@testable import`).
#
# Oracles are the targets' own checks (an output budget of 100 × the archive + 1 MiB per command, a stage's CPU time
# within FUZZ_STAGE_SECONDS per FUZZ_STAGE_BYTES of input, 1 s per 128 KiB, differential agreement), libFuzzer's
# -rss_limit_mb=256 / -malloc_limit_mb=256 and
# -timeout=15 (seconds per input, FUZZ_TIMEOUT): a violated oracle aborts with its message. The time of each stage is
# the oracle; the timeout only catches a hang. It was 1 s until json, messages and batch ran on cyclic inputs too:
# programs of 175 and 192 bytes generate a 245 KB stream and a 791 KB archive, whose stages, each well within its
# own budget, took 1.2 s and 2.3 s together under ASan. Then 5 s, until a corpus program of 511 bytes generated a
# 1.6 MB archive whose stages take 3.4 s together under ASan in a fresh process, each within its budget, and more
# than 5 s in a fuzzing process grown to 900 MB.
# Under ASan one allocation may take 512 MB and the process 1024 MB: shadow memory, the quarantine and the allocator's
# caches count in the RSS and grow with the corpus (463 MB once the typed target had loaded 1,823 inputs; the two
# inputs that then passed 512 MB peak at 86 and 134 MB alone), so the fast variant's 256 MB is the memory oracle of
# the whole process.
# Corpora: .build-fuzz/corpus/structured-<target> (never committed); crashes: .build-fuzz/crashes/structured-<target>.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
targets=(keyed typed diff)
base=${FUZZ_BUILD_DIR:-$root/.build-fuzz}
variant=${FUZZ_VARIANT:-asan}

set_variant() {
    variant=$1
    if [[ $variant == asan ]]; then
        out=$base
        opt=(-O -g -swift-version 6 -package-name autocoding -parse-as-library -sanitize=fuzzer,address)
        memory=512 rss=1024
    else
        out=$base/fast
        opt=(-O -g -swift-version 6 -package-name autocoding -parse-as-library -sanitize=fuzzer)
        memory=256 rss=256
    fi
}
set_variant "$variant"

# shellcheck source=scripts/swiftc-modules.sh
source "$root/scripts/swiftc-modules.sh"

# Dependencies come from a SwiftPM checkout (this worktree's or the main checkout's), else from GitHub.
main_checkout=$(cd "$(git rev-parse --git-common-dir)/.." && pwd)
checkout() {
    local name=$1 tag=$2 dir
    for dir in "$root/.build/checkouts/$name" "$main_checkout/.build/checkouts/$name" "$base/$name"; do
        [[ -d $dir/Sources ]] && { echo "$dir"; return; }
    done
    git clone -q --depth 1 --branch "$tag" "https://github.com/apple/$name" "$base/$name" >&2
    echo "$base/$name"
}
link_collections() {
    if [[ ! -d $root/.build/checkouts/swift-collections && ! -e $out/swift-collections ]]; then
        mkdir -p "$out"
        ln -s "$(checkout swift-collections 1.6.0)" "$out/swift-collections"
    fi
}

# Codegen, ArgumentParser and the commands, after build_libraries (swiftc-modules.sh).
build_commands() {
    local stamp=$out/lib/.commands-stamp newest
    newest=$(find Sources/AutoCodingCodegen Sources/_AutoCodingCommands Sources/CSQLite -newer "$stamp" -type f 2>/dev/null | head -1 || true)
    [[ -f $stamp && -z $newest && $stamp -nt $out/lib/.stamp ]] && return
    local parser files=()
    parser=$(checkout swift-argument-parser 1.8.2)
    if [[ ! -f $out/lib/libArgumentParser.a ]]; then
        echo "fuzz: building ArgumentParser into $out/lib" >&2
        mapfile -d '' files < <(find "$parser/Sources/ArgumentParserToolInfo" -name '*.swift' -print0)
        module ArgumentParserToolInfo "${files[@]}"
        mapfile -d '' files < <(find "$parser/Sources/ArgumentParser" -name '*.swift' -print0)
        module ArgumentParser "${files[@]}"
    fi
    echo "fuzz: building AutoCodingCodegen and _AutoCodingCommands into $out/lib" >&2
    mapfile -d '' files < <(find Sources/AutoCodingCodegen -name '*.swift' -print0)
    module AutoCodingCodegen -I Sources/CPlistShim "${files[@]}"
    mapfile -d '' files < <(find Sources/_AutoCodingCommands -name '*.swift' -print0)
    module _AutoCodingCommands -enable-testing -I Sources/CPlistShim -I Sources/CSQLite "${files[@]}"
    touch "$stamp"
}

build_target() {
    local target=$1 binary=$out/bin/fuzz-structured-$1
    local sources=(FuzzTesting/Structured*.swift "FuzzTesting/structured-$target.swift")
    mkdir -p "$out/bin"
    if [[ -x $binary && $binary -nt $out/lib/.commands-stamp && -z $(find "${sources[@]}" -newer "$binary" | head -1) ]]; then
        return
    fi
    echo "fuzz: building $binary" >&2
    swiftc "${opt[@]}" -module-name "FuzzStructured_$target" -I "$out/lib" -I Sources/CPlistShim -I Sources/CSQLite \
        -L "$out/lib" -l_AutoCodingCommands -lAutoCodingCodegen -lArgumentParser -lArgumentParserToolInfo \
        -lAutoCodingCore -lAutoCodingFast -lOrderedCollections -lInternalCollectionsUtilities -lplist-2.0 -lsqlite3 \
        "${sources[@]}" -o "$binary"
}

build_all() {
    link_collections
    build_libraries
    build_commands
    local t
    for t in "${targets[@]}"; do build_target "$t"; done
}

seed() {
    local target=$1 dir=$base/corpus/structured-$1
    [[ -d $dir && -n $(ls -A "$dir" 2>/dev/null) ]] && return
    mkdir -p "$dir"
    python3 scripts/fuzz-seeds.py "$target" "$dir"
}

# libFuzzer's flags for every run: the time and memory oracles, and the final stats.
flags() {
    local target=$1
    echo -timeout="${FUZZ_TIMEOUT:-15}" -rss_limit_mb="${FUZZ_RSS_MB:-$rss}" -malloc_limit_mb="${FUZZ_RSS_MB:-$memory}" \
        -max_len="${FUZZ_MAX_LEN:-4096}" \
        -print_final_stats=1 -detect_leaks=0 -artifact_prefix="$base/crashes/structured-$target/"
}

run() {
    local target=$1 seconds=$2
    shift 2
    [[ " ${targets[*]} " == *" $target "* ]] || { echo "unknown target $target (${targets[*]})" >&2; exit 2; }
    link_collections
    build_libraries
    build_commands
    build_target "$target"
    local binary=$out/bin/fuzz-structured-$target
    # Cyclic graphs are freed by the targets, but corelibs Foundation values and the commands' dropped graphs may
    # leak by design: no leak checking at exit either.
    export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
    if [[ $seconds == 0 ]]; then
        SWIFT_BACKTRACE=enable=no "$binary" "$@"
        return
    fi
    seed "$target"
    mkdir -p "$base/crashes/structured-$target"
    # shellcheck disable=SC2046
    SWIFT_BACKTRACE=enable=no "$binary" $(flags "$target") -max_total_time="$seconds" "$@" \
        "$base/corpus/structured-$target"
}

# The figures of one log: executions, coverage and features (libFuzzer's final stats and last status line).
summary() {
    local target=$1 log=$2
    local runs cov ft corp crashes
    runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | tail -1 | awk '{print $2}' || true)
    # Fork mode (-fork=N) prints no final stats: its last status line counts the executions of all jobs.
    [[ -z $runs ]] && runs=$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#' || true)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | awk '{print $2}' || true)
    ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | awk '{print $2}' || true)
    corp=$(grep -o 'corp: [0-9]*/[0-9]*[a-zA-Z]*' "$log" | tail -1 | awk '{print $2}' || true)
    crashes=$(ls "$base/crashes/structured-$target" 2>/dev/null | grep -c -v '\.min$' || true)
    printf '%-8s %-6s executions %12s  cov %6s  ft %7s  corpus %-12s artifacts %s  (%s)\n' \
        "$target" "$variant" "${runs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$crashes" "$log"
}

# Without ASan, libFuzzer's timeout handler (SIGALRM) can deadlock in malloc when the alarm lands inside malloc; in
# fork mode the parent then waits for ever. This watchdog kills (SIGKILL, which fork mode counts as a crash and
# goes on) a fork-mode job of the given runs that sleeps on a futex with no CPU progress for 40 s. The jobs are
# the fuzzers started through `sh -c` by a fuzzer: the parent fuzzer itself sleeps while its job runs, and
# killing it (as this watchdog did until November 26) ended that target's run.
watchdog() {
    local -A seen=()
    local run fuzzer shell child cpu
    while sleep 40; do
        for run in "$@"; do
            for child in $(for fuzzer in $(pgrep -P "$run" 2>/dev/null); do
                for shell in $(pgrep -P "$fuzzer" 2>/dev/null); do pgrep -P "$shell" 2>/dev/null; done
            done); do
                [[ -r /proc/$child/stat ]] || continue
                cpu=$(awk '{print $14 + $15}' "/proc/$child/stat")
                if [[ $(cat "/proc/$child/wchan" 2>/dev/null) == futex_do_wait && ${seen[$child]:-} == "$cpu" ]]; then
                    echo "fuzz: watchdog: killing deadlocked job $child of run $run" >&2
                    kill -9 "$child" 2>/dev/null || true
                fi
                seen[$child]=$cpu
            done
        done
    done
}

mode=${1:?usage: scripts/fuzz-structured.sh build|seeds|run|smoke|campaign|minimize ...}
shift
case $mode in
libs)
    link_collections; build_libraries; build_commands
    ;;
build)
    set_variant asan; build_all
    set_variant fast; build_all
    ;;
seeds)
    for t in "${targets[@]}"; do rm -rf "$base/corpus/structured-$t"; seed "$t"; done
    ;;
run)
    run "$@"
    ;;
smoke)
    # Fork mode, going on after a finding, so that one run collects several; FUZZ_TIMEOUT raises the wall-clock
    # timeout on a loaded machine (the targets' own time oracle counts CPU time).
    seconds=${1:-60}
    mkdir -p "$base/logs"
    for t in "${targets[@]}"; do
        log=$base/logs/smoke-$t.log
        run "$t" "$seconds" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 >"$log" 2>&1 || true
        summary "$t" "$log"
    done
    ;;
campaign)
    # Every target for RUNS executions (or FUZZ_MAX_SECONDS, default a day) without ASan, all targets at once, in
    # fork mode so that a finding is saved and the run goes on (-ignore_crashes); then FUZZ_ASAN_SECONDS (default
    # 300) of each under ASan, all at once. Prints each run's executions, coverage and features, and artifacts.
    runs=${1:-10000000}
    mkdir -p "$base/logs"
    keep=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
    for v in fast asan; do
        set_variant "$v"
        link_collections
        build_libraries
        build_commands
        for t in "${targets[@]}"; do build_target "$t"; done
        pids=()
        for t in "${targets[@]}"; do
            if [[ $v == fast ]]; then
                run "$t" "${FUZZ_MAX_SECONDS:-86400}" -runs="$runs" "${keep[@]}" >"$base/logs/campaign-$v-$t.log" 2>&1 &
            else
                run "$t" "${FUZZ_ASAN_SECONDS:-300}" "${keep[@]}" >"$base/logs/campaign-$v-$t.log" 2>&1 &
            fi
            pids+=($!)
        done
        watchdog "${pids[@]}" &
        dog=$!
        wait "${pids[@]}"
        kill "$dog" 2>/dev/null || true
        for t in "${targets[@]}"; do summary "$t" "$base/logs/campaign-$v-$t.log"; done
    done
    ;;
triage)
    set_variant fast
    for t in "${targets[@]}"; do
        dir=$base/crashes/structured-$t
        [[ -n $(ls -A "$dir" 2>/dev/null) ]] || continue
        echo "== $t"
        build_target "$t"
        python3 scripts/fuzz-triage.py "$out/bin/fuzz-structured-$t" "$dir"/*
    done
    ;;
minimize)
    target=$1 crash=$2
    shift 2
    run "$target" 0 -minimize_crash=1 -runs=20000 -timeout=1 -rss_limit_mb="$memory" -malloc_limit_mb="$memory" \
        -detect_leaks=0 -exact_artifact_path="$crash.min" "$crash" "$@"
    ;;
*)
    echo "unknown mode $mode" >&2
    exit 2
    ;;
esac
