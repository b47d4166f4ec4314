#!/usr/bin/env bash
# run.sh [--runs N] [--orig PROGRAM] - LPEL beside its peers on the ring and
# pipe shapes of lpel-bench, all in one invocation, and the ratios.
#
# Peers: Go (goroutines and buffered channels, peers.go) and C++ Boost.Fiber
# (fibers and buffered channels, peers_fiber.cpp), both built here (Debian
# golang-go and libboost-fiber-dev, scripts/deps.sh), not by CMake; with
# --orig, also the original LPEL through PROGRAM, a program built outside
# this repository that takes lpel-bench's older spellings of the same
# arguments (--tasks K, --depth D) and prints "ns_per_hop X"
# (no script that builds another project's code is committed here;
# docs/BENCHMARKS.md, issue 28, says how the one measured was built: the
# original configured with its x86_64-linux contexts, and a driver of the
# same shapes written against its API).
#
# Rows: ring of 1,000 tasks x 1000 rounds, ring of 10,000 x 100, ring of
# 100,000 x 10 (one worker or OS thread; timed from the end of the first
# lap to the start of the last), and the pipe of depth 100 with 10^5
# messages on two workers (stages in two halves; Go cannot place
# goroutines, so it runs them with GOMAXPROCS=2). Each round runs every row
# on every program back to back (interleaved); the table gives per program
# the median ns per hop with min-max, and the median over rounds of the
# per-round ratio peer / LPEL. The load average is printed at start and end.
#
# LPEL is lpel-bench from a Release build of this tree (build/bench-peers).
set -euo pipefail
cd "$(dirname "$0")/../.."

runs=5 orig=""
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) runs=${2:?--runs needs a number}; shift 2 ;;
        --orig) orig=${2:?--orig needs a program}; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "run.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done
case "$runs" in ''|*[!0-9]*|0) echo "run.sh: --runs takes a whole number >= 1" >&2; exit 2 ;; esac
[ -z "$orig" ] || [ -x "$orig" ] || { echo "run.sh: --orig: '$orig' is not an executable" >&2; exit 2; }

bash scripts/deps.sh >/dev/null
out=build/bench-peers
mkdir -p "$out"
echo "building ..." >&2
cmake -S . -B "$out" -DCMAKE_BUILD_TYPE=Release -DWERROR=OFF >/dev/null
cmake --build "$out" -j "$(nproc)" --target lpel-bench >/dev/null
GOCACHE=$PWD/$out/gocache GO111MODULE=off go build -o "$out/peers-go" bench/peers/peers.go
g++ -std=c++17 -O2 -o "$out/peers-fiber" bench/peers/peers_fiber.cpp \
    -lboost_fiber -lboost_context -pthread

progs=(lpel go fiber)
[ -n "$orig" ] && progs+=(orig)
run_one() { # program args...
    local p=$1; shift
    case "$p" in
        lpel) "$out/bench/lpel/lpel-bench" "$@" --no-baseline --json |
                  sed -n 's/.*"ns_per_hop":\([0-9.e+-]*\).*/\1/p' ;;
        go) "$out/peers-go" "$@" | awk '{print $2}' ;;
        fiber) "$out/peers-fiber" "$@" | awk '{print $2}' ;;
        orig) # the original takes lpel-bench's older spellings
            "$orig" $(printf '%s\n' "$@" | sed 's/^--ring-size$/--tasks/; s/^--stages$/--depth/') |
                awk '{print $2}' ;;
    esac
}
rows=(
    "ring, 1000 tasks x 1000 rounds|ring --ring-size 1000 --rounds 1000"
    "ring, 10000 tasks x 100 rounds|ring --ring-size 10000 --rounds 100"
    "ring, 100000 tasks x 10 rounds|ring --ring-size 100000 --rounds 10"
    "pipe, depth 100, 1e5 messages, 2 workers|pipe --stages 100 --messages 100000"
)
results=$out/peers.tsv
: >"$results"
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
for ((round = 1; round <= runs; round++)); do
    echo "round $round of $runs ..." >&2
    for ((r = 0; r < ${#rows[@]}; r++)); do
        IFS='|' read -r _ args <<<"${rows[$r]}"
        for p in "${progs[@]}"; do
            # shellcheck disable=SC2086 # args are words by design
            v=$(run_one "$p" $args 2>/dev/null) || v=""
            printf '%d\t%s\t%d\t%s\n' "$r" "$p" "$round" "${v:--}" >>"$results"
        done
    done
done

median() { sort -g | awk '{a[NR]=$1} END {if (!NR) {print "-"; exit}
    printf "%.4g\n", NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
values() { awk -F'\t' -v r="$1" -v p="$2" '$1 == r && $2 == p && $4 != "-" {print $4}' "$results"; }
ratio() { # row program: median over rounds of program / lpel
    awk -F'\t' -v r="$1" -v p="$2" '$1 == r && $4 != "-" {v[$2, $3] = $4}
        END {for (k in v) {split(k, q, SUBSEP); if (q[1] == p && (("lpel", q[2]) in v))
             print v[k] / v["lpel", q[2]]}}' "$results" | median
}
echo
echo "$runs rounds, interleaved; $(date -u +%Y-%m-%dT%H:%MZ); $(nproc) CPUs; load average" \
     "at start $load_start, at end $(cut -d' ' -f1-3 /proc/loadavg)."
echo
header="| shape | LPEL ns/hop median (min-max) |"
rule="|---|---|"
for p in "${progs[@]:1}"; do header+=" $p median (min-max) | $p / LPEL |"; rule+="---|---|"; done
echo "$header"
echo "$rule"
for ((r = 0; r < ${#rows[@]}; r++)); do
    IFS='|' read -r label _ <<<"${rows[$r]}"
    cell() { local v; v=$(values "$r" "$1" | sort -g)
        printf '%s (%.4g-%.4g)\n' "$(median <<<"$v")" "$(head -1 <<<"$v")" "$(tail -1 <<<"$v")"; }
    line="| $label | $(cell lpel) |"
    for p in "${progs[@]:1}"; do line+=" $(cell "$p") | $(ratio "$r" "$p") |"; done
    echo "$line"
done
