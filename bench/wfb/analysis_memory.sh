#!/bin/bash
# analysis_memory.sh - peak memory and time of `snetmon metrics` and `wcp`
# on a trace of the default-size `snet-bench pipeline -w 2 -m A` (issue 22),
# the bounded analysis (the default) against the reference with the whole
# graph in memory (--in-memory) of the same binary, run alongside (never
# run as a test):
#
#   analysis_memory.sh SNETMON SNET_BENCH [MESSAGES] [RUNS] [TRACE_DIR]
#
# MESSAGES per run of the benchmark (default 100000, its default size: ~47 M
# events, ~210 MB); each command runs RUNS times (default 3), interleaved;
# printed: median wall and CPU seconds, median peak RSS, events per second
# of wall time, and the reference's RSS over the bounded one's. The trace
# goes to TRACE_DIR (default a temporary directory) and is deleted.
set -eu
snetmon=${1:?usage: analysis_memory.sh SNETMON SNET_BENCH [MESSAGES] [RUNS] [TRACE_DIR]}
bench=${2:?usage: analysis_memory.sh SNETMON SNET_BENCH [MESSAGES] [RUNS] [TRACE_DIR]}
messages=${3:-100000} runs=${4:-3}
work=$(mktemp -d "${5:-${TMPDIR:-/tmp}}/analysis-memory.XXXXXX")
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/../monitor/timing.sh"

"$bench" pipeline -w 2 -m A --messages "$messages" --mon-dir "$work/trace" >/dev/null
events=$("$snetmon" dump --count "$work/trace")
bytes=$(cat "$work"/trace/ctf/* | wc -c)

# rss FILE CMD ARGS...: as timed, plus the peak RSS in MB as a third column
rss() {
    local file=$1
    shift
    /usr/bin/time -f '%e %U %S %M' -o "$work/.t" "$@" >/dev/null 2>"$work/.stderr"
    awk '{printf "%.3f %.3f %.1f\n", $1, $2 + $3, $4 / 1024}' "$work/.t" >>"$file"
}
i=0
while [ $i -lt "$runs" ]; do
    for cmd in metrics wcp; do
        rss "$work/$cmd" "$snetmon" $cmd "$work/trace"
        rss "$work/$cmd-ref" "$snetmon" $cmd --in-memory "$work/trace"
    done
    i=$((i + 1))
done
echo "trace: snet-bench pipeline -w 2 -m A --messages $messages: $events events, $bytes bytes;" \
    "load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| command | peak RSS (MB) | wall (s) | CPU (s) | M events/s (wall) | RSS of --in-memory / bounded |"
echo "|---|---:|---:|---:|---:|---:|"
for cmd in metrics wcp; do
    for v in "$cmd" "$cmd-ref"; do
        w=$(column 1 "$work/$v") c=$(column 2 "$work/$v") m=$(column 3 "$work/$v")
        label=$cmd
        [ "$v" = "$cmd" ] || label="$cmd --in-memory"
        ratio=$(factor "$(column 3 "$work/$cmd-ref")" "$(column 3 "$work/$cmd")")
        [ "$v" = "$cmd" ] || ratio=""
        printf '| %s | %s | %s | %s | %s | %s |\n' "$label" "$m" "$w" "$c" \
            "$(echo "$events $w" | awk '{printf "%.2f", $1 / $2 / 1e6}')" "$ratio"
    done
done
