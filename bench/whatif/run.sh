#!/usr/bin/env bash
# bench/whatif/run.sh - `snetmon whatif` checked against real runs: for each
# app, one monitored run asks the causal profile what making a box X % faster
# would gain; then the real program runs with that box scaled (--scale
# BOX=F, F = 1 - X/100), interleaved with the unscaled program, and the
# measured speedup goes beside the predicted one in docs/BENCHMARKS.md
# (between the markers <!-- whatif:begin --> and <!-- whatif:end -->).
#
# --scale BOX=F asks for X = 100 (1 - F) % less work; what the box's
# executions really lost ("X done") is measured in a monitored run of the
# scaled program (its tasks' work, docs/METRICS.md section 11, against the
# recorded run's), since a box's fixed costs (its records, its set-up) do not
# shrink with F; the prediction at that X is the one to compare.
#
# The speedup measured is of eq. 1's span (the longest worker span, as
# `snetmon metrics` gives it from a run recorded with -m tW only, which costs
# next to nothing), the figure the prediction is about; the process's wall
# time and its CPU time (user + system) are beside it. Medians of RUNS
# rounds, each round one run of every configuration of the app; the load
# average before and after. No raised priority: the timed runs compete with
# whatever else the machine runs, as a user's would. Each prediction is the
# median of the predictions from three runs recorded with $FLAGS (-m A
# without flag C, whose readings move the OS's time off a loaded worker's
# core between periods: docs/METRICS.md section 11), so that one run hit by a
# burst of other load does not make it; every timed run's figures go to the
# log (standard error) too.
#
# About 2-3 minutes with the defaults on a 2-core machine at a load average
# of 5 (48 monitored runs, 80 timed runs of 0.1-1.5 s); longer under more
# load. Columns: the X asked (--scale's 1 - F) and the X the box's work
# really lost, the predictions at both, the span's speedup measured, the
# errors (predicted / measured - 1), and beside it the speedups of the
# process's wall time and of its CPU time (user + system), and the medians
# themselves.
#
# usage: bash bench/whatif/run.sh [BUILD_DIR]      (default build/release; built if missing)
# Environment:
#   RUNS=5        rounds (at least 3)
#   WORKERS=2     -w of every run
#   OUT=docs/BENCHMARKS.md   the file whose whatif section is replaced ('-': stdout only)
#   APPS="mc des ant rt"     the apps measured
#   FLAGS=mtWTSML            -m of the monitored runs
set -euo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$SRC/build/release}
RUNS=${RUNS:-5}
WORKERS=${WORKERS:-2}
OUT=${OUT:-$SRC/docs/BENCHMARKS.md}
APPS=${APPS:-"mc des ant rt"}
FLAGS=${FLAGS:-mtWTSML}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=../monitor/timing.sh
. "$SRC/bench/monitor/timing.sh"

[ "$RUNS" -ge 3 ] || { echo "run.sh: RUNS must be at least 3" >&2; exit 2; }
log() { echo "whatif: $*" >&2; }

# Sizes giving runs of about 0.3-1 s on 2 cores.
ARGS_mc=${ARGS_mc:-"--inputs 64 --paths 8000 --batch 1000"}
ARGS_des=${ARGS_des:-"--paper --kb 8000"}
ARGS_ant=${ARGS_ant:-"--inputs 4 --jobs 120 --ants 8 --rounds 20"}
ARGS_rt=${ARGS_rt:-"--inputs 40 --size 240x180"}
# The questions: "APP TASK_PATTERN BOX X X" per line. Three boxes where the
# app has three with work to scale (des); mc, ant and rt have one each.
CASES=${CASES:-"mc mc\\.vcall\$ vcall 25 50
des des\\.ip\$ ip 50 75
des des\\.round8\$ round8 50 75
des des\\.fp\$ fp 50 75
ant ant\\.ant\$ ant 25 50
rt rt\\.solver\$ solver 25 50"}

if [ ! -x "$BUILD/apps/mc/mc" ] || [ ! -x "$BUILD/tools/snetmon/snetmon" ]; then
    log "building $BUILD"
    cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    cmake --build "$BUILD" -j "$(nproc)" --target ant des mc rt snetmon >/dev/null
fi
SNETMON=$BUILD/tools/snetmon/snetmon
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
started=$(date +%s)

# run APP ARGS...: one run of APP at its benchmark size.
run() {
    local name=$1 args
    shift
    eval "args=\$ARGS_$name"
    # shellcheck disable=SC2086
    "$BUILD/apps/$name/$name" -w "$WORKERS" $args "$@"
}

# span DIR: eq. 1's span of the trace in DIR: its longest worker span.
span() {
    "$SNETMON" metrics --json "$1" | sed -n 's/^ *"span_s": \([0-9.e+-]*\),*$/\1/p' | sort -g | tail -1
}

# traced DIR APP: three $FLAGS runs into DIR.1, DIR.2, DIR.3.
traced() {
    local k
    for k in 1 2 3; do
        rm -rf "$1.$k"
        run "$2" -m "$FLAGS" --mon-dir "$1.$k" >/dev/null
    done
}

# predicted DIR RE X: the median over the three traces of the profile's
# speedup for the tasks RE X % faster (one trace may be hit by a burst of
# the machine's other load; the median is not). The profile's replay and
# unexplained time of each go to the log.
predicted() {
    local k
    for k in 1 2 3; do
        "$SNETMON" whatif "$1.$k" --tasks "$2" --faster "$3" --json >"$work/q.json"
        sed -n 's/^    "\(replay_s\|unexplained_s\)": \([0-9.e+-]*\),*$/\1 \2/p' "$work/q.json" |
            tr '\n' ' ' | sed "s|^|whatif: $1.$k $2 $3: |" >&2
        echo >&2
        sed -n 's/^  "speedup": \([0-9.e+-]*\),*$/\1/p' "$work/q.json"
    done | median | awk '{printf "%.3f", $1}'
}

# work TRACE RE: the scalable work (work_s) of the tasks RE in TRACE.
work() {
    "$SNETMON" whatif "$1" --tasks "$2" --faster 0 --json |
        sed -n 's/^  "work_s": \([0-9.e+-]*\),*$/\1/p'
}

# effective APP BOX F RE: the X by which --scale BOX=F actually shortened the
# tasks RE's work: 100 (1 - work scaled / work as recorded), each the median
# over three $FLAGS runs.
effective() {
    local base k scaled
    base=$(for k in 1 2 3; do work "$work/$1.trace.$k" "$4"; done | median)
    scaled=$(for k in 1 2 3; do
        rm -rf "$work/scaled.trace"
        run "$1" --scale "$2=$3" -m "$FLAGS" --mon-dir "$work/scaled.trace" >/dev/null
        work "$work/scaled.trace" "$4"
    done | median)
    echo "$base $scaled" | awk '{printf "%.1f", 100 * (1 - $2 / $1)}'
}

# timed_span FILE APP ARGS...: one run recorded with -m tW; appends
# "WALL_S CPU_S SPAN_S" to FILE.
timed_span() {
    local file=$1 name=$2
    shift 2
    rm -rf "$work/run.trace" "$work/.t"
    timed "$work/.t" run "$name" -m tW --mon-dir "$work/run.trace" "$@"
    echo "$(cat "$work/.t") $(span "$work/run.trace")" >>"$file"
    log "  $name $* : wall cpu span $(tail -n 1 "$file")"
}

ratio() { echo "$1 $2" | awk '{printf "%.3f", $1 / $2}'; }
error() { echo "$1 $2" | awk '{printf "%+.1f %%", ($1 / $2 - 1) * 100}'; }

rows="$work/rows.md"
: >"$rows"
for name in $APPS; do
    cases=$(printf '%s\n' "$CASES" | awk -v a="$name" '$1 == a')
    [ -n "$cases" ] || continue
    log "$name: three monitored runs for the predictions"
    traced "$work/$name.trace" "$name"
    # the configurations: base, then box@F per case and X
    configs="base"
    while read -r _ re box x1 x2; do
        for x in $x1 $x2; do
            f=$(echo "$x" | awk '{printf "%g", 1 - $1 / 100}')
            configs="$configs $box@$f"
            xe=$(effective "$name" "$box" "$f" "$re")
            echo "$box@$f $(predicted "$work/$name.trace" "$re" "$x") $re $x $xe" \
                "$(predicted "$work/$name.trace" "$re" "$xe")" >>"$work/$name.pred"
        done
    done <<EOF
$cases
EOF
    for r in $(seq 1 "$RUNS"); do
        log "$name: round $r of $RUNS ($configs)"
        for c in $configs; do
            if [ "$c" = base ]; then
                timed_span "$work/$name.base" "$name"
            else
                timed_span "$work/$name.$c" "$name" --scale "${c%@*}=${c#*@}"
            fi
        done
    done
    base_span=$(column 3 "$work/$name.base")
    base_wall=$(column 1 "$work/$name.base")
    base_cpu=$(column 2 "$work/$name.base")
    while read -r c pred re x xe pred_e; do
        s=$(column 3 "$work/$name.$c")
        measured=$(ratio "$base_span" "$s")
        cpu_s=$(column 2 "$work/$name.$c")
        printf '| %s | `%s` | %s | %s %% | %s %% | %s | %s | **%s** | %s | **%s** | %s | %s | %.3f -> %.3f s | %.3f -> %.3f s |\n' \
            "$name" "${re%\$}" "${c%@*}=${c#*@}" "$x" "$xe" "$pred" "$pred_e" "$measured" \
            "$(error "$pred" "$measured")" "$(error "$pred_e" "$measured")" \
            "$(ratio "$base_wall" "$(column 1 "$work/$name.$c")")" "$(ratio "$base_cpu" "$cpu_s")" \
            "$base_span" "$s" "$base_cpu" "$cpu_s" >>"$rows"
    done <"$work/$name.pred"
done

load_after=$(cut -d' ' -f1-3 /proc/loadavg)
took=$(( $(date +%s) - started ))
{
    echo "<!-- whatif:begin -->"
    echo "Measured $(date -u +%Y-%m-%d) on $(nproc) cores ($(uname -m)), $WORKERS workers, medians of"
    echo "$RUNS interleaved rounds; load average $load_before before, $load_after after; $took s."
    echo "Sizes: mc \`$ARGS_mc\`, des \`$ARGS_des\`, ant \`$ARGS_ant\`, rt \`$ARGS_rt\`."
    echo
    echo "| app | tasks | --scale | X asked | X done | predicted at X asked | at X done | measured | error (asked) | error (done) | wall | CPU | span | CPU time |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    cat "$rows"
    echo "<!-- whatif:end -->"
} >"$work/section.md"
cat "$work/section.md"
if [ "$OUT" != - ]; then
    awk -v sec="$work/section.md" '
        /<!-- whatif:begin -->/ { while ((getline l < sec) > 0) print l; skip = 1; next }
        /<!-- whatif:end -->/ { skip = 0; next }
        !skip' "$OUT" >"$work/out.md"
    grep -q "<!-- whatif:begin -->" "$OUT" || { echo; cat "$work/section.md"; } >>"$work/out.md"
    cp "$work/out.md" "$OUT"
    log "wrote $OUT"
fi
