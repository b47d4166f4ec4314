#!/bin/sh
# integrity_test.sh - the ordinary accidents of a user's trace directory
# (issue 24) never change a figure: each gives one line, exit status 1, and
# --partial counts what it costs.
#   integrity_test.sh SNETMON PIPELINE WORKDIR [CASE...]
# PIPELINE is tests/monitor/mon_pipeline (producer -> relay -> consumer; its
# --hold S keeps a run alive for a kill). CASE: 1-8, all by default:
#   1 stale logs      a second run into the same directory with fewer workers;
#                     a log of another run put in place of one of this run's
#   2 duplicates      a copy worker-00 beside worker-0, a link worker-3 to it
#   3 special files   a FIFO named worker-1, run.json or metadata; run.json a
#                     directory (bounded by timeout: they used to hang)
#   4 the clock       the metadata without its clock block, with another
#                     frequency than run.json's
#   5 text cut short  a NetLogger log ending inside a line (metrics, wcp,
#                     store, import)
#   6 unfinished runs SIGTERM with -m mtTS, SIGKILL with -m mt: refused by every
#                     subcommand, the cause named
#   7 a full file     the log's size limited (ulimit -f): what fits is
#                     written, what did not is counted as run.json counts it
#   8 lost output     wcp, metrics, dump, top, export to /dev/full
set -u
snetmon=$1 pipeline=$2 work=$3
shift 3
cases=${*:-1 2 3 4 5 6 7 8}
fail() { echo "FAIL: $*" >&2; exit 1; }
bp_log=$(dirname "$0")/../fixtures/netlogger/blackdiamond.bp

rm -rf "$work" && mkdir -p "$work" || fail "cannot create $work"

# A finished trace of the pipeline: DIR ITEMS WORKERS [FLAGS]
record() {
    "$pipeline" -m "${4:-A}" --mon-dir "$1" "$2" "$3" >/dev/null 2>"$work/record.err" ||
        fail "mon_pipeline $*: $(cat "$work/record.err")"
}

# SNETMON ARGS must exit 1 with one line holding WHAT: refused WHAT ARGS...
refused() {
    what=$1
    shift
    timeout 60 "$snetmon" "$@" >"$work/stdout" 2>"$work/err"
    rc=$?
    [ $rc -eq 1 ] || fail "snetmon $*: exit $rc, not 1 ($(head -c 300 "$work/err"))"
    [ "$(wc -l <"$work/err")" -eq 1 ] || fail "snetmon $*: not one line: $(cat "$work/err")"
    grep -q -- "$what" "$work/err" || fail "snetmon $*: '$what' not in: $(cat "$work/err")"
}

# The number of events of a trace (dump --count [--partial]).
count() {
    "$snetmon" dump --count "$@" 2>/dev/null | head -1
}

case_1() {
    record "$work/stale" 300 2
    record "$work/stale" 300 1
    [ ! -e "$work/stale/ctf/worker-1" ] || fail "stale: the second run left the first run's worker-1"
    "$snetmon" metrics --json "$work/stale" >"$work/m.json" || fail "stale: metrics"
    grep -q '"inputs": 300,' "$work/m.json" || fail "stale: not 300 inputs: $(grep '"inputs"' "$work/m.json")"
    n=$(count "$work/stale")
    want=$(sed -n 's/.*"worker": 0, "events": \([0-9]*\).*/\1/p' "$work/stale/run.json")
    [ "$n" = "$want" ] || fail "stale: dump counts $n events, the run wrote $want"
    # A log of another run in place of one of this run's: refused, named.
    record "$work/other" 300 2
    record "$work/this" 300 2
    cp "$work/other/ctf/worker-1" "$work/this/ctf/worker-1"
    refused "worker-1: not a log of this run: its packets name run" dump "$work/this"
    # A worker the finished run does not list.
    cp "$work/other/ctf/worker-1" "$work/stale/ctf/worker-1"
    refused "worker-1: not a log of this run: run.json of the finished run lists no log of worker 1" \
        metrics "$work/stale"
    rm "$work/stale/ctf/worker-1"
    # A file of something else in the CTF directory: the writer refuses to
    # start a run beside it rather than delete it.
    echo notes >"$work/stale/ctf/notes.txt"
    if "$pipeline" -m A --mon-dir "$work/stale" 10 1 >/dev/null 2>"$work/err"; then
        fail "stale: a run started beside ctf/notes.txt"
    fi
    grep -q "ctf/notes.txt: not a file of a trace" "$work/err" || fail "stale: $(cat "$work/err")"
    echo "ok 1: a second run replaces the first run's logs; logs of other runs are refused"
}

case_2() {
    record "$work/dup" 300 2
    n=$(count "$work/dup")
    cp "$work/dup/ctf/worker-0" "$work/dup/ctf/worker-00"
    refused "worker-00: not a log the monitor writes" dump --count "$work/dup"
    refused "worker-00: not a log the monitor writes" metrics "$work/dup"
    [ "$(count --partial "$work/dup")" = "$n" ] || fail "dup: --partial counts the copy"
    rm "$work/dup/ctf/worker-00"
    ln "$work/dup/ctf/worker-0" "$work/dup/ctf/worker-3"
    refused "worker-3: the same file as .*worker-0" dump --count "$work/dup"
    echo "ok 2: a copy or a link of a log is refused, --partial reads the log once"
}

case_3() {
    record "$work/special" 300 2
    for f in ctf/worker-1 run.json ctf/metadata; do
        rm -rf "$work/fifo" && cp -r "$work/special" "$work/fifo" && rm "$work/fifo/$f" &&
            mkfifo "$work/fifo/$f" || fail "cannot make a FIFO $f"
        refused "$f: a FIFO, not a regular file" dump --count "$work/fifo"
        # --partial passes over a FIFO log (the others are needed): it says so.
        timeout 60 "$snetmon" metrics --partial "$work/fifo" >/dev/null 2>"$work/err"
        rc=$?
        [ $rc -eq 0 ] || [ $rc -eq 1 ] || fail "metrics --partial with a FIFO $f: exit $rc"
        grep -q -e "$f: a FIFO, not a regular file" -e "1 file passed over" "$work/err" ||
            fail "FIFO $f: $(cat "$work/err")"
    done
    rm "$work/special/run.json" && mkdir "$work/special/run.json"
    refused "run.json: a directory, not a regular file" dump --count "$work/special"
    echo "ok 3: FIFOs and directories named as trace files are refused, nothing hangs"
}

case_4() {
    record "$work/clock" 300 2
    cp -r "$work/clock" "$work/noclock"
    awk '/^clock \{/ { skip = 1 } !skip { print } skip && /^\};/ { skip = 0 }' \
        "$work/clock/ctf/metadata" >"$work/noclock/ctf/metadata"
    ! grep -q '^clock {' "$work/noclock/ctf/metadata" || fail "clock: the block is still there"
    refused "metadata: no clock block" metrics "$work/noclock"
    refused "metadata: no clock block" dump --count --partial "$work/noclock"
    awk '/^\tfreq = [0-9]+;$/ { sub(/;$/, ""); printf "\tfreq = %d;\n", $3 * 2; next } { print }' \
        "$work/clock/ctf/metadata" >"$work/clock/ctf/m" && mv "$work/clock/ctf/m" "$work/clock/ctf/metadata"
    refused "metadata: clock .* Hz, but run.json says" metrics "$work/clock"
    echo "ok 4: a metadata file without its clock, or with another, is refused"
}

case_5() {
    size=$(wc -c <"$bp_log")
    head -c $((size / 2)) "$bp_log" >"$work/cut.bp" # in a line, the rest parses
    tail -c 1 "$work/cut.bp" | od -c | grep -q '\\n' && fail "cut: the cut ends at a newline"
    refused "cut.bp:[0-9]*: the last line is cut short" metrics "$work/cut.bp"
    refused "cut.bp:[0-9]*: the last line is cut short" wcp "$work/cut.bp"
    refused "cut.bp:[0-9]*: the last line is cut short" store "$work/cut.bp" --db "$work/repo.sqlite"
    refused "cut.bp:[0-9]*: the last line is cut short" import --from bp "$work/cut.bp" -o -
    "$snetmon" metrics --partial --json "$work/cut.bp" >"$work/cut.json" 2>/dev/null ||
        fail "cut: metrics --partial"
    grep -q '"events_lost": 1,' "$work/cut.json" || fail "cut: the cut line is not counted"
    echo "ok 5: a NetLogger log cut inside a line is refused; --partial counts the line"
}

# Run the pipeline holding its end for a kill: DIR FLAGS SIGNAL
killed_run() {
    timeout 60 "$pipeline" -m "$2" --mon-dir "$1" --mon-flush 50 --hold 20 2000 1 \
        >"$work/hold.out" 2>/dev/null &
    pid=$!
    i=0
    while [ ! -s "$work/hold.out" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
    [ -s "$work/hold.out" ] || { kill -9 $pid; fail "the held run never reported"; }
    sleep 0.5
    kill -"$3" $pid
    wait $pid 2>/dev/null
}

case_6() {
    killed_run "$work/term" mtTS TERM
    killed_run "$work/kill" mt KILL
    for sub in "dump --count" metrics wcp advise "export --chrome -o $work/x.json" \
               "render -o $work/x.png" "convert --to snet-logformat -o $work/conv"; do
        # shellcheck disable=SC2086
        refused "run.json: the run did not finish: it ended on SIGTERM" $sub "$work/term"
        # shellcheck disable=SC2086
        refused "run.json: the run did not finish (\"complete\": false): it was killed" $sub "$work/kill"
    done
    [ ! -e "$work/x.json" ] && [ ! -e "$work/x.png" ] && [ ! -e "$work/conv" ] ||
        fail "unfinished: a refused command left its output"
    [ "$(count --partial "$work/term")" -gt 2000 ] || fail "unfinished: --partial reads too little"
    "$snetmon" metrics --partial "$work/kill" >"$work/m.txt" 2>/dev/null || fail "unfinished: metrics --partial"
    grep -q "run: .*it was killed" "$work/m.txt" || fail "unfinished: the report does not say: $(head -5 "$work/m.txt")"
    echo "ok 6: runs ended by SIGTERM and SIGKILL are refused everywhere, naming the cause"
}

case_7() {
    # 400 blocks: 200 KiB in dash's 512-byte blocks (400 KiB in bash's): less
    # than one packet of 1 MiB.
    (trap '' XFSZ; ulimit -f 400; exec "$pipeline" -m A --mon-dir "$work/full" 20000 1) \
        >/dev/null 2>"$work/full.err" || fail "full: the run failed: $(cat "$work/full.err")"
    lost=$(sed -n 's/.*"events_discarded": \([0-9]*\),.*/\1/p' "$work/full/run.json")
    [ "${lost:-0}" -gt 0 ] || fail "full: run.json counts no loss"
    refused "worker-0: the writer lost $lost events (File too large; run.json)" metrics "$work/full"
    "$snetmon" metrics --partial --json "$work/full" >"$work/full.json" 2>/dev/null ||
        fail "full: metrics --partial"
    grep -q "\"events_lost\": $lost," "$work/full.json" || fail "full: the loss is not run.json's $lost"
    n=$(count --partial "$work/full")
    [ "${n:-0}" -gt 1000 ] || fail "full: only $n events were written"
    echo "ok 7: a log that cannot grow keeps what fits ($n events) and counts the rest ($lost)"
}

case_8() {
    record "$work/lost" 300 2
    for sub in wcp metrics dump "top --once" "export --chrome -o -"; do
        # shellcheck disable=SC2086
        "$snetmon" $sub "$work/lost" >/dev/full 2>"$work/err"
        rc=$?
        [ $rc -eq 1 ] || fail "snetmon $sub >/dev/full: exit $rc"
        [ "$(wc -l <"$work/err")" -eq 1 ] && grep -q "standard output: cannot write: " "$work/err" ||
            fail "snetmon $sub >/dev/full: $(cat "$work/err")"
    done
    echo "ok 8: output lost on its way (/dev/full) is an error, said in one line"
}

for c in $cases; do
    "case_$c"
done
rm -rf "$work"
echo "all trace integrity checks passed"
