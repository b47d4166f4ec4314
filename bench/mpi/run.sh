#!/usr/bin/env bash
# run.sh [BUILD_DIR] [RUNS] - the figures of docs/BENCHMARKS.md, "Across MPI
# ranks" (issue 13), each against a baseline measured in the same run:
#
#   1. stream: S-Net records/s from rank 0 to rank 1 against raw MPI
#      messages/s of the same size (mpi-bench stream, medians of RUNS);
#      one-way latency against half an MPI ping-pong (mpi-bench latency);
#   2. rt: `mpirun -n 2 rt --mpi -w 1` (2 ranks x 1 worker) against
#      `mpirun -n 1 rt --mpi -w 2` (1 rank x 2 workers), --paper sizes, RUNS
#      of each interleaved, median wall and CPU time (the same mpirun start
#      on both sides);
#   3. clock alignment: a monitored pipeline over 2 ranks moving 10^5
#      records between them (dist_demo pipeline -n 50000: each record
#      crosses twice), read by snetmon: violations (received before sent)
#      on the recorded clocks, after the linear correction and after the
#      fix-up; once as recorded and once with rank 1's clock skewed (5 ms,
#      300 ppm, MON_CLOCK_SKEW); and what reading the ranks as one trace
#      costs: `snetmon dump --count DIR` against the two rank directories
#      read alone, one after the other (RUNS times, interleaved).
#
# BUILD_DIR defaults to build/release (configured with -DCMAKE_BUILD_TYPE=
# Release if missing). Never a test: it only measures.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build/release}
runs=${2:-5}
if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" -j2 --target mpi-bench rt dist_demo snetmon >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$root/bench/monitor/timing.sh"
mpi() { sh "$root/tests/distrib/mpi_run.sh" "$@"; }

echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "## 1. stream and latency"
mpi 2 "$build/bench/mpi/mpi-bench" stream --repeat "$runs" -w 1
mpi 2 "$build/bench/mpi/mpi-bench" stream --repeat "$runs" -w 1 --window 64  # the old window
mpi 2 "$build/bench/mpi/mpi-bench" latency --repeat "$runs" -w 1

echo "## 2. rt, --paper: 2 ranks x 1 worker against 1 rank x 2 workers ($runs runs each, interleaved)"
rt=$build/apps/rt/rt
for i in $(seq "$runs"); do
    timed "$work/rt-2x1" sh "$root/tests/distrib/mpi_run.sh" 2 "$rt" --mpi --paper -w 1
    timed "$work/rt-1x2" sh "$root/tests/distrib/mpi_run.sh" 1 "$rt" --mpi --paper -w 2
    timed "$work/rt-plain" "$rt" --paper -w 2
done
w21=$(column 1 "$work/rt-2x1") w12=$(column 1 "$work/rt-1x2")
c21=$(column 2 "$work/rt-2x1") c12=$(column 2 "$work/rt-1x2")
echo "2 ranks x 1 worker: median wall $w21 s (CPU $c21 s); 1 rank x 2 workers: median wall $w12 s (CPU $c12 s)"
echo "2x1 against 1x2: wall $(pct "$w21" "$w12"), CPU $(pct "$c21" "$c12")"
echo "(rt --paper -w 2 without MPI, for reference: median wall $(column 1 "$work/rt-plain") s, CPU $(column 2 "$work/rt-plain") s)"
for f in rt-2x1 rt-1x2 rt-plain; do echo "  $f wall: $(awk '{printf "%s ", $1}' "$work/$f")"; done

echo "## 3. clock alignment on 10^5 cross-rank messages"
demo=$build/tests/distrib/dist_demo
for skew in "" "1:-5000000:300"; do
    rm -rf "$work/trace"
    MON_CLOCK_SKEW=$skew mpi 2 "$demo" --mpi pipeline -n 50000 -m A --mon-dir "$work/trace" \
        >/dev/null 2>"$work/err"
    echo "MON_CLOCK_SKEW=${skew:-(none)}:"
    "$build/tools/snetmon/snetmon" dump "$work/trace" | grep '^#' | sed 's/^#/ /'
done
snetmon=$build/tools/snetmon/snetmon
alone() { "$snetmon" dump --count "$work/trace/rank-0" && "$snetmon" dump --count "$work/trace/rank-1"; }
for i in $(seq "$runs"); do
    timed "$work/read-merged" "$snetmon" dump --count "$work/trace"
    timed "$work/read-alone" alone
done
events=$("$snetmon" dump --count "$work/trace")
echo "reading the $events events: merged median $(column 1 "$work/read-merged") s, the ranks alone $(column 1 "$work/read-alone") s: $(factor "$(column 1 "$work/read-merged")" "$(column 1 "$work/read-alone")")"

echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
