#!/bin/bash
# apps.sh - monitoring overhead on the four applications at the paper's
# sizes, as wall time AND as CPU time (never run as a test).
#
#   apps.sh BUILD BUILD_OFF [RUNS] [WORKERS] [OTHER_BUILD]
#
# BUILD: a normal build (apps/*/<app>, tools/snetmon); BUILD_OFF: the same
# tree built with -DLPEL_HOOKS=OFF (the compiled-out baseline); OTHER_BUILD
# (optional): another normal build, e.g. of the tree before a change, run
# with -m A as a further mode. Modes run interleaved (off, mon0, mon1,
# [other], off, ...), RUNS times each (default 9); printed: the median wall
# time and the median CPU time (user + system, from the shell's `times`
# around each run) of each mode, and their ratios to compiled out.
#
# Why CPU time too: see timing.sh.
# The argument sets are bench/overhead/overhead.sh's (the paper's sizes).
# Environment: APPS (default "ant des mc rt"), ARGS_<app>, FLAGS (default A).
set -eu
build=${1:?usage: apps.sh BUILD BUILD_OFF [RUNS] [WORKERS] [OTHER_BUILD]}
off=${2:?usage: apps.sh BUILD BUILD_OFF [RUNS] [WORKERS] [OTHER_BUILD]}
runs=${3:-9} workers=${4:-2} other=${5:-}
apps=${APPS:-"ant des mc rt"}
flags=${FLAGS:-A}
ARGS_ant=${ARGS_ant:-"--inputs 4 --jobs 150 --ants 16 --rounds 10"}
ARGS_des=${ARGS_des:-"--paper --kb 2000"}
ARGS_mc=${ARGS_mc:-"--paper"}
ARGS_rt=${ARGS_rt:-"--paper --inputs 60"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

. "$(dirname "$0")/timing.sh"

echo "| app | args | events | bytes/event | off wall [s] | mon0 | mon1 | off CPU [s] | mon0 | mon1 |${other:+ other mon1 wall | other CPU |}"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|${other:+---:|---:|}"
for app in $apps; do
    eval "args=\$ARGS_$app"
    for m in off mon0 mon1 other; do : >"$work/$m"; done
    i=0
    while [ $i -lt "$runs" ]; do
        # shellcheck disable=SC2086
        timed "$work/off" "$off/apps/$app/$app" -w "$workers" $args
        # shellcheck disable=SC2086
        timed "$work/mon0" "$build/apps/$app/$app" -w "$workers" $args
        rm -rf "$work/trace"
        # shellcheck disable=SC2086
        timed "$work/mon1" "$build/apps/$app/$app" -w "$workers" $args -m "$flags" --mon-dir "$work/trace"
        if [ -n "$other" ]; then
            rm -rf "$work/trace-other"
            # shellcheck disable=SC2086
            timed "$work/other" "$other/apps/$app/$app" -w "$workers" $args -m "$flags" --mon-dir "$work/trace-other"
        fi
        i=$((i + 1))
    done
    events=$("$build/tools/snetmon/snetmon" dump --count "$work/trace")
    bytes=$(cat "$work"/trace/ctf/worker-* | wc -c)
    wo=$(column 1 "$work/off"); w0=$(column 1 "$work/mon0"); w1=$(column 1 "$work/mon1")
    co=$(column 2 "$work/off"); c0=$(column 2 "$work/mon0"); c1=$(column 2 "$work/mon1")
    line="| $app | \`$args\` | $events | $(echo "$bytes $events" | awk '{printf "%.2f", $1 / $2}') | $wo | $(pct "$w0" "$wo") | $(pct "$w1" "$wo") | $co | $(pct "$c0" "$co") | $(pct "$c1" "$co") |"
    if [ -n "$other" ]; then
        line="$line $(pct "$(column 1 "$work/other")" "$wo") | $(pct "$(column 2 "$work/other")" "$co") |"
    fi
    echo "$line"
done
echo
echo "$runs interleaved runs per mode, -w $workers, medians; ratios against compiled out ($off)."
