#!/usr/bin/env bash
# Instructions per record of the S-Net 10-stage pipeline and of the raw
# LPEL pipe of the same shape (or, with --bench c4snet, of the 10-box
# pipelines of C4SNet boxes and of native boxes), counted by callgrind:
# exact whatever the machine's load, so a change to the hot path can be
# judged on a busy machine where wall-clock figures are noise.
#
# For each side (pipeline: raw, snet; c4snet: native, c4snet) and each
# binary, runs
#   snet-bench BENCH --side SIDE -w W --messages N --repeat 1 [--box B]
# under callgrind for N = N1 and N = 2*N1; the difference of the two totals
# divided by N1 is the instructions one more record costs (start-up, worker
# creation and the dynamic loader cancel out). c4snet runs both of its
# shapes (field passed on, new value) per record: its figure is their
# mean. Prints per binary and side the Ir per record (whole pipe: input
# task, 10 stages, output task) and per stage (divided by the 11 hand-offs
# of a record), the second side's figure over the first's, and, with
# --against, the ratio of the current binary's figures to the other's.
#
# Usage: bench/snet/ir-per-record.sh [--bin PATH] [--against PATH] [--workers W]
#                                    [--messages N1] [--bench pipeline|c4snet]
#                                    [--box reuse|new] [--profile DIR]
#   --bin PATH      snet-bench to measure (default build/release/bench/snet/snet-bench)
#   --against PATH  another snet-bench (e.g. a build of a previous revision)
#   --workers W     LPEL workers (default 1: nothing but instructions count)
#   --messages N1   records of the smaller run (default 20000)
#   --bench B       pipeline (default) or c4snet
#   --box B         how the native boxes are written (snet-bench --box):
#                   reuse or new; not given to --against (older builds
#                   have no --box: they build new records)
#   --profile DIR   keep the callgrind output files of the larger runs in DIR
set -euo pipefail
cd "$(dirname "$0")/../.."

bin=build/release/bench/snet/snet-bench against="" workers=1 n1=20000 profile="" bench=pipeline box=""
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
    case "$1" in
        --bin) bin=${2:?--bin needs a path}; shift 2 ;;
        --against) against=${2:?--against needs a path}; shift 2 ;;
        --workers) workers=${2:?--workers needs a number}; shift 2 ;;
        --messages) n1=${2:?--messages needs a number}; shift 2 ;;
        --bench) bench=${2:?--bench needs pipeline or c4snet}; shift 2 ;;
        --box) box=${2:?--box needs reuse or new}; shift 2 ;;
        --profile) profile=${2:?--profile needs a directory}; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "ir-per-record.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done
case "$workers$n1" in *[!0-9]*|'') echo "ir-per-record.sh: --workers and --messages take whole numbers" >&2; exit 2 ;; esac
case "$bench" in
    pipeline) sides=(raw snet) per=1 ;;
    c4snet) sides=(native c4snet) per=2 ;;
    *) echo "ir-per-record.sh: --bench takes pipeline or c4snet, not '$bench'" >&2; exit 2 ;;
esac
case "$box" in ''|reuse|new) ;; *) echo "ir-per-record.sh: --box takes reuse or new, not '$box'" >&2; exit 2 ;; esac
command -v valgrind >/dev/null || { echo "ir-per-record.sh: valgrind is not installed" >&2; exit 1; }
for b in "$bin" $against; do
    [ -x "$b" ] || { echo "ir-per-record.sh: $b is not an executable (build snet-bench first)" >&2; exit 1; }
done
[ -z "$profile" ] || mkdir -p "$profile"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Total Ir of one run (callgrind's summary line).
total_ir() { # binary side messages outfile box-args...
    local b=$1 side=$2 n=$3 out=$4
    shift 4
    valgrind --tool=callgrind --callgrind-out-file="$out" "$b" "$bench" --side "$side" \
        -w "$workers" --messages "$n" --repeat 1 "$@" >/dev/null 2>"$tmp/log" ||
        { cat "$tmp/log" >&2; echo "ir-per-record.sh: $b --side $side failed" >&2; exit 1; }
    sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$out"
}

per_record() { # binary side label box-args... -> prints Ir per record
    local b=$1 side=$2 label=$3 small big
    shift 3
    small=$(total_ir "$b" "$side" "$n1" "$tmp/small.out" "$@")
    big=$(total_ir "$b" "$side" $((2 * n1)) "$tmp/big.out" "$@")
    [ -z "$profile" ] || cp "$tmp/big.out" "$profile/callgrind.$label.$side.out"
    echo $(((big - small) / (n1 * per)))
}

declare -A ir
names=(cur)
[ -z "$against" ] || names+=(other)
for name in "${names[@]}"; do
    b=$bin args=()
    [ "$name" = cur ] || b=$against
    [ "$name" != cur ] || [ -z "$box" ] || args=(--box "$box")
    for side in "${sides[@]}"; do
        ir[$name.$side]=$(per_record "$b" "$side" "$name" ${args[@]+"${args[@]}"})
    done
done

a=${sides[0]} z=${sides[1]}
echo "Ir per record ($bench${box:+, --box $box}), $workers worker(s), callgrind, (Ir(2N) - Ir(N)) / N with N = $n1"
printf '| binary | %s: per record | per stage | %s: per record | per stage | %s / %s |\n' "$a" "$z" "$z" "$a"
printf '|---|---:|---:|---:|---:|---:|\n'
for name in "${names[@]}"; do
    b=$bin
    [ "$name" = cur ] || b=$against
    r=${ir[$name.$a]} s=${ir[$name.$z]}
    awk -v b="$b" -v r="$r" -v s="$s" 'BEGIN {
        printf "| %s | %d | %.1f | %d | %.1f | %.3f |\n", b, r, r / 11, s, s / 11, s / r }'
done
if [ -n "$against" ]; then
    awk -v r1="${ir[cur.$a]}" -v r0="${ir[other.$a]}" -v s1="${ir[cur.$z]}" \
        -v s0="${ir[other.$z]}" -v a="$a" -v z="$z" 'BEGIN {
        printf "current / against: %s %.3f, %s %.3f\n", a, r1 / r0, z, s1 / s0 }'
fi
