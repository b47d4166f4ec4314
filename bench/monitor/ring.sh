#!/bin/sh
# ring.sh - monitoring overhead on lpel-bench ring (never run as a test).
#   ring.sh OFF_LPEL_BENCH ON_LPEL_BENCH [TASKS] [ROUNDS] [RUNS] [OTHER_LPEL_BENCH]
# OFF_LPEL_BENCH: bench/lpel/lpel-bench from a build with -DLPEL_HOOKS=OFF;
# ON_LPEL_BENCH: from a normal build (no -m = mon0, -m FLAGS = mon1, and
# mon1 again with MON_CLOCK=monotonic: the CLOCK_MONOTONIC fallback of the
# same binary). OTHER_LPEL_BENCH (optional): another normal build, e.g. one
# from before a change, run with -m FLAGS as a further mode.
# Interleaves the modes RUNS times and prints the median ns per hop of each,
# the ratios against compiled out and, with SNETMON=path/to/snetmon in the
# environment, the events recorded per hop and the cost per recorded event
# ((mon1 - compiled out) / events per hop). FLAGS defaults to A (env MON_FLAGS).
set -eu
off=$1 on=$2 tasks=${3:-100} rounds=${4:-1000} runs=${5:-7} other=${6:-}
flags=${MON_FLAGS:-A}
snetmon=${SNETMON:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
hop() { "$@" | awk '$1 == "lpel:" {print $2}'; }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
args="ring --ring-size $tasks --rounds $rounds --no-baseline"
i=0
while [ $i -lt "$runs" ]; do
    hop "$off" $args >>"$work/off"
    hop "$on" $args >>"$work/mon0"
    rm -rf "$work/trace"
    hop "$on" $args -m "$flags" --mon-dir "$work/trace" >>"$work/mon1"
    rm -rf "$work/trace-mono"
    MON_CLOCK=monotonic hop "$on" $args -m "$flags" --mon-dir "$work/trace-mono" >>"$work/mono"
    if [ -n "$other" ]; then
        rm -rf "$work/trace-other"
        hop "$other" $args -m "$flags" --mon-dir "$work/trace-other" >>"$work/other"
    fi
    i=$((i + 1))
done
m_off=$(median <"$work/off")
ratio() { echo "$1 $m_off" | awk '{printf "%.3f", $1/$2}'; }
per_event() { # MEDIAN TRACE: ns per recorded event
    [ -n "$snetmon" ] || return 0
    ev=$("$snetmon" dump --count "$2")
    echo "$1 $m_off $ev $tasks $rounds" |
        awk '{e = $3 / ($4 * $5); printf "  events/hop %.2f", e;
              if (e >= 0.5) printf "  ns/event %.2f", ($1 - $2) / e}'
}
line() { # LABEL FILE TRACE
    m=$(median <"$work/$2")
    echo "$1 $m  ratio $(ratio "$m")$( [ -n "$3" ] && per_event "$m" "$work/$3")"
}
echo "lpel-bench $args, $runs interleaved runs, median ns per hop"
echo "compiled out: $m_off"
line "mon0:        " mon0 ""
source=$(sed -n 's/.*"source": "\([^"]*\)".*/\1/p' "$work/trace/run.json")
line "mon1 (-m $flags, clock $source):" mon1 trace
line "mon1 (-m $flags, MON_CLOCK=monotonic):" mono trace-mono
[ -z "$other" ] || line "other mon1 (-m $flags, $other):" other trace-other
