#!/bin/sh
# snet_mc_example_test.sh EXAMPLE SNETMON - the MC example network runs,
# prices the option, and its trace (-m A) holds message ids with parents
# that `snetmon dump` prints: component executions reading and writing ids.
set -u
example="$1"
snetmon="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

out=$("$example" -w 2 -p 300) || fail "example exited $?"
echo "$out" | grep -q "call price over 300 paths" || fail "unexpected output: $out"

"$example" -w 2 -p 50 -m A --mon-dir "$tmp/trace" > /dev/null || fail "monitored run exited $?"
"$snetmon" dump "$tmp/trace" > "$tmp/dump" || fail "snetmon dump exited $?"
for kind in component_begin message_read message_written component_end; do
    grep -q " $kind " "$tmp/dump" || fail "no $kind events in the dump"
done
# 1 input + 50 paths + 1 accumulator from png + 50 V + 50 merges + 50 acc outputs
written=$(grep -c " message_written " "$tmp/dump")
[ "$written" -ge 200 ] || fail "only $written messages written"
grep -q "mc.acc" "$tmp/dump" || fail "no task named after the acc box"
echo "snet_mc_example_test: ok ($written messages written)"
