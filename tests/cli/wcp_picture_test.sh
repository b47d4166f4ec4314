#!/bin/sh
# wcp_picture_test.sh - the picture of `snetmon wcp --render` shows the path
# the text report prints.
#   wcp_picture_test.sh SNETMON WORKDIR PROGRAM [ARGS...]
# PROGRAM ARGS -m A --mon-dir DIR makes a trace. The as-executed path's step count
# and length in the text must be the picture's title, and the picture must
# draw the data states its run steps wrote red (none left out: as many as
# `wcp --json` lists in its steps), each with its step.
set -u
snetmon=$1 work=$2
shift 2
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work" || fail "cannot create $work"
"$@" -m A --mon-dir "$work/trace" >/dev/null || fail "$* -m A"
"$snetmon" wcp "$work/trace" --render "$work/path.dot" >"$work/wcp.txt" || fail "wcp --render"
"$snetmon" wcp "$work/trace" --json >"$work/wcp.json" || fail "wcp --json"
line=$(sed -n '/^As-executed critical path/{n;p;}' "$work/wcp.txt")
length=$(echo "$line" | sed -n 's/^  length \([^ ]*\) s, \([0-9]*\) steps.*/\1/p')
count=$(echo "$line" | sed -n 's/^  length \([^ ]*\) s, \([0-9]*\) steps.*/\2/p')
[ -n "$count" ] || fail "no as-executed path in the text: $line"
grep -q "as-executed path (red: the data states its run steps wrote): $count steps, [^\"]* ($length s)" "$work/path.dot" ||
    fail "the picture's title is not the text's path ($count steps, $length s): $(grep -o 'path (red[^;]*' "$work/path.dot")"
# the data states of the run steps, a state written in consecutive steps once
states=$(awk '/"wrote": "/ { if ($2 != last) n++; last = $2 } END { print n + 0 }' "$work/wcp.json")
red=$(grep -c 'fillcolor="#ffe8e8"' "$work/path.dot")
[ "$states" -gt 0 ] || fail "the path's steps wrote no data state"
[ "$red" -eq "$states" ] || fail "$red red nodes for a path whose steps wrote $states data states"
# every red node carries a duration on its last line (its step); dot
# writes a statement over several lines, ending with ';'
bad=$(tr '\n' ' ' <"$work/path.dot" | tr ';' '\n' | grep 'fillcolor="#ffe8e8"' |
      grep -cEv 'label="[^"]* (-?[0-9.]+ (s|ms|µs|ns)|0)"' || true)
[ "$bad" -eq 0 ] || fail "$bad path nodes without a duration"
rm -rf "$work"
echo "ok: the picture draws the $states data states of the $count-step as-executed path of $length s the text prints"
