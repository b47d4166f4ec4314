#!/bin/sh
# make_trace_seeds.sh - regenerate the seeds of the `trace` fuzz target
# (corpus/trace/*) and its fixed metadata (trace_metadata) from short real
# runs of the four apps, after a change of the trace format.
#
#   sh tests/fuzz/make_trace_seeds.sh BUILD_DIR
#
# BUILD_DIR is a normal build (apps/*, hooks compiled in). Each seed is
# the worker logs of one run joined by WORKERLOG (fuzz_trace.c); the runs
# use the CLOCK_MONOTONIC trace clock, which trace_metadata declares. Some
# seeds are broken on purpose: one log under the wrong file number
# (mc-one-worker), a log cut in half (mc-truncated); one brings its own
# metadata (mc-own-metadata). The two regression inputs of the target
# (regressions/trace, see README.md) are remade in the new format too:
# task-name-not-utf8 (a real log with a byte of a task name made 0xff)
# and no-worker-rows (a metadata file alone: one empty log, so the LPEL
# lifter gets no worker row). When BUILD_DIR was built with MPI, mc also
# runs on 2 ranks (tests/distrib/mpi_run.sh) and each rank's logs become a
# seed (mc-mpi-rank0, mc-mpi-rank1): the cross-rank events 23-26, and
# message ids of rank 1 (docs/LOGFORMAT.md section 8).
set -eu
build=${1:?usage: make_trace_seeds.sh BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
out=$here/corpus/trace
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export MON_CLOCK=monotonic

run() { # NAME APP ARGS...: run APP with ARGS, trace into $work/NAME
    name=$1 app=$2
    shift 2
    "$build/apps/$app/$app" "$@" --mon-dir "$work/$name" >/dev/null
}
join_logs() { # NAME [FILE...]: the files joined by WORKERLOG into the seed NAME
    name=$1
    shift
    first=1
    for f in "$@"; do
        [ "$first" = 1 ] || printf 'WORKERLOG'
        cat "$f"
        first=0
    done >"$out/$name"
}
logs() { ls "$work/$1"/ctf/worker-* | sort -t- -k2 -n; }

run ant-A ant -w 2 --inputs 1 --jobs 4 --ants 2 --rounds 1 -m A
run des-A des -w 2 --inputs 2 --kb 8 -m A
run des-TM des -w 1 --inputs 2 --kb 8 -m TM
run mc-A mc -w 2 --inputs 2 --paths 64 --batch 32 -m A
run mc-WL mc -w 3 --inputs 2 --paths 64 --batch 32 -m WL
run mc-mt mc -w 2 --inputs 2 --paths 64 --batch 32 -m mt
run rt-A rt -w 2 --inputs 1 --size 8x8 -m A

mpi=
MPIEXEC=$(sed -n 's/^MPIEXEC_EXECUTABLE:FILEPATH=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
export MPIEXEC
if [ -n "$MPIEXEC" ] &&
    sh "$here/../distrib/mpi_run.sh" 2 "$build/apps/mc/mc" --mpi -w 2 --inputs 2 --paths 64 \
        --batch 32 -m A --mon-dir "$work/mc-mpi" >/dev/null 2>"$work/mpi.err"; then
    mpi=1
else
    echo "make_trace_seeds: no 2-rank run of mc (no MPI in $build?), so no mc-mpi-rank* seeds:" \
        "$(head -1 "$work/mpi.err" 2>/dev/null)" >&2
fi

rm -f "$out"/*
for s in ant-A des-A des-TM mc-A mc-WL mc-mt rt-A; do
    # shellcheck disable=SC2046
    join_logs "$s" $(logs "$s")
done
if [ -n "$mpi" ]; then
    for r in 0 1; do
        # shellcheck disable=SC2046
        join_logs "mc-mpi-rank$r" $(logs "mc-mpi/rank-$r")
    done
fi
join_logs mc-one-worker "$work/mc-A/ctf/worker-1"
size=$(wc -c <"$work/mc-A/ctf/worker-0")
head -c $((size / 2)) "$work/mc-A/ctf/worker-0" >"$work/half"
join_logs mc-truncated "$work/half" "$work/mc-A/ctf/worker-1"
join_logs mc-own-metadata "$work/mc-A/ctf/metadata" "$work/mc-A/ctf/worker-0" \
    "$work/mc-A/ctf/worker-1"
cp "$work/mc-A/ctf/metadata" "$here/trace_metadata"

reg=$here/regressions/trace
cp "$work/rt-A/ctf/worker-0" "$reg/task-name-not-utf8"
at=$(grep -obUa 'S[0-9]:' "$reg/task-name-not-utf8" | head -1 | cut -d: -f1)
[ -n "$at" ] || { echo "make_trace_seeds: no task name in rt-A's worker-0" >&2; exit 1; }
printf '\377' | dd of="$reg/task-name-not-utf8" bs=1 seek=$((at + 1)) conv=notrunc 2>/dev/null
cp "$work/mc-A/ctf/metadata" "$reg/no-worker-rows"
ls -l "$out" "$reg"
