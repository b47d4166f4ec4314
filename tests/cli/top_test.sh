#!/bin/sh
# top_test.sh - `snetmon top` as a user runs it: on a run in progress that
# the test starts itself (two snapshots a moment apart show growing
# counts), on the finished trace of a run (the figures `snetmon metrics`
# and `snetmon dump --count` print too agree), on bad arguments, on a
# directory that is not a trace, and on a damaged trace.
#   top_test.sh SNETMON TOP_CHECK RT WORKDIR
# RT is apps/rt. The live run is bounded: `timeout` ends it after 60 s if
# the test does not stop it first; the test has a CTest timeout too.
set -u
snetmon=$1 check=$2 rt=$3 work=$4
fail() { echo "FAIL: $*" >&2; [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null; exit 1; }
pid=""

rm -rf "$work" && mkdir -p "$work" || fail "cannot create $work"

# --- help and bad arguments --------------------------------------------------
"$snetmon" top --help >"$work/help" || fail "--help exits $?"
grep -q -- "--once" "$work/help" && grep -q -- "--interval" "$work/help" || fail "--help: $(cat "$work/help")"
# Each bad invocation: exit status 2 and one line saying what is wrong.
bad() {
    expect=$1
    shift
    "$snetmon" top "$@" >"$work/bad.out" 2>"$work/bad.err"
    rc=$?
    [ $rc -eq 2 ] || fail "top $*: exit $rc, expected 2"
    [ ! -s "$work/bad.out" ] || fail "top $*: printed on stdout: $(cat "$work/bad.out")"
    grep -q -- "$expect" "$work/bad.err" || fail "top $*: no '$expect' in: $(cat "$work/bad.err")"
}
bad "usage: snetmon top"
bad "interval needs seconds" -d 0 "$work"
bad "interval needs seconds" --interval abc "$work"
bad "iterations needs a positive" -n 0 "$work"
bad "top needs a whole number" --top -3 "$work"
bad "unknown option '--bogus'" --bogus "$work"
bad "needs a value" "$work" -d
bad "one TRACE directory" "$work" "$work"
echo "ok: --help and bad arguments"

# --- not a trace --------------------------------------------------------------
mkdir -p "$work/empty"
"$snetmon" top --once "$work/empty" >"$work/nt.out" 2>"$work/nt.err"
rc=$?
[ $rc -eq 1 ] || fail "top on a non-trace directory: exit $rc, expected 1"
[ "$(wc -l <"$work/nt.err")" -eq 1 ] && grep -q "^snetmon top: .*empty/metadata: cannot open: .*not a trace directory" "$work/nt.err" ||
    fail "top on a non-trace directory: $(cat "$work/nt.err")"
[ ! -s "$work/nt.out" ] || fail "top on a non-trace directory printed: $(cat "$work/nt.out")"
"$snetmon" top --once "$work/absent" 2>"$work/nt.err" && fail "top on a missing directory succeeded"
grep -q "^snetmon top: .*absent" "$work/nt.err" || fail "top on a missing directory: $(cat "$work/nt.err")"
echo "ok: a directory that is not a trace is one error line, exit 1"

# --- a run in progress --------------------------------------------------------
live="$work/live"
timeout 60 "$rt" -w 2 --inputs 100000 -m A --mon-dir "$live" --mon-flush 50 >"$work/rt.out" 2>"$work/rt.err" &
pid=$!
# The first snapshot once the run has published events (up to 20 s).
i=0
while :; do
    if "$snetmon" top --once --json "$live" >"$work/snap1.json" 2>"$work/snap.err" &&
        grep -q '"events":[1-9]' "$work/snap1.json"; then
        break
    fi
    i=$((i + 1))
    [ $i -lt 200 ] || fail "no events in the live trace after 20 s: $(cat "$work/snap.err" "$work/rt.err")"
    kill -0 $pid 2>/dev/null || fail "the live run ended early: $(cat "$work/rt.err")"
    sleep 0.1
done
sleep 1
"$snetmon" top --once --json "$live" >"$work/snap2.json" 2>"$work/snap.err" || fail "second snapshot: $(cat "$work/snap.err")"
"$snetmon" top --once "$live" >"$work/snap.txt" 2>"$work/snap.err" || fail "text snapshot: $(cat "$work/snap.err")"
kill -0 $pid 2>/dev/null || fail "the live run ended before the snapshots were taken (too fast a machine?)"
kill $pid 2>/dev/null
wait $pid 2>/dev/null
pid=""
"$check" grow "$work/snap1.json" "$work/snap2.json" || fail "snapshots of the run in progress: $(cat "$work/snap1.json" "$work/snap2.json")"
grep -q '"state":"in progress"' "$work/snap2.json" || fail "the logs of a run in progress are not 'in progress': $(cat "$work/snap2.json")"
grep -q "^snetmon top .*: run in progress" "$work/snap.txt" && grep -q "^worker state" "$work/snap.txt" &&
    grep -q "^tasks by execution time" "$work/snap.txt" || fail "text snapshot: $(cat "$work/snap.txt")"
echo "ok: run in progress: $(sed 's/.*"events":\([0-9]*\).*/\1/' "$work/snap1.json") then $(sed 's/.*"events":\([0-9]*\).*/\1/' "$work/snap2.json") events"

# --- a finished run -------------------------------------------------------------
done_dir="$work/done"
"$rt" -w 2 --inputs 64 -m A --mon-dir "$done_dir" --mon-flush 50 >/dev/null 2>"$work/rt.err" || fail "rt: $(cat "$work/rt.err")"
"$snetmon" top --once --json --top 0 "$done_dir" >"$work/top.json" || fail "top on the finished trace"
"$snetmon" metrics --json "$done_dir" >"$work/metrics.json" || fail "metrics on the finished trace"
events=$("$snetmon" dump --count "$done_dir") || fail "dump --count"
"$check" match "$work/top.json" "$work/metrics.json" "$events" || fail "top and metrics disagree"
# Without --once on a finished trace: one snapshot, then exit.
"$snetmon" top -d 0.1 "$done_dir" >"$work/loop.txt" || fail "top (loop) on a finished trace"
[ "$(grep -c '^snetmon top ' "$work/loop.txt")" -eq 1 ] && grep -q ': run finished' "$work/loop.txt" ||
    fail "top (loop) on a finished trace: $(cat "$work/loop.txt")"
echo "ok: finished run: top agrees with metrics and dump --count ($events events)"

# --- why a figure is missing ----------------------------------------------------
# The first frame of an -m A run before anything is published: nothing read
# yet, which says nothing about the flags (a copy of the finished trace with
# its logs emptied and run.json not yet complete stands for that moment).
cp -r "$done_dir" "$work/early"
for f in "$work"/early/ctf/worker-*; do : >"$f"; done
sed 's/"complete": true/"complete": false/' "$done_dir/run.json" >"$work/early/run.json"
"$snetmon" top --once "$work/early" >"$work/early.txt" 2>"$work/early.err" || fail "top on an early trace: $(cat "$work/early.err")"
grep -q "throughput so far n/a (no worker_start read yet)" "$work/early.txt" && ! grep -q "recorded without" "$work/early.txt" ||
    fail "top's first frame of an -m A run: $(cat "$work/early.txt")"
# A run recorded without W: that is the reason, in text and JSON.
"$rt" -w 2 --inputs 16 -m mtT --mon-dir "$work/nw" >/dev/null 2>&1 || fail "rt -m mtT"
"$snetmon" top --once "$work/nw" >"$work/nw.txt" || fail "top on a trace without W"
grep -q "throughput so far n/a (no worker_start: recorded without the W flag)" "$work/nw.txt" || fail "top without W: $(cat "$work/nw.txt")"
"$snetmon" top --once --json "$work/nw" | grep -q '"throughput_unknown_why":"no worker_start: recorded without the W flag"' ||
    fail "top --json without W: no reason"
echo "ok: a missing figure says why: not read yet, or recorded without the flag"

# --- a damaged trace ------------------------------------------------------------
cp -r "$done_dir" "$work/cut"
log="$work/cut/ctf/worker-0"
size=$(wc -c <"$log")
head -c $((size / 2 + 5)) "$log" >"$work/cut.log" && mv "$work/cut.log" "$log"
"$snetmon" top --once "$work/cut" >"$work/cut.out" 2>"$work/cut.err"
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$work/cut.err")" -eq 1 ] &&
    grep -q "^snetmon top: .*worker-0: truncated: .*--partial analyses what can be read" "$work/cut.err" ||
    fail "top on a cut trace: exit $rc: $(cat "$work/cut.err")"
"$snetmon" top --once --partial "$work/cut" >"$work/cut.out" 2>"$work/cut.err" || fail "top --partial on a cut trace"
grep -q "^log of worker 0: .*truncated" "$work/cut.out" || fail "top --partial does not name the loss: $(cat "$work/cut.out")"
echo "ok: a cut trace is refused in one line; --partial shows what was lost"

rm -rf "$work"
echo "all snetmon top checks passed"
