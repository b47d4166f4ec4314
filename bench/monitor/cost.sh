#!/bin/bash
# cost.sh - what monitoring costs, ours against LTTng-UST and against an
# older tree, in one invocation (never run as a test; docs/BENCHMARKS.md,
# "Monitoring that can stay on").
#
#   bench/monitor/cost.sh [--runs N] [--main REF] [--no-build] [--quick]
#
# Builds (RelWithDebInfo, as every figure here, in build/cost-*): off (-DLPEL_HOOKS=OFF, the unmonitored
# baseline), on (this tree), lttng (this tree with -DMON_LTTNG=ON: the same
# events at the same hook points recorded with LTTng-UST tracepoints), and
# with --main REF the tree at REF (exported with git archive into
# build/cost-main-src).
# Then, modes interleaved round by round (N rounds, default 7):
#   ring   lpel-bench ring (100 tasks x 1000 rounds): CPU ns per hop; the
#          cost per recorded event = (mode - off) / events per hop, each
#          round paired with its own off run, medians of the rounds;
#   apps   ant, des, mc, rt at the paper's sizes (bench/monitor/apps.sh's
#          arguments), -w 2: CPU time (user + system) of mon0 (no -m), mon1
#          (-m A), main's mon1, LTTng's mon1, as medians of the per-round
#          ratios to off; the bytes per event of our trace;
#   instructions  callgrind Ir per hop of the ring (exact whatever the load).
# The trace goes to DIR on disk (build/cost-work), not tmpfs. LTTng-UST
# runs in a session this script creates and destroys (lttng create/start/
# destroy; lttng-sessiond is spawned when none runs); the consumer daemon
# that writes LTTng's buffers is another process, whose CPU time is given
# apart. --quick: 3 rounds, the ring and des only (a check, not a figure).
# COST_OFF, COST_ON, COST_LTTNG, COST_MAIN in the environment name build
# directories to use as they are instead of building them (COST_MAIN also
# without --main).
# The load average is printed at the start and the end: rerun at a quiet
# moment for the headline figures.
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
runs=7 main="" build=1 quick=0
while [ $# -gt 0 ]; do
    case $1 in
    --runs) runs=$2; shift 2 ;;
    --main) main=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    --quick) quick=1; runs=3; shift ;;
    -h | --help) sed -n '2,30p' "$0"; exit 0 ;;
    *) echo "cost.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
out=$src/build
work=$out/cost-work
rm -rf "$work" && mkdir -p "$work"
. "$src/bench/monitor/timing.sh"

configure() { # MODE SRC CMAKE_ARGS...: build/cost-MODE, unless COST_MODE names one
    local mode=$1 tree=$2 var
    shift 2
    var=COST_$(echo "$mode" | tr a-z A-Z)
    [ -z "${!var:-}" ] || return 0
    [ $build = 1 ] || { echo "cost.sh: --no-build, but no build for $mode ($var)" >&2; exit 2; }
    cmake -S "$tree" -B "$out/cost-$mode" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWERROR=OFF "$@" >/dev/null
    # snetmon (to count the events) only from this tree's build
    cmake --build "$out/cost-$mode" -j2 --target lpel-bench ant des mc rt \
        $( [ "$mode" = on ] && echo snetmon) >/dev/null
}
echo "building (RelWithDebInfo) what is not given: off, on, lttng${main:+, main $main}" >&2
configure off "$src" -DLPEL_HOOKS=OFF
configure on "$src"
configure lttng "$src" -DMON_LTTNG=ON
if [ -n "$main" ] && [ -z "${COST_MAIN:-}" ]; then
    # An export of REF, not a worktree: nothing of the repository changes.
    rm -rf "$out/cost-main-src" && mkdir -p "$out/cost-main-src"
    git -C "$src" archive "$main" | tar -x -C "$out/cost-main-src"
    configure main "$out/cost-main-src"
fi
[ -z "${COST_MAIN:-}" ] || main=${main:-given}
modes="off on lttng${main:+ main}"
bin() { # MODE: its build directory
    local var
    var=COST_$(echo "$1" | tr a-z A-Z)
    echo "${!var:-$out/cost-$1}"
}

session=snet-cost-$$
lttng create "$session" --output="$work/lttng" >/dev/null
trap 'lttng destroy "$session" >/dev/null 2>&1 || true' EXIT
lttng enable-event -u 'snet_lpel:*' >/dev/null
lttng start >/dev/null
consumer_cpu() { # the CPU seconds of every lttng-consumerd so far
    local t=0 p
    for p in $(pgrep -x lttng-consumerd || true); do
        t=$(awk -v t="$t" '{print t + ($14 + $15) / 100}' "/proc/$p/stat")
    done
    echo "$t"
}

echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg); $runs interleaved rounds"
echo

# ---- the ring ----
ring_args="ring --ring-size 100 --rounds 1000 --no-baseline"
cpu_hop() { "$@" | sed -n 's/.*CPU time \([0-9.]*\)).*/\1/p'; }
for m in $modes; do : >"$work/ring-$m"; done
c0=$(consumer_cpu)
for i in $(seq "$runs"); do
    off=$(cpu_hop "$(bin off)/bench/lpel/lpel-bench" $ring_args)
    for m in $modes; do
        [ "$m" = off ] && { echo "$off $off" >>"$work/ring-off"; continue; }
        rm -rf "$work/t-$m"
        v=$(cpu_hop "$(bin "$m")/bench/lpel/lpel-bench" $ring_args -m A --mon-dir "$work/t-$m")
        echo "$v $off" >>"$work/ring-$m"
    done
done
c1=$(consumer_cpu)
events=$("$(bin on)/tools/snetmon/snetmon" dump --count "$work/t-on")
eph=$(echo "$events" | awk '{printf "%.3f", $1 / 100000}')
echo "ring (lpel-bench $ring_args -m A), CPU ns per hop, $eph events per hop (our trace)"
printf '%-8s %10s %12s %14s\n' mode "ns/hop" "ns/event" "/ ours"
ours=$(awk -v e="$eph" '{print ($1 - $2) / e}' "$work/ring-on" | median)
for m in $modes; do
    hop=$(column 1 "$work/ring-$m")
    per=$(awk -v e="$eph" '{print ($1 - $2) / e}' "$work/ring-$m" | median)
    printf '%-8s %10.2f %12.2f %14s\n' "$m" "$hop" "$per" \
        "$( [ "$m" = off ] && echo - || echo "$per $ours" | awk '{printf "%.2f", $1 / $2}')"
done
echo "lttng-consumerd: $(echo "$c0 $c1 $runs" | awk '{printf "%.3f", ($2 - $1) / $3}') s CPU per ring run besides the program"
echo

# ---- the apps ----
apps="ant des mc rt"
[ $quick = 1 ] && apps=des
ARGS_ant="--inputs 4 --jobs 150 --ants 16 --rounds 10"
ARGS_des="--paper --kb 2000"
ARGS_mc="--paper"
ARGS_rt="--paper --inputs 60"
echo "apps, -w 2, CPU time (user + system): medians of the per-round ratios to off"
printf '%-5s %8s %9s %9s %9s %9s %9s %12s\n' app "off [s]" mon0 mon1 "main mon1" "lttng" "lttng/mon1" "bytes/event"
for app in $apps; do
    eval "args=\$ARGS_$app"
    for m in off mon0 $modes; do : >"$work/app-$m"; done
    for i in $(seq "$runs"); do
        # shellcheck disable=SC2086
        timed "$work/app-off" "$(bin off)/apps/$app/$app" -w 2 $args
        # shellcheck disable=SC2086
        timed "$work/app-mon0" "$(bin on)/apps/$app/$app" -w 2 $args
        for m in $modes; do
            [ "$m" = off ] && continue
            rm -rf "$work/a-$m"
            # shellcheck disable=SC2086
            timed "$work/app-$m" "$(bin "$m")/apps/$app/$app" -w 2 $args -m A --mon-dir "$work/a-$m"
        done
    done
    paste "$work/app-off" "$work/app-mon0" "$work/app-on" "$work/app-lttng" ${main:+"$work/app-main"} >"$work/pairs"
    off_cpu=$(column 2 "$work/app-off")
    ratio() { awk -v c="$1" '{print $c / $2}' "$work/pairs" | median; }
    pct_of() { echo "$1" | awk '{printf "%+.2f %%", ($1 - 1) * 100}'; }
    r0=$(ratio 4) r1=$(ratio 6) rl=$(ratio 8)
    rm_=$( [ -n "$main" ] && pct_of "$(ratio 10)" || echo -)
    ev=$("$(bin on)/tools/snetmon/snetmon" dump --count "$work/a-on")
    by=$(cat "$work"/a-on/ctf/worker-* | wc -c)
    printf '%-5s %8.3f %9s %9s %9s %9s %9s %12s\n' "$app" "$off_cpu" "$(pct_of "$r0")" \
        "$(pct_of "$r1")" "$rm_" "$(pct_of "$rl")" \
        "$(echo "$rl $r1" | awk '{d = $2 - 1; printf (d > 0.0005 ? "%.1fx" : "n/a"), ($1 - 1) / d}')" \
        "$(echo "$by $ev" | awk '{printf "%.2f", $1 / $2}')"
done
echo

# ---- instructions ----
if command -v valgrind >/dev/null; then
    echo "instructions per ring hop (callgrind; the difference of 250 and 50 rounds)"
    for m in off on ${main:+main}; do
        if [ "$m" = off ]; then n=$(ring_ir_per_hop "$(bin off)/bench/lpel/lpel-bench")
        else n=$(ring_ir_per_hop "$(bin "$m")/bench/lpel/lpel-bench" -m A --mon-dir "$work/ir"); fi
        echo "  $m: $n Ir/hop"
    done
fi
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
