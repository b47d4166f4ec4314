#!/usr/bin/env bash
# ab.sh BUILD BASE_BUILD [ROUNDS] - issue 28's figures across ranks for two
# builds of the tree side by side: mpi-bench latency, idle and stream
# (2 ranks on this host, 1 and 2 workers each), BUILD and BASE_BUILD
# alternately in every round, each run against raw MPI in the same
# invocation (mpi-bench's own baseline). Prints one line per run and then,
# per measure and build, the median over the rounds with its range, and the
# load average at start and end.
#
# Both builds need mpi-bench (cmake --build DIR --target mpi-bench). Never a
# test: it only measures.
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2; }
build=$1 base=$2 rounds=${3:-5}
case "$rounds" in ''|*[!0-9]*|0) echo "ab.sh: ROUNDS takes a whole number >= 1" >&2; exit 2 ;; esac
root=$(cd "$(dirname "$0")/../.." && pwd)
for b in "$build" "$base"; do
    [ -x "$b/bench/mpi/mpi-bench" ] || { echo "ab.sh: no $b/bench/mpi/mpi-bench" >&2; exit 2; }
done
mpi() { sh "$root/tests/distrib/mpi_run.sh" "$@"; }
measures=("latency -w 1" "latency -w 2" "idle -w 1" "stream -w 1 --records 300000"
          "stream -w 2 --records 300000")
out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= rounds; r++)); do
    for m in "${measures[@]}"; do
        for side in build base; do
            dir=$build
            [ "$side" = base ] && dir=$base
            # shellcheck disable=SC2086 # the measure's words are arguments
            line=$(mpi 2 "$dir/bench/mpi/mpi-bench" $m --repeat 1 --json)
            echo "$r $side $m: $line"
            printf '%s\t%s\t%s\n' "$m" "$side" "$line" >>"$out"
        done
    done
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
# Medians of S-Net's figure and of its ratio to raw MPI, per measure and side.
median() { sort -g | awk '{v[NR] = $1} END {if (NR) printf "%.4g", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
for m in "${measures[@]}"; do
    for side in build base; do
        sel=$(awk -F'\t' -v m="$m" -v s="$side" '$1 == m && $2 == s {print $3}' "$out")
        unit=$(sed -n '1s/.*"\(snet_[a-z_]*\)": [0-9.e+-]*, "snet_min".*/\1/p' <<<"$sel")
        vals=$(sed -n 's/.*"snet_[a-z_]*": \([0-9.e+-]*\), "snet_min".*/\1/p' <<<"$sel")
        ratios=$(sed -n 's/.*"ratio": \([0-9.e+-]*\).*/\1/p' <<<"$sel")
        printf '%-32s %-5s %s median %s (%s-%s), against raw MPI %s\n' "$m" "$side" "$unit" \
            "$(median <<<"$vals")" "$(sort -g <<<"$vals" | head -1)" "$(sort -g <<<"$vals" | tail -1)" \
            "$(median <<<"$ratios")"
    done
done
