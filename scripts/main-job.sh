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
has_command() { "$snetmon" --help 2>/dev/null | grep -q "^  $1 "; }

if [ -x "$build/apps/mc/mc" ]; then
    echo "== run: Monte-Carlo option pricing (apps/mc) with monitoring -m A"
    "$build/apps/mc/mc" --check -m A -o "$out/trace"
else
    echo "== run: lpel-demo pipeline with monitoring -m A"
    "$build/tools/lpel-demo/lpel-demo" pipeline --stages 8 --messages 20000 -m A -o "$out/trace"
fi

echo "== trace: $out/trace"
if has_command dump; then
    "$snetmon" dump "$out/trace" > "$out/trace.txt"
    echo "   $(wc -l < "$out/trace.txt") events (text in $out/trace.txt); the first ones:"
    head -5 "$out/trace.txt" | sed 's/^/   /'
fi
if has_command metrics; then
    echo "== metrics"
    "$snetmon" metrics "$out/trace" | tee "$out/metrics.txt"
fi
if has_command wcp; then
    echo "== workflow critical path"
    "$snetmon" wcp "$out/trace" | tee "$out/wcp.txt"
fi
if has_command render; then
    echo "== images"
    "$snetmon" render "$out/trace" -o "$out/utilisation.png"
    "$snetmon" render --graph "$out/trace" -o "$out/network.svg"
    echo "   $out/utilisation.png (worker utilisation), $out/network.svg (network as run)"
fi
echo "== done: everything is in $out/"
