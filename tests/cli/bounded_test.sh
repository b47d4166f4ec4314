#!/bin/sh
# bounded_test.sh SNETMON WORK ANT DES MC RT SNET_BENCH - the bounded
# analysis of snetmon metrics and wcp (the default: the message graph
# analysed as the trace is read, what grows with the trace spilled to
# temporary files) prints what the reference analysis (--in-memory, the
# whole graph in memory) prints, byte for byte, on a trace of every app and
# on a trace of several runs, with caches of 4 KiB so that the records
# really go through the temporary files. (The multi-rank trace is compared
# in tests/distrib/mpi_test.sh, where MPI is.)
set -u
snetmon=$1 work=$2 ant=$3 des=$4 mc=$5 rt=$6 bench=$7
rm -rf "$work"
mkdir -p "$work/tmp"
fail() { echo "FAIL: $*"; exit 1; }

make_trace() { # NAME PROGRAM ARGS...
    name=$1
    shift
    "$@" -m A --mon-dir "$work/$name" >/dev/null || fail "$name: the run failed"
}
make_trace ant "$ant" -w 2
make_trace des "$des" -w 2
make_trace mc "$mc" -w 2 --inputs 16
make_trace rt "$rt" -w 2
make_trace runs "$bench" pipeline -w 2 --messages 300 --repeat 3 --side snet

compared=0
for t in ant des mc rt runs; do
    for cmd in "metrics" "metrics --json" "metrics --csv" "metrics --cpu-time --json" \
               "wcp" "wcp --json"; do
        # shellcheck disable=SC2086 # cmd is a command and its options
        "$snetmon" $cmd --in-memory "$work/$t" >"$work/ref" || fail "$t: $cmd --in-memory"
        # shellcheck disable=SC2086
        TMPDIR=$work/tmp "$snetmon" $cmd --max-memory 4K "$work/$t" >"$work/bounded" ||
            fail "$t: $cmd --max-memory 4K"
        cmp -s "$work/ref" "$work/bounded" || {
            diff "$work/ref" "$work/bounded" | head -20
            fail "$t: $cmd: the bounded analysis differs from the reference"
        }
        [ -s "$work/ref" ] || fail "$t: $cmd printed nothing"
        compared=$((compared + 1))
    done
done
# the temporary files are gone with the command
[ -z "$(ls -A "$work/tmp")" ] || fail "temporary files left in $work/tmp"
"$snetmon" metrics "$work/runs" >"$work/runs.txt" || fail "metrics of the runs"
grep -q "^Runs: 3 " "$work/runs.txt" || fail "the trace of several runs does not hold 3 runs"
echo "$compared outputs identical"
