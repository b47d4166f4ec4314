#!/bin/bash
# kit.sh - the container kit (kit/) against the hand-written maps and
# growing arrays it replaced, on the programs whose hot paths used them
# (never run as a test):
#   mc        apps/mc, 6000 requests of 100 paths on 2 workers: the split's
#             replica map (one lookup per record) and the keyed synchro-cell
#   decode    snetmon dump --count on mc's -m A trace: the reader's table of
#             stream ends (one lookup per stream event)
#   metrics   snetmon metrics on that trace: the lifter's task, waiting and
#             stream maps, the string table, the graph's columns
#   render    snetmon render of that trace: the timeline's task index
#   graph     snetmon render --graph: the network graph's id maps
#   lift      wfb-bench lift 1000000: the lifter alone on a generated trace
#
#   kit.sh OLD_BUILD NEW_BUILD [RUNS]
#
# OLD_BUILD is a release build of the tree before the kit (e.g. of
# `git archive` of the commit before it), NEW_BUILD one with it, both
# RelWithDebInfo. Each command runs RUNS times (default 7) for each build,
# interleaved old/new so that both see the same load; printed are the
# median CPU seconds (user + system: the machine is shared) of each and the
# ratio new/old, and the load average before and after.
set -eu
old=${1:?usage: kit.sh OLD_BUILD NEW_BUILD [RUNS]}
new=${2:?usage: kit.sh OLD_BUILD NEW_BUILD [RUNS]}
runs=${3:-7}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/../monitor/timing.sh"

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
# One trace, written by the new build (the format is the same), read by both.
"$new/apps/mc/mc" --inputs 6000 --paths 100 --batch 100 -w 2 -m A --mon-dir "$work/trace" >/dev/null

bench() { # NAME ARGS... (relative to the build: first word is the program)
    local name=$1 prog=$2
    shift 2
    for i in $(seq "$runs"); do
        for side in old new; do
            local b=$old
            [ $side = new ] && b=$new
            timed "$work/$name.$side" "$b/$prog" "$@"
        done
    done
    local o n
    o=$(column 2 "$work/$name.old")
    n=$(column 2 "$work/$name.new")
    printf '| %s | %s | %s | %s |\n' "$name" "$o" "$n" "$(echo "$n $o" | awk '{printf "%.3f", $1 / $2}')"
}

echo "| benchmark | old CPU s | kit CPU s | kit / old |"
echo "|---|---|---|---|"
bench mc apps/mc/mc --inputs 6000 --paths 100 --batch 100 -w 2
bench decode tools/snetmon/snetmon dump --count "$work/trace"
bench metrics tools/snetmon/snetmon metrics "$work/trace"
bench render tools/snetmon/snetmon render "$work/trace" -o "$work/u.png"
bench graph tools/snetmon/snetmon render --graph "$work/trace" -o "$work/g.dot"
bench lift bench/wfb/wfb-bench lift 1000000
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "runs: $runs per build, medians; trace: $("$new/tools/snetmon/snetmon" dump --count "$work/trace") events"
