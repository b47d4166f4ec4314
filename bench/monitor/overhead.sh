#!/bin/sh
# overhead.sh - monitoring overhead and trace figures (never run as a test).
#   overhead.sh OFF_PIPELINE ON_PIPELINE SNETMON [ITEMS] [RUNS] [WORKERS] [OTHER_PIPELINE]
# OFF_PIPELINE: tests/monitor/mon_pipeline from a build with -DLPEL_HOOKS=OFF
# (compiled out); ON_PIPELINE: the same program from a normal build (run
# without -m = mon0, with -m A = mon1, and with -m A and MON_CLOCK=monotonic:
# the CLOCK_MONOTONIC fallback); OTHER_PIPELINE (optional): another normal
# build, e.g. from before a change, with -m A. Runs the modes interleaved,
# RUNS times each, and prints the median wall time of each, the ratios
# against compiled out, ns per recorded event, bytes per event, and events/s
# of `snetmon dump` against `babeltrace2` on the same trace.
set -eu
off=$1 on=$2 snetmon=$3 items=${4:-200000} runs=${5:-7} workers=${6:-2} other=${7:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

now() { date +%s%N; }
time_ns() { t0=$(now); "$@" >/dev/null; t1=$(now); echo $((t1 - t0)); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

i=0
while [ $i -lt "$runs" ]; do
    time_ns "$off" "$items" "$workers" >>"$work/off"
    time_ns "$on" "$items" "$workers" >>"$work/mon0"
    rm -rf "$work/trace"
    time_ns "$on" -m A --mon-dir "$work/trace" "$items" "$workers" >>"$work/mon1"
    rm -rf "$work/trace-mono"
    MON_CLOCK=monotonic time_ns "$on" -m A --mon-dir "$work/trace-mono" "$items" "$workers" >>"$work/mono"
    if [ -n "$other" ]; then
        rm -rf "$work/trace-other"
        time_ns "$other" -m A --mon-dir "$work/trace-other" "$items" "$workers" >>"$work/other"
    fi
    i=$((i + 1))
done
m_off=$(median <"$work/off"); m0=$(median <"$work/mon0"); m1=$(median <"$work/mon1")
echo "items=$items workers=$workers runs=$runs (median wall time, ns)"
echo "compiled out: $m_off"
echo "mon0:         $m0  ratio $(echo "$m0 $m_off" | awk '{printf "%.3f", $1/$2}')"
per_event() { # MEDIAN TRACE
    ev=$("$snetmon" dump --count "$2")
    echo "$1 $m_off $ev" | awk '{printf "events %d, ns per recorded event (mode - compiled out) / events %.1f", $3, ($1-$2)/$3}'
}
source=$(sed -n 's/.*"source": "\([^"]*\)".*/\1/p' "$work/trace/run.json")
echo "mon1 (-m A, clock $source):  $m1  ratio $(echo "$m1 $m_off" | awk '{printf "%.3f", $1/$2}')  $(per_event "$m1" "$work/trace")"
mm=$(median <"$work/mono")
echo "mon1 (-m A, MON_CLOCK=monotonic):  $mm  ratio $(echo "$mm $m_off" | awk '{printf "%.3f", $1/$2}')  $(per_event "$mm" "$work/trace-mono")"
if [ -n "$other" ]; then
    mo=$(median <"$work/other")
    echo "other mon1 (-m A, $other):  $mo  ratio $(echo "$mo $m_off" | awk '{printf "%.3f", $1/$2}')  $(per_event "$mo" "$work/trace-other")"
fi

events=$("$snetmon" dump "$work/trace" | wc -l)
bytes=$(cat "$work"/trace/ctf/worker-* | wc -c)
echo "events=$events bytes=$bytes bytes/event=$(echo "$bytes $events" | awk '{printf "%.2f", $1/$2}')"
i=0
while [ $i -lt "$runs" ]; do
    time_ns "$snetmon" dump --count "$work/trace" >>"$work/count"
    time_ns "$snetmon" dump --count "$work/trace-mono" >>"$work/count-mono"
    time_ns "$snetmon" dump "$work/trace" >>"$work/dump"
    time_ns babeltrace2 "$work/trace" >>"$work/bt"
    i=$((i + 1))
done
mc=$(median <"$work/count"); md=$(median <"$work/dump"); mb=$(median <"$work/bt")
echo "reader (snetmon dump --count): $(echo "$events $mc" | awk '{printf "%.0f", $1/($2/1e9)}') events/s; ratio to babeltrace2 $(echo "$mb $mc" | awk '{printf "%.1f", $1/$2}')x"
mcm=$(median <"$work/count-mono"); evm=$("$snetmon" dump --count "$work/trace-mono")
echo "reader on the MON_CLOCK=monotonic trace (no tick conversion): $(echo "$evm $mcm" | awk '{printf "%.0f", $1/($2/1e9)}') events/s"
echo "snetmon dump (formatted lines): $(echo "$events $md" | awk '{printf "%.0f", $1/($2/1e9)}') events/s; babeltrace2: $(echo "$events $mb" | awk '{printf "%.0f", $1/($2/1e9)}') events/s; ratio $(echo "$mb $md" | awk '{printf "%.1f", $1/$2}')x"
