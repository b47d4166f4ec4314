#!/bin/sh
# overhead.sh - reproduces the paper's Tables I and II for the four apps.
#
# Why a script: the measurement needs two builds (hooks compiled in and
# compiled out) and many whole-program runs, which is process orchestration,
# not C. It is a benchmark, never a test.
#
#   Table I : per app, mapping + scheduling events, messages and streams,
#             counted from a full trace (-m A) with `snetmon dump`
#   Table II: wall time of the compiled-out build (LPEL_HOOKS=OFF), mon0 (no
#             -m) and mon1 (-m A): medians of RUNS interleaved runs, the
#             overheads in %, the trace size and bytes per event
#
# usage: overhead.sh BUILD_DIR [BUILD_OFF_DIR] [RUNS] [WORKERS]
#   BUILD_DIR      a build with LPEL_HOOKS=ON (apps/*/<app>, tools/snetmon)
#   BUILD_OFF_DIR  a build with LPEL_HOOKS=OFF (default BUILD_DIR-off; it is
#                  configured and built here if it does not exist)
#   RUNS           runs per mode and app, at least 5 (default 7)
#   WORKERS        -w for every run (default 2)
# Environment: APPS (default "ant des mc rt"), ARGS_<app> (the app's options;
# defaults below), OUT (markdown output, default stdout).
set -eu

BUILD=${1:?usage: overhead.sh BUILD_DIR [BUILD_OFF_DIR] [RUNS] [WORKERS]}
BUILD_OFF=${2:-$BUILD-off}
RUNS=${3:-7}
WORKERS=${4:-2}
APPS=${APPS:-"ant des mc rt"}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
SNETMON=$BUILD/tools/snetmon/snetmon
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

[ "$RUNS" -ge 5 ] || { echo "overhead.sh: RUNS must be at least 5" >&2; exit 2; }

# Sizes that run long enough (~0.5-3 s) for the timer to matter on 2 cores:
# the paper's sizes (ant: its documented scaled-down --paper would take
# minutes per run, so fewer jobs).
ARGS_ant=${ARGS_ant:-"--inputs 4 --jobs 150 --ants 16 --rounds 10"}
ARGS_des=${ARGS_des:-"--paper --kb 2000"}
ARGS_mc=${ARGS_mc:-"--paper"}
ARGS_rt=${ARGS_rt:-"--paper --inputs 60"}

if [ ! -x "$BUILD_OFF/apps/mc/mc" ]; then
    echo "overhead.sh: building the compiled-out baseline in $BUILD_OFF" >&2
    cmake -S "$SRC" -B "$BUILD_OFF" -DWERROR=OFF -DLPEL_HOOKS=OFF >/dev/null
    cmake --build "$BUILD_OFF" -j2 --target ant des mc rt >/dev/null
fi

now() { date +%s.%N; }

# seconds APP BUILD [monitor args...]: wall time of one run.
seconds() {
    app=$1; build=$2; shift 2
    eval "args=\$ARGS_$app"
    t0=$(now)
    # shellcheck disable=SC2086
    "$build/apps/$app/$app" -w "$WORKERS" $args "$@" >/dev/null
    t1=$(now)
    echo "$t1 - $t0" | bc -l
}

median() { sort -g | awk '{v[NR]=$1} END {if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

pct() { echo "scale=4; ($1 - $2) * 100 / $2" | bc -l | awk '{printf "%.2f", $1}'; }

{
echo "| app | args | map+sched events | messages | streams | off [s] | mon0 [s] | mon1 [s] | mon0 ovh | mon1 ovh | trace | events | bytes/event |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for app in $APPS; do
    : >"$TMP/off"; : >"$TMP/mon0"; : >"$TMP/mon1"
    i=0
    while [ "$i" -lt "$RUNS" ]; do # interleaved: off, mon0, mon1, off, ...
        seconds "$app" "$BUILD_OFF" >>"$TMP/off"
        seconds "$app" "$BUILD" >>"$TMP/mon0"
        rm -rf "$TMP/trace"
        seconds "$app" "$BUILD" -m A --mon-dir "$TMP/trace" >>"$TMP/mon1"
        i=$((i + 1))
    done
    off=$(median <"$TMP/off"); mon0=$(median <"$TMP/mon0"); mon1=$(median <"$TMP/mon1")
    "$SNETMON" dump "$TMP/trace" >"$TMP/dump"
    events=$(wc -l <"$TMP/dump")
    mapsched=$(grep -cE ' (task_map|task_create|task_dispatch|task_block|task_yield|task_destroy) ' "$TMP/dump" || true)
    messages=$(grep -c ' message_written ' "$TMP/dump" || true)
    streams=$(grep ' stream_open ' "$TMP/dump" | sed 's/.*stream=\([0-9]*\).*/\1/' | sort -u | wc -l)
    bytes=$(du -sb "$TMP/trace/ctf" | cut -f1)
    eval "args=\$ARGS_$app"
    printf '| %s | `%s` | %s | %s | %s | %.3f | %.3f | %.3f | %s %% | %s %% | %s KB | %s | %.1f |\n' \
        "$app" "$args" "$mapsched" "$messages" "$streams" "$off" "$mon0" "$mon1" \
        "$(pct "$mon0" "$off")" "$(pct "$mon1" "$off")" "$((bytes / 1024))" "$events" \
        "$(echo "$bytes / $events" | bc -l)"
done
} >"${OUT:-/dev/stdout}"
