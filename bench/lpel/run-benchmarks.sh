#!/usr/bin/env bash
# Regenerate the LPEL figures of docs/BENCHMARKS.md: builds the runtime twice
# (hooks built in, and compiled out), runs every lpel-bench configuration
# interleaved between the two builds, and prints a Markdown table of medians,
# ranges and ratios. Usage: bench/lpel/run-benchmarks.sh [repeat]   (default 5)
set -euo pipefail
cd "$(dirname "$0")/../.."
repeat=${1:-5}
bash scripts/deps.sh
for v in bench-hooks bench-nohooks; do
    flag=ON; [ $v = bench-nohooks ] && flag=OFF
    cmake -S . -B build/$v -DCMAKE_BUILD_TYPE=Release -DLPEL_HOOKS=$flag -DWERROR=OFF >/dev/null
    cmake --build build/$v -j "$(nproc)" --target lpel-bench >/dev/null
done
on=build/bench-hooks/bench/lpel/lpel-bench
off=build/bench-nohooks/bench/lpel/lpel-bench

# field NAME JSON -> value
field() { sed -n "s/.*\"$1\":\([0-9.e+-]*\).*/\1/p" <<<"$2"; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
range() { sort -g | awk 'NR==1{lo=$1} {hi=$1} END {printf "%s-%s", lo, hi}'; }

row() { # label unit args...
    local label=$1 unit=$2; shift 2
    local a=() b=() base=()
    for ((i = 0; i < repeat; i++)); do
        j=$($on "$@" --json); a+=("$(field "$unit" "$j")")
        bl=$(field "baseline_$unit" "$j"); [ -n "$bl" ] && base+=("$bl")
        j=$($off "$@" --no-baseline --json); b+=("$(field "$unit" "$j")")
    done
    local ma mb mbase="-" ratio="-"
    ma=$(printf '%s\n' "${a[@]}" | median); mb=$(printf '%s\n' "${b[@]}" | median)
    if [ ${#base[@]} -gt 0 ]; then
        mbase=$(printf '%s\n' "${base[@]}" | median)
        ratio=$(awk -v x="$mbase" -v y="$ma" 'BEGIN{printf "%.0fx", x/y}')
    fi
    local hookcost
    hookcost=$(awk -v x="$ma" -v y="$mb" 'BEGIN{printf "%+.1f %%", (x/y-1)*100}')
    printf '| %s | %s | %s (%s) | %s | %s | %s | %s |\n' "$label" "$unit" "$ma" \
        "$(printf '%s\n' "${a[@]}" | range)" "$mb" "$hookcost" "$mbase" "$ratio"
}

echo "| benchmark | unit | lpel, hooks built in: median (range) | hooks compiled out: median | hooks-in vs out | pthreads median | pthreads / lpel |"
echo "|---|---|---|---|---|---|---|"
row "ctx, 1e7 switches" ns_per_switch ctx
row "ring, 10 tasks x 100000 rounds" ns_per_hop ring --tasks 10 --rounds 100000
row "ring, 1000 tasks x 1000 rounds" ns_per_hop ring --tasks 1000 --rounds 1000 --no-baseline
row "ring, 10000 tasks x 100 rounds" ns_per_hop ring --tasks 10000 --rounds 100 --no-baseline
row "ring, 100 tasks x 1000 rounds" ns_per_hop ring --tasks 100 --rounds 1000
row "pipe, depth 100, parts" ns_per_hop pipe --depth 100 --place parts
row "pipe, depth 100, rr" ns_per_hop pipe --depth 100 --place rr
row "pipe, depth 100, const" ns_per_hop pipe --depth 100 --place const
row "create+destroy, 1e6 tasks" ns_per_task create
