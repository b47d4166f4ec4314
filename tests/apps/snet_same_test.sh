#!/bin/sh
# snet_same_test.sh SNETRUN SNETMON PROGRAM NET.snet [--any-split-index] -- OPTIONS...
#
# The application PROGRAM (built with the C builder calls) and its network
# file NET.snet run by SNETRUN must give the same results and the same
# network: both run with OPTIONS and full monitoring (-m A); then
#   - the result line (the first line on stdout: prices, checksums,
#     objectives) is the same, apart from rt's scenes per solver, which
#     follow the scheduling;
#   - both --check (given in OPTIONS) pass;
#   - `snetmon metrics` reads the snetrun trace;
#   - the tasks have the same names (net paths), counted by name; with
#     --any-split-index the values of split indices (I3 -> I*) and the
#     counts are left out, for a split whose instances follow the
#     scheduling (rt's balance).
set -u
snetrun=$1 snetmon=$2 program=$3 snet=$4
shift 4
any_index=no
if [ "$1" = --any-split-index ]; then any_index=yes; shift; fi
[ "$1" = -- ] && shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

"$program" "$@" -m A --mon-dir "$tmp/c.trace" > "$tmp/c.out" 2> "$tmp/c.err" ||
    { fail "$program $* exited $?"; cat "$tmp/c.err"; }
"$snetrun" "$snet" "$@" -m A --mon-dir "$tmp/s.trace" > "$tmp/s.out" 2> "$tmp/s.err" ||
    { fail "$snetrun $snet $* exited $?"; cat "$tmp/s.err"; }
[ $failed -eq 0 ] || exit 1
echo "C program:  $(head -1 "$tmp/c.out")"
echo "snetrun:    $(head -1 "$tmp/s.out")"

result() { head -1 "$1" | sed 's/; scenes per solver:.*//'; }
[ "$(result "$tmp/c.out")" = "$(result "$tmp/s.out")" ] || fail "the results differ"
for f in c s; do
    grep -q "check passed" "$tmp/$f.out" || fail "$f: no 'check passed' line"
done

"$snetmon" metrics "$tmp/s.trace" > "$tmp/s.metrics" 2> "$tmp/s.merr" ||
    { fail "snetmon metrics on the snetrun trace exited $?"; cat "$tmp/s.merr"; }
grep -q "throughput (eq. 1)" "$tmp/s.metrics" || fail "snetmon metrics printed no throughput"

# task names, one per task_map event
names() {
    "$snetmon" dump "$1" | sed -n 's/.* task_map .* name=\([^ ]*\).*/\1/p' > "$tmp/names"
    if [ $any_index = yes ]; then
        sed 's/:I[0-9][0-9]*/:I*/g' "$tmp/names" | sort -u
    else
        sort "$tmp/names" | uniq -c
    fi
}
names "$tmp/c.trace" > "$tmp/c.names"
names "$tmp/s.trace" > "$tmp/s.names"
[ -s "$tmp/c.names" ] || fail "no task names in the C program's trace"
if cmp -s "$tmp/c.names" "$tmp/s.names"; then
    echo "$(wc -l < "$tmp/s.names") distinct task names, the same in both traces"
else
    fail "task names differ (C program < > snetrun):"
    diff "$tmp/c.names" "$tmp/s.names" | head -20
fi
exit $failed
