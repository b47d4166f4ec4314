#!/usr/bin/env bash
# The main job: install what is missing, build, run a program on the runtime
# with full monitoring, analyse the trace and render the images into out/.
# This is the README's first command.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh

build=build/release
out=out
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null
rm -rf "$out/trace"
mkdir -p "$out"

snetmon="$build/tools/snetmon/snetmon"
# Every run is a plain run, as a user runs it. Where raising priority is
# allowed, the timing is repeated at high priority and printed beside the
# plain figure (never instead of it), to show how much of the spread is
# other work on a shared machine (scripts/boosted.sh).
. scripts/boosted.sh

echo "== run: Monte-Carlo option pricing (apps/mc) with monitoring -m A"
"$build/apps/mc/mc" --check -m A --mon-dir "$out/trace"

echo "== trace: $out/trace"
"$snetmon" dump "$out/trace" > "$out/trace.txt"
echo "   $(wc -l < "$out/trace.txt") events (text in $out/trace.txt); the first ones:"
head -5 "$out/trace.txt" | sed 's/^/   /'
echo "== metrics (whole report in $out/metrics.txt)"
"$snetmon" metrics "$out/trace" > "$out/metrics.txt"
head -25 "$out/metrics.txt"
echo "== workflow critical path (whole report in $out/wcp.txt)"
"$snetmon" wcp "$out/trace" > "$out/wcp.txt"
head -12 "$out/wcp.txt"
echo "== images"
"$snetmon" render "$out/trace" -o "$out/utilisation.png"
"$snetmon" render --graph "$out/trace" -o "$out/network.svg"
"$snetmon" wcp "$out/trace" --render "$out/critical-path.svg" >/dev/null
echo "   $out/utilisation.png (worker utilisation), $out/network.svg (network as run),"
echo "   $out/critical-path.svg (message graph with the critical path)"

# The same network from its S-Net file (apps/mc/mc.snet), run by snetrun with
# the box library built from the same C code, monitored the same way.
echo "== run: the same network from apps/mc/mc.snet with snetrun, monitoring -m A"
rm -rf "$out/trace-snet"
"$build/tools/snetrun/snetrun" apps/mc/mc.snet --check -m A --mon-dir "$out/trace-snet"
"$snetmon" metrics "$out/trace-snet" > "$out/metrics-snet.txt"
echo "   $(sed -n 's/^ *throughput (eq. 1) *//p' "$out/metrics-snet.txt" | head -1)"
echo "   (whole report in $out/metrics-snet.txt)"

# The experiment repository (docs/REPOSITORY.md): this run is remembered in
# out/runs.sqlite (not the user's default repository), and compared with the
# run the previous main job stored there.
db="$out/runs.sqlite"
prev=$("$snetmon" runs --db "$db" --csv 2>/dev/null | tail -n +2 | tail -1 | cut -d, -f1 || true)
rev=$(git rev-parse --short HEAD 2>/dev/null || true)
id=$("$snetmon" store "$out/trace" --db "$db" --label job=main ${rev:+--git "$rev"} --json \
     | sed -n 's/.*"id": *\([0-9]*\).*/\1/p')
echo "== repository: stored as run $id in $db ('snetmon runs --db $db' lists them)"
if [ -n "$prev" ] && [ -n "$id" ]; then
    echo "== comparison with the previous stored run $prev (whole report in $out/compare.txt)"
    "$snetmon" compare --db "$db" "$prev" "$id" > "$out/compare.txt"
    sed -n '1,/^Workers/p' "$out/compare.txt" | sed '$d'
else
    echo "   (the first run stored there: the next main job compares itself with it)"
fi
# The advise loop (docs/METRICS.md section 9) on mc at the paper's size (the
# run above is too short to time: process start-up would be most of it): a
# monitored run -> a mapping advised from its trace -> the same program rerun
# with --map (checked once, then timed without monitoring against the
# default mapping, median of 5 interleaved runs each) -> the speedup.
mc="$build/apps/mc/mc"
echo "== advise: mc --paper monitored, a mapping from its trace (report in $out/advice.txt)"
rm -rf "$out/trace-paper" "$out/mapping.txt"
"$mc" --paper -m A --mon-dir "$out/trace-paper" > /dev/null
"$snetmon" advise "$out/trace-paper" -o "$out/mapping.txt" > "$out/advice.txt"
grep -A3 '^  by entity' "$out/advice.txt" | grep -v '^  stream' | head -1
sed -n '/^Problem/,/^Prediction/p' "$out/advice.txt" | sed '$d'
sed -n '/^Advice/,$p' "$out/advice.txt"
if [ -s "$out/mapping.txt" ]; then
    echo "== rerun: mc --paper with --map $out/mapping.txt (--check), then timed against the default"
    "$mc" --paper --check --map "$out/mapping.txt" | tail -1 | sed 's/^/   /'
    # seconds RUNNER ARGS...: the wall time of one mc --paper run, in us.
    seconds() {
        local runner=$1 t0 t1
        shift
        t0=$(date +%s%N)
        $runner "$mc" --paper "$@" > /dev/null
        t1=$(date +%s%N)
        echo $(((t1 - t0) / 1000))
    }
    median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
    # timed RUNNER LABEL: 5 interleaved runs of each mapping, medians, the speedup.
    timed() {
        : > "$out/times-default"; : > "$out/times-advised"
        for _ in 1 2 3 4 5; do
            seconds "$1" >> "$out/times-default"
            seconds "$1" --map "$out/mapping.txt" >> "$out/times-advised"
        done
        d=$(median < "$out/times-default"); a=$(median < "$out/times-advised")
        awk -v d="$d" -v a="$a" -v how="$2" 'BEGIN {printf "   %s: default mapping %.3f s, advised mapping %.3f s (medians of 5): speedup %.2fx\n", how, d / 1e6, a / 1e6, d / a}'
    }
    plain() { "$@"; }
    timed plain "normal priority"
    if boost_on; then
        timed boosted "beside it, $(boost_note)"
    fi
    echo "   (load average $(cut -d' ' -f1-3 /proc/loadavg))"
fi
echo "== done: everything is in $out/"
