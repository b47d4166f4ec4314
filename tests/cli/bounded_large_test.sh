#!/bin/sh
# bounded_large_test.sh SNETMON SNET_BENCH WORK MESSAGES LIMIT_KB - snetmon
# metrics and wcp on a trace several times larger than the memory they are
# allowed (issue 22): a snet-bench pipeline trace of MESSAGES records per
# run, analysed under `ulimit -d LIMIT_KB` (the heap and every private
# mapping: what the program allocates) with --max-memory half of it, must
# print what the reference prints: the analysis with the whole graph in
# memory (--in-memory), run without the limit. The reference cannot run
# under the limit (checked, so the limit is known to bite). LIMIT_KB 0: no
# limit (sanitizer builds, whose shadow memory no such limit admits).
set -u
snetmon=$1 bench=$2 work=$3 messages=$4 limit_kb=$5
rm -rf "$work"
mkdir -p "$work/tmp"
fail() { echo "FAIL: $*"; exit 1; }

"$bench" pipeline -w 2 --side snet --messages "$messages" --repeat 2 -m A \
    --mon-dir "$work/trace" >/dev/null || fail "the benchmark run failed"
trace_kb=$(du -sk "$work/trace" | cut -f1)
events=$("$snetmon" dump --count "$work/trace") || fail "dump --count"
echo "trace: $events events, $trace_kb KiB; limit: ${limit_kb} KiB"
if [ "$limit_kb" -gt 0 ]; then
    [ "$trace_kb" -ge $((3 * limit_kb)) ] || fail "the trace is not 3 times the limit"
fi

for cmd in metrics wcp; do
    "$snetmon" $cmd --json --in-memory "$work/trace" >"$work/$cmd.ref" ||
        fail "$cmd --in-memory (the reference)"
    if [ "$limit_kb" -gt 0 ]; then
        (ulimit -d "$limit_kb" && TMPDIR=$work/tmp exec "$snetmon" $cmd --json \
            --max-memory $((limit_kb / 2))K "$work/trace") >"$work/$cmd.bounded" ||
            fail "$cmd under a limit of $limit_kb KiB"
        if (ulimit -d "$limit_kb" && exec "$snetmon" $cmd --json --in-memory "$work/trace") \
            >/dev/null 2>"$work/$cmd.err"; then
            fail "$cmd --in-memory ran under the limit: the test proves nothing"
        fi
    else
        TMPDIR=$work/tmp "$snetmon" $cmd --json --max-memory 64K "$work/trace" \
            >"$work/$cmd.bounded" || fail "$cmd bounded"
    fi
    cmp "$work/$cmd.ref" "$work/$cmd.bounded" || fail "$cmd: bounded differs from the reference"
    echo "$cmd: identical"
done
[ -z "$(ls -A "$work/tmp")" ] || fail "temporary files left in $work/tmp"
rm -rf "$work/trace"
