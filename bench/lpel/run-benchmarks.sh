#!/usr/bin/env bash
# Regenerate the LPEL and S-Net runtime figures of docs/BENCHMARKS.md, with
# the spread a busy machine gives them.
#
# Builds the tree twice (hooks built in = "cur", hooks compiled out =
# "nohooks"), and with --against REF also the git revision REF ("prev", the
# build a change is measured against). Then runs every benchmark row RUNS
# times, each round running every row on every build back to back
# (interleaved), with GAP seconds between rounds, so the runs of a row are
# spread over the whole session. For every single run it records the
# machine's steal time (/proc/stat, the share of CPU time the hypervisor
# gave to others) and the 1-minute load average, so that each figure says
# how noisy its window was.
#
# Single-worker figures are also given per process CPU second (cpu_*): on a
# busy machine a worker waits for a core for most of the wall time, which
# says more about the machine than about the runtime.
#
# Prints a Markdown table: per row and build the median, min and max, the
# max/min spread, the median of cur over each other build (per-round ratios:
# both ran within seconds of each other), steal time (median and max over
# the row's runs) and load (median). Raw per-run values go to
# build/bench-results.tsv.
#
# Usage: bench/lpel/run-benchmarks.sh [--runs N] [--gap S] [--against REF]
#                                     [--only REGEX] [--nice N]
#   --runs N      runs per row and build (default 10)
#   --gap S       seconds between rounds (default 20)
#   --against REF also build git revision REF and compare cur with it
#   --only REGEX  only the rows whose label matches (grep -E)
#   --nice N      run the benchmarks with this session's scheduler group at
#                 niceness N (-20..19; Linux with autogroup, root for N < 0),
#                 restored afterwards. Under autogroup every login session
#                 gets an equal share of the CPUs whatever its processes'
#                 nice values, so on a machine shared with other sessions a
#                 2-worker run gets a fraction of two cores; -20 gives the
#                 runs most of the machine while the others still run. The
#                 output says which niceness the runs had.
set -euo pipefail
cd "$(dirname "$0")/../.."

runs=10 gap=20 against="" only="" nice=""
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) runs=${2:?--runs needs a number}; shift 2 ;;
        --gap) gap=${2:?--gap needs seconds}; shift 2 ;;
        --against) against=${2:?--against needs a git revision}; shift 2 ;;
        --only) only=${2:?--only needs a pattern}; shift 2 ;;
        --nice) nice=${2:?--nice needs a niceness}; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "run-benchmarks.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done
case "$runs$gap" in *[!0-9]*) echo "run-benchmarks.sh: --runs and --gap take whole numbers" >&2; exit 2 ;; esac
[ "$runs" -ge 1 ] || { echo "run-benchmarks.sh: --runs must be at least 1" >&2; exit 2; }
case "$nice" in ""|-[0-9]|-[0-9][0-9]|[0-9]|[0-9][0-9]) ;;
    *) echo "run-benchmarks.sh: --nice takes a niceness from -20 to 19" >&2; exit 2 ;; esac

bash scripts/deps.sh >/dev/null

build() { # name source-dir cmake-flags...
    local name=$1 src=$2; shift 2
    echo "building $name ..." >&2
    cmake -S "$src" -B "build/bench-$name" -DCMAKE_BUILD_TYPE=Release -DWERROR=OFF "$@" >/dev/null
    cmake --build "build/bench-$name" -j "$(nproc)" --target lpel-bench snet-bench >/dev/null
}
builds=(cur)
build cur . -DLPEL_HOOKS=ON
if [ -n "$against" ]; then
    rev=$(git rev-parse --verify "$against^{commit}") ||
        { echo "run-benchmarks.sh: '$against' is not a git revision" >&2; exit 2; }
    rm -rf build/bench-prev-src && mkdir -p build/bench-prev-src
    git archive "$rev" | tar -x -C build/bench-prev-src
    build prev build/bench-prev-src -DLPEL_HOOKS=ON
    builds+=(prev)
fi
build nohooks . -DLPEL_HOOKS=OFF
builds+=(nohooks)

# label | JSON fields (each one table line; cpu_* is per process CPU
# second, which leaves out the time the workers waited for a core) |
# program (lpel or snet) and its arguments. A "+" before the program runs
# the pthreads program of the same shape too (cur only).
rows=(
    "ctx, 1e7 switches|ns_per_switch,cpu_ns_per_switch|+lpel ctx --full"
    "ring, 10 tasks x 100000 rounds|ns_per_hop,cpu_ns_per_hop|+lpel ring --ring-size 10 --rounds 100000"
    "ring, 100 tasks x 1000 rounds|ns_per_hop,cpu_ns_per_hop|lpel ring --ring-size 100 --rounds 1000"
    "ring, 1000 tasks x 1000 rounds|ns_per_hop,cpu_ns_per_hop|lpel ring --ring-size 1000 --rounds 1000"
    "ring, 10000 tasks x 100 rounds|ns_per_hop,cpu_ns_per_hop|lpel ring --ring-size 10000 --rounds 100"
    "pipe, depth 100, halves|ns_per_hop,cpu_ns_per_hop|+lpel pipe --full --stages 100 --place parts"
    "pipe, depth 100, alternating|ns_per_hop,cpu_ns_per_hop|lpel pipe --full --stages 100 --place rr"
    "pipe, depth 100, all on worker 0|ns_per_hop,cpu_ns_per_hop|lpel pipe --full --stages 100 --place const"
    "create+destroy, 1e6 tasks|ns_per_task,cpu_ns_per_task|lpel create --full"
    "S-Net 10-stage pipeline / raw pipe, 2 workers|raw_per_s,snet_per_s,ratio_pct,cpu_ratio_pct|snet pipeline -w 2 --messages 300000 --repeat 1"
    "S-Net 10-stage pipeline / raw pipe, 1 worker|raw_per_s,snet_per_s,ratio_pct,cpu_ratio_pct|snet pipeline -w 1 --messages 300000 --repeat 1"
)
if [ -n "$only" ]; then
    kept=()
    for r in "${rows[@]}"; do grep -Eq -- "$only" <<<"${r%%|*}" && kept+=("$r"); done
    rows=("${kept[@]}")
    [ ${#rows[@]} -gt 0 ] || { echo "run-benchmarks.sh: no row matches '$only'" >&2; exit 2; }
fi

field() { sed -n "s/.*\"$1\":\([0-9.e+-]*\).*/\1/p" <<<"$2"; }
cpu_counters() { awk '/^cpu /{print $9, $2+$3+$4+$5+$6+$7+$8+$9; exit}' /proc/stat; }
steal_pct() { # before after
    awk -v a="$1" -v b="$2" 'BEGIN{split(a,x," "); split(b,y," "); t=y[2]-x[2];
        printf "%.2f", (t > 0 ? 100*(y[1]-x[1])/t : 0)}'
}

# The session's scheduler group (autogroup) and its niceness during the runs.
group_nice() { sed -n 's/.* nice \(-\{0,1\}[0-9]*\)$/\1/p' /proc/self/autogroup 2>/dev/null; }
nice_before=$(group_nice)
if [ -n "$nice" ]; then
    [ -n "$nice_before" ] && echo "$nice" >/proc/self/autogroup 2>/dev/null ||
        { echo "run-benchmarks.sh: cannot set the autogroup niceness (needs Linux autogroup and root)" >&2; exit 1; }
    trap 'echo "$nice_before" >/proc/self/autogroup' EXIT
fi
runs_nice=$(group_nice)

results=build/bench-results.tsv
: >"$results"
started=$(date -u +%Y-%m-%dT%H:%MZ)
window_before=$(cpu_counters)
for ((round = 1; round <= runs; round++)); do
    echo "round $round of $runs ..." >&2
    for ((r = 0; r < ${#rows[@]}; r++)); do
        IFS='|' read -r label fields cmd <<<"${rows[$r]}"
        base=0; [ "${cmd:0:1}" = + ] && { base=1; cmd=${cmd:1}; }
        read -r prog args <<<"$cmd"
        for b in "${builds[@]}"; do
            bin=build/bench-$b/bench/$prog/$prog-bench
            extra=(--json)
            [ "$prog" = lpel ] && { [ $base = 1 ] && [ $b = cur ] || extra+=(--no-baseline); }
            before=$(cpu_counters)
            # shellcheck disable=SC2086 # args are words by design
            json=$("$bin" $args "${extra[@]}" 2>/dev/null) || json=""
            after=$(cpu_counters)
            steal=$(steal_pct "$before" "$after")
            load=$(cut -d' ' -f1 /proc/loadavg)
            for unit in ${fields//,/ }; do
                value=$(field "$unit" "$json"); value=${value:--}
                pthreads=$(field "baseline_$unit" "$json"); pthreads=${pthreads:--}
                printf '%s\t%s\t%d\t%s\t%s\t%s\t%s\n' "$r:$unit" "$b" "$round" "$value" \
                    "$steal" "$load" "$pthreads" >>"$results"
            done
        done
    done
    [ "$round" -lt "$runs" ] && sleep "$gap"
done
window_steal=$(steal_pct "$window_before" "$(cpu_counters)")

# Statistics of column 4 (values) of the lines on stdin.
stats() { awk -F'\t' '$4 != "-" {print $4}' | sort -g | awk '{a[NR]=$1}
    END {if (!NR) {print "- - - -"; exit}
         m = NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2
         printf "%.4g %.4g %.4g %.2f\n", m, a[1], a[NR], (a[1] > 0 ? a[NR]/a[1] : 0)}'; }
median_col() { awk -F'\t' -v c="$1" '$c != "-" {print $c}' | sort -g |
    awk '{a[NR]=$1} END {if (!NR) print "-"; else printf "%.4g\n", NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
max_col() { awk -F"\t" -v c="$1" '$c != "-" && (m == "" || $c + 0 > m + 0) {m = $c} END {print (m == "" ? "-" : m)}'; }
# Median over rounds of cur's value divided by build b's, from the same round.
ratio() { # row build
    awk -F'\t' -v r="$1" -v b="$2" '$1 == r && $4 != "-" {v[$2, $3] = $4}
        END {for (k in v) {split(k, p, SUBSEP); if (p[1] == "cur" && ((b, p[2]) in v) && v[b, p[2]] > 0)
             print v[k] / v[b, p[2]]}}' "$results" | sort -g |
        awk '{a[NR]=$1} END {if (!NR) print "-"; else printf "%.3f\n", NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'
}

echo
echo "$runs runs per row and build, interleaved, $gap s between rounds; $started to" \
     "$(date -u +%Y-%m-%dT%H:%MZ); $(nproc) CPUs; steal time over the whole window $window_steal %;" \
     "session scheduler group niceness ${runs_nice:-unknown (no autogroup)}."
echo
others=("${builds[@]:1}")
header="| benchmark | unit | build | median | min | max | max/min |"
rule="|---|---|---|---|---|---|---|"
for o in "${others[@]}"; do header+=" cur / $o |"; rule+="---|"; done
echo "$header steal % median (max) | load median | pthreads median |"
echo "$rule---|---|---|"
for ((r = 0; r < ${#rows[@]}; r++)); do
    IFS='|' read -r label fields _ <<<"${rows[$r]}"
    for unit in ${fields//,/ }; do
    for b in "${builds[@]}"; do
        lines=$(awk -F'\t' -v r="$r:$unit" -v b="$b" '$1 == r && $2 == b' "$results")
        read -r med lo hi spread <<<"$(stats <<<"$lines")"
        line="| $label | $unit | $b | $med | $lo | $hi | $spread |"
        for o in "${others[@]}"; do
            if [ "$b" = cur ]; then line+=" $(ratio "$r:$unit" "$o") |"; else line+=" |"; fi
        done
        steal="$(median_col 5 <<<"$lines") ($(max_col 5 <<<"$lines"))"
        echo "$line $steal | $(median_col 6 <<<"$lines") | $(median_col 7 <<<"$lines") |"
    done
    done
done
