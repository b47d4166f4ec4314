#!/bin/bash
# cpu.sh - what the CPU-time readings of flag C cost (never run as a test).
#
#   cpu.sh BUILD [RUNS [OTHER]]
#
# Two modes of the same binaries, interleaved RUNS times (default 9): the
# baseline -m mtWTSML (all of A but C) and -m A (C included). On
#   lpel-bench ring --ring-size 100 --rounds 1000: ns per hop, the worst
#     case (a task switch every ~30 ns, each one checking whether a reading
#     is due; one reading, two system calls, per ms and worker);
#   mc --paper and des --paper, 2 workers: the process's CPU time and wall
#     time (timing.sh).
# Prints the medians, C's cost as a ratio to the baseline of the same
# invocation, the readings taken per second of worker time (cpu_time
# events in the -m A trace), and the load average before and after.
# Then, with valgrind, the instructions per ring hop (callgrind, exact
# whatever the load) of both modes, and of another build's (OTHER, e.g. one
# of main) both modes beside them.
set -eu
build=${1:?usage: cpu.sh BUILD [RUNS [OTHER]]}
runs=${2:-9}
other=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/timing.sh"
snetmon=$build/tools/snetmon/snetmon
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

hop() { "$@" | awk '$1 == "lpel:" {print $2}'; }
ring="$build/bench/lpel/lpel-bench ring --ring-size 100 --rounds 1000 --no-baseline"
: >"$work/ring.base"; : >"$work/ring.c"
for ((i = 0; i < runs; i++)); do
    rm -rf "$work/t"; hop $ring -m mtWTSML --mon-dir "$work/t" >>"$work/ring.base"
    rm -rf "$work/t"; hop $ring -m A --mon-dir "$work/t" >>"$work/ring.c"
done
base=$(median <"$work/ring.base") c=$(median <"$work/ring.c")
echo "ring: ns/hop -m mtWTSML $base, -m A $c: $(pct "$c" "$base"); $("$snetmon" dump "$work/t" | grep -c ' cpu_time ') readings"

for app in mc des; do
    cmd="$build/apps/$app/$app --paper -w 2"
    : >"$work/$app.base"; : >"$work/$app.c"
    for ((i = 0; i < runs; i++)); do
        rm -rf "$work/t"; timed "$work/$app.base" $cmd -m mtWTSML --mon-dir "$work/t"
        rm -rf "$work/t"; timed "$work/$app.c" $cmd -m A --mon-dir "$work/t"
    done
    bw=$(column 1 "$work/$app.base") bc=$(column 2 "$work/$app.base")
    cw=$(column 1 "$work/$app.c") cc=$(column 2 "$work/$app.c")
    readings=$("$snetmon" dump "$work/t" | grep -c ' cpu_time ')
    echo "$app --paper: CPU -m mtWTSML $bc s, -m A $cc s: $(pct "$cc" "$bc"); wall $bw s, $cw s:" \
         "$(pct "$cw" "$bw"); $readings readings in the last -m A run"
done

if command -v valgrind >/dev/null; then
    echo "instructions per ring hop (callgrind; the difference of 250 and 50 rounds)"
    for b in "$build" $other; do
        for f in mtWTSML A; do
            n=$(ring_ir_per_hop "$b/bench/lpel/lpel-bench" -m $f --mon-dir "$work/ir")
            echo "  $b -m $f: $n Ir/hop, $("$snetmon" dump "$work/ir" | grep -c ' cpu_time ') readings in 250 rounds"
        done
    done
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
