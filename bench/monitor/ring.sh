#!/bin/sh
# ring.sh - monitoring overhead on lpel-bench ring (never run as a test).
#   ring.sh OFF_LPEL_BENCH ON_LPEL_BENCH [TASKS] [ROUNDS] [RUNS]
# OFF_LPEL_BENCH: bench/lpel/lpel-bench from a build with -DLPEL_HOOKS=OFF;
# ON_LPEL_BENCH: from a normal build (no -m = mon0, -m FLAGS = mon1).
# Interleaves the modes RUNS times and prints the median ns per hop of each
# and the ratios against compiled out. FLAGS defaults to A (env MON_FLAGS).
set -eu
off=$1 on=$2 tasks=${3:-100} rounds=${4:-1000} runs=${5:-7}
flags=${MON_FLAGS:-A}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
hop() { "$@" | awk '$1 == "lpel:" {print $2}'; }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
args="ring --tasks $tasks --rounds $rounds --no-baseline"
i=0
while [ $i -lt "$runs" ]; do
    hop "$off" $args >>"$work/off"
    hop "$on" $args >>"$work/mon0"
    rm -rf "$work/trace"
    hop "$on" $args -m "$flags" -o "$work/trace" >>"$work/mon1"
    i=$((i + 1))
done
m_off=$(median <"$work/off"); m0=$(median <"$work/mon0"); m1=$(median <"$work/mon1")
echo "lpel-bench $args, $runs interleaved runs, median ns per hop"
echo "compiled out: $m_off"
echo "mon0:         $m0  ratio $(echo "$m0 $m_off" | awk '{printf "%.3f", $1/$2}')"
echo "mon1 (-m $flags): $m1  ratio $(echo "$m1 $m_off" | awk '{printf "%.3f", $1/$2}')"
