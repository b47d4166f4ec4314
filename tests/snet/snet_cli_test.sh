#!/bin/sh
# snet_cli_test.sh DEMO - runs the snet_prog_main demo program from the command
# line: records as text on stdin and from a file, output to stdout and to a
# file, the exit status of a run with a bad record and of a bad option.
set -u
demo="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

printf '# three records\n{x=1, <t>=4}\n{x=2, <t>=7} {x=3, s:string="a,b", <t>=9}\n' > "$tmp/in"
expected='{x=2, <t>=0}
{x=3, <t>=1}
{x=4, <t>=1, s:string="a,b"}'

out=$("$demo" -w 2 < "$tmp/in") || fail "stdin run exited $?"
[ "$out" = "$expected" ] || fail "stdin run printed: $out"

"$demo" -i "$tmp/in" -O "$tmp/out" || fail "file run exited $?"
[ "$(cat "$tmp/out")" = "$expected" ] || fail "file run wrote: $(cat "$tmp/out")"

printf '{x=1, <t>=1}\n{y=2}\n' | "$demo" > "$tmp/out2" 2> "$tmp/err2"
status=$?
[ $status -eq 1 ] || fail "a record matching nothing: exit $status, expected 1"
grep -q "filter 'S1:filter': record {y} matches no pattern (expected {x, <t>})" "$tmp/err2" ||
    fail "no error message naming the filter: $(cat "$tmp/err2")"
[ "$(cat "$tmp/out2")" = '{x=2, <t>=1}' ] || fail "the good record did not come out"

"$demo" --no-such-option < /dev/null > /dev/null 2>&1
status=$?
[ $status -eq 2 ] || fail "bad option: exit $status, expected 2"

# --map FILE: a good mapping runs; a pattern no task has and a worker out of
# range are usage errors (exit 2) naming the file and line, before any output.
printf '# every replica of the split on worker 1\nS2:I*:** 1\n** 0\n' > "$tmp/good.map"
out=$("$demo" -w 2 --map "$tmp/good.map" < "$tmp/in") || fail "--map run exited $?"
[ "$out" = "$expected" ] || fail "--map run printed: $out"
printf 'S1:filter 0\n\nS2:I*:R0 1\n' > "$tmp/pattern.map"
"$demo" -w 2 --map "$tmp/pattern.map" < "$tmp/in" > "$tmp/out3" 2> "$tmp/err3"
status=$?
[ $status -eq 2 ] || fail "unknown pattern: exit $status, expected 2"
grep -q "pattern.map:3: pattern 'S2:I\*:R0' matches no task of this network" "$tmp/err3" ||
    fail "unknown pattern message: $(cat "$tmp/err3")"
[ ! -s "$tmp/out3" ] || fail "unknown pattern: output written"
printf 'S1:filter 3\n' > "$tmp/worker.map"
"$demo" -w 2 --map "$tmp/worker.map" < "$tmp/in" > /dev/null 2> "$tmp/err4"
status=$?
[ $status -eq 2 ] || fail "worker out of range: exit $status, expected 2"
grep -q "worker.map:1: worker 3 is out of range: the run has 2 workers (0-1)" "$tmp/err4" ||
    fail "worker out of range message: $(cat "$tmp/err4")"
"$demo" -w 2 --map "$tmp/missing.map" < "$tmp/in" > /dev/null 2> "$tmp/err5"
[ $? -eq 2 ] && grep -q "cannot open mapping file" "$tmp/err5" || fail "missing map file"

echo "snet_cli_test: ok"
