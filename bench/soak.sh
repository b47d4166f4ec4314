#!/usr/bin/env bash
# soak.sh - runs each application monitored (-m A) many times in a row under
# AddressSanitizer + UndefinedBehaviorSanitizer and counts the failures
# (expected: 0). A soak finds what one run in a test suite does not: rare
# races, leaks on unusual interleavings, traces cut short now and then.
#
# A run fails when any of these holds (the first one is its reason):
#   exit    the application exits non-zero (each runs with --check, which
#           verifies its result, so a wrong answer fails too)
#   timeout it takes longer than TIMEOUT seconds (a hang)
#   sanitizer  its stderr holds an ASan, UBSan or LeakSanitizer report
#   trace   `snetmon dump` does not read its trace completely, or run.json
#           does not say "complete": true
# Each failing run's trace and output are kept in OUT/<app>-<run>/.
#
# usage: bench/soak.sh [RUNS] [APPS...]      (default: 100 ant des mc rt)
# env:   BUILD (default build/asan; built if missing), OUT (default
#        build/soak), TIMEOUT (default 300), WORKERS (default: one per core)
# Prints one line per app: runs, failures, total and median seconds per run.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-100}
shift || true
apps=("$@")
[ ${#apps[@]} -gt 0 ] || apps=(ant des mc rt)
build=${BUILD:-build/asan}
out=${OUT:-build/soak}
timeout_s=${TIMEOUT:-300}
workers=${WORKERS:-$(nproc)}

if ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then
    echo "soak.sh: RUNS must be a positive number, not '$runs'" >&2
    exit 2
fi
for app in "${apps[@]}"; do
    case "$app" in ant|des|mc|rt) ;; *) echo "soak.sh: unknown app '$app' (ant des mc rt)" >&2; exit 2 ;; esac
done
if [ ! -x "$build/tools/snetmon/snetmon" ] || [ ! -x "$build/apps/mc/mc" ]; then
    bash scripts/deps.sh
    cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWERROR=ON \
        -DSANITIZE=address,undefined >/dev/null
fi
cmake --build "$build" -j "$(nproc)" --target ant des mc rt snetmon >/dev/null
snetmon=$build/tools/snetmon/snetmon

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
rm -rf "$out"
mkdir -p "$out"
work=$out/run

now() { date +%s.%N; }
median() { sort -g | awk '{v[NR]=$1} END {if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

# Runs app once into $work; prints the reason it failed, nothing if it passed.
run_once() {
    local app=$1 rc=0
    rm -rf "$work" && mkdir -p "$work"
    timeout "$timeout_s" "$build/apps/$app/$app" -w "$workers" --check -m A --mon-dir "$work/trace" \
        >"$work/stdout" 2>"$work/stderr" || rc=$?
    if [ $rc -eq 124 ]; then echo "timeout"; return; fi
    if grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$work/stderr"; then
        echo "sanitizer"; return
    fi
    if [ $rc -ne 0 ]; then echo "exit $rc"; return; fi
    if ! "$snetmon" dump "$work/trace" >/dev/null 2>"$work/dump.err" || [ -s "$work/dump.err" ]; then
        echo "trace: $(head -1 "$work/dump.err")"; return
    fi
    grep -q '"complete": true' "$work/trace/run.json" || echo "trace: run.json not complete"
}

printf '%-4s %6s %9s %10s %12s\n' app runs failures total_s median_s
total_fail=0
for app in "${apps[@]}"; do
    fails=0
    : >"$out/$app.times"
    t_app=$(now)
    for ((i = 1; i <= runs; i++)); do
        t0=$(now)
        why=$(run_once "$app")
        t1=$(now)
        echo "$t1 - $t0" | bc -l >>"$out/$app.times"
        if [ -n "$why" ]; then
            fails=$((fails + 1))
            mv "$work" "$out/$app-$i"
            echo "soak.sh: $app run $i failed: $why (kept in $out/$app-$i)" >&2
        fi
    done
    total=$(echo "$(now) - $t_app" | bc -l)
    printf '%-4s %6d %9d %10.1f %12.2f\n' "$app" "$runs" "$fails" "$total" "$(median <"$out/$app.times")"
    total_fail=$((total_fail + fails))
done
rm -rf "$work"
[ $total_fail -eq 0 ]
