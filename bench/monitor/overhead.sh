#!/bin/sh
# overhead.sh - monitoring overhead and trace figures (never run as a test).
#   overhead.sh OFF_PIPELINE ON_PIPELINE SNETMON [ITEMS] [RUNS] [WORKERS]
# OFF_PIPELINE: tests/monitor/mon_pipeline from a build with -DLPEL_HOOKS=OFF
# (compiled out); ON_PIPELINE: the same program from a normal build (run
# without -m = mon0, with -m A = mon1). Runs the three interleaved, RUNS
# times each, and prints the median wall time of each, the ratios against
# compiled out, bytes per event, and events/s of `snetmon dump` against
# `babeltrace2` on the same trace.
set -eu
off=$1 on=$2 snetmon=$3 items=${4:-200000} runs=${5:-7} workers=${6:-2}
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
    time_ns "$on" -m A -o "$work/trace" "$items" "$workers" >>"$work/mon1"
    i=$((i + 1))
done
m_off=$(median <"$work/off"); m0=$(median <"$work/mon0"); m1=$(median <"$work/mon1")
echo "items=$items workers=$workers runs=$runs (median wall time, ns)"
echo "compiled out: $m_off"
echo "mon0:         $m0  ratio $(echo "$m0 $m_off" | awk '{printf "%.3f", $1/$2}')"
echo "mon1 (-m A):  $m1  ratio $(echo "$m1 $m_off" | awk '{printf "%.3f", $1/$2}')"

events=$("$snetmon" dump "$work/trace" | wc -l)
bytes=$(cat "$work"/trace/ctf/worker-* | wc -c)
echo "events=$events bytes=$bytes bytes/event=$(echo "$bytes $events" | awk '{printf "%.2f", $1/$2}')"
echo "ns per recorded event (mon1 - compiled out) / events: $(echo "$m1 $m_off $events" | awk '{printf "%.1f", ($1-$2)/$3}')"
i=0
while [ $i -lt "$runs" ]; do
    time_ns "$snetmon" dump --count "$work/trace" >>"$work/count"
    time_ns "$snetmon" dump "$work/trace" >>"$work/dump"
    time_ns babeltrace2 "$work/trace" >>"$work/bt"
    i=$((i + 1))
done
mc=$(median <"$work/count"); md=$(median <"$work/dump"); mb=$(median <"$work/bt")
echo "reader (snetmon dump --count): $(echo "$events $mc" | awk '{printf "%.0f", $1/($2/1e9)}') events/s; ratio to babeltrace2 $(echo "$mb $mc" | awk '{printf "%.1f", $1/$2}')x"
echo "snetmon dump (formatted lines): $(echo "$events $md" | awk '{printf "%.0f", $1/($2/1e9)}') events/s; babeltrace2: $(echo "$events $mb" | awk '{printf "%.0f", $1/($2/1e9)}') events/s; ratio $(echo "$mb $md" | awk '{printf "%.1f", $1/$2}')x"
