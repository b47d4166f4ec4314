#!/usr/bin/env bash
# Instructions per record of the S-Net 10-stage pipeline and of the raw
# LPEL pipe of the same shape, counted by callgrind: exact whatever the
# machine's load, so a change to the hot path can be judged on a busy
# machine where wall-clock figures are noise.
#
# For each side (raw, snet) and each binary, runs
#   snet-bench pipeline --side SIDE -w W --messages N --repeat 1
# under callgrind for N = N1 and N = 2*N1; the difference of the two totals
# divided by N1 is the instructions one more record costs (start-up, worker
# creation and the dynamic loader cancel out). Prints per binary and side
# the Ir per record (whole pipe: input task, 10 stages, output task) and per
# stage (divided by the 11 hand-offs of a record), and, with --against, the
# ratio of the current binary's figure to the other's.
#
# Usage: bench/snet/ir-per-record.sh [--bin PATH] [--against PATH] [--workers W]
#                                    [--messages N1] [--profile DIR]
#   --bin PATH      snet-bench to measure (default build/release/bench/snet/snet-bench)
#   --against PATH  another snet-bench (e.g. a build of a previous revision)
#   --workers W     LPEL workers (default 1: nothing but instructions count)
#   --messages N1   records of the smaller run (default 20000)
#   --profile DIR   keep the callgrind output files of the larger runs in DIR
set -euo pipefail
cd "$(dirname "$0")/../.."

bin=build/release/bench/snet/snet-bench against="" workers=1 n1=20000 profile=""
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
    case "$1" in
        --bin) bin=${2:?--bin needs a path}; shift 2 ;;
        --against) against=${2:?--against needs a path}; shift 2 ;;
        --workers) workers=${2:?--workers needs a number}; shift 2 ;;
        --messages) n1=${2:?--messages needs a number}; shift 2 ;;
        --profile) profile=${2:?--profile needs a directory}; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "ir-per-record.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done
case "$workers$n1" in *[!0-9]*) echo "ir-per-record.sh: --workers and --messages take whole numbers" >&2; exit 2 ;; esac
command -v valgrind >/dev/null || { echo "ir-per-record.sh: valgrind is not installed" >&2; exit 1; }
for b in "$bin" $against; do
    [ -x "$b" ] || { echo "ir-per-record.sh: $b is not an executable (build snet-bench first)" >&2; exit 1; }
done
[ -z "$profile" ] || mkdir -p "$profile"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Total Ir of one run (callgrind's summary line).
total_ir() { # binary side messages outfile
    valgrind --tool=callgrind --callgrind-out-file="$4" "$1" pipeline --side "$2" -w "$workers" \
        --messages "$3" --repeat 1 >/dev/null 2>"$tmp/log" ||
        { cat "$tmp/log" >&2; echo "ir-per-record.sh: $1 --side $2 failed" >&2; exit 1; }
    sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$4"
}

per_record() { # binary side label -> prints Ir per record
    local small big
    small=$(total_ir "$1" "$2" "$n1" "$tmp/small.out")
    big=$(total_ir "$1" "$2" $((2 * n1)) "$tmp/big.out")
    [ -z "$profile" ] || cp "$tmp/big.out" "$profile/callgrind.$3.$2.out"
    echo $(((big - small) / n1))
}

declare -A ir
names=(cur)
[ -z "$against" ] || names+=(other)
for name in "${names[@]}"; do
    b=$bin
    [ "$name" = cur ] || b=$against
    for side in raw snet; do
        ir[$name.$side]=$(per_record "$b" "$side" "$name")
    done
done

echo "Ir per record, $workers worker(s), callgrind, (Ir(2N) - Ir(N)) / N with N = $n1"
printf '| binary | raw pipe: per record | per stage | S-Net: per record | per stage | S-Net / raw |\n'
printf '|---|---:|---:|---:|---:|---:|\n'
for name in "${names[@]}"; do
    b=$bin
    [ "$name" = cur ] || b=$against
    r=${ir[$name.raw]} s=${ir[$name.snet]}
    awk -v b="$b" -v r="$r" -v s="$s" 'BEGIN {
        printf "| %s | %d | %.1f | %d | %.1f | %.2f |\n", b, r, r / 11, s, s / 11, s / r }'
done
if [ -n "$against" ]; then
    awk -v r1="${ir[cur.raw]}" -v r0="${ir[other.raw]}" -v s1="${ir[cur.snet]}" \
        -v s0="${ir[other.snet]}" 'BEGIN {
        printf "current / against: raw %.3f, S-Net %.3f\n", r1 / r0, s1 / s0 }'
fi
