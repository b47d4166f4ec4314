#!/bin/sh
# mpi_test.sh SCENARIO WORKDIR - one mpi test: runs tests/distrib/dist_demo
# across 2 and 3 ranks and checks the result against a run in one process,
# or, for the scenarios that must fail, the exit status and the messages.
# The monitored scenarios read the merged multi-rank trace with snetmon.
# Environment: DIST_DEMO, SNETMON, MPIEXEC, MC, RT, TOP_CHECK (set by CTest;
# TOP_CHECK is tests/cli/top_check, empty without the LPEL hooks).
set -u
scenario=$1
work=$2
here=$(dirname "$0")
run="sh $here/mpi_run.sh"
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }

same_as_one_process() {
    ref=$("$DIST_DEMO" "$@") || fail "the run in one process failed"
    echo "one process: $ref"
    for np in 2 3; do
        out=$($run $np "$DIST_DEMO" --mpi "$@") || fail "$np ranks: exit status $?"
        echo "$np ranks:   $out"
        [ "$out" = "$ref" ] || fail "$np ranks differ from one process"
    done
}

# Every message received in the dump ($1) comes after it was sent (the
# dump's times are the merged, corrected ones); prints the pairs checked.
causal() {
    awk '
    function rank_of(where) { sub(/^r/, "", where); sub(/\..*/, "", where); return where }
    $3 == "message_sent" || $3 == "message_received" {
        r = rank_of($2); id = $5; sub(/^msg=/, "", id); peer = $6; sub(/^(to|from)=/, "", peer)
        key = ($3 == "message_sent") ? id ":" r ">" peer : id ":" peer ">" r
        if ($3 == "message_sent") { if (!(key in sent)) sent[key] = $1 }
        else if (key in sent) { pairs++; if ($1 < sent[key]) bad++ }
        else early++
    }
    END {
        printf "%d pairs, %d received before sent, %d received with no send before\n", pairs, bad, early
        exit (pairs > 0 && bad == 0 && early == 0) ? 0 : 1
    }' "$1"
}

# The alignment line of a dump: "N on the recorded clocks, M after the
# linear correction ...; K receives moved ...; L left".
alignment() { grep "received before sent" "$1" | sed 's/^# *//'; }
field() { alignment "$1" | sed -n "s/.* \([0-9][0-9]*\) $2.*/\1/p"; }

same_app_result() { # APP ARGS: identical --check output in one process and over 2 ranks
    app=$1
    shift
    ref=$("$app" "$@" --check) || fail "the run in one process failed"
    echo "one process: $ref"
    out=$($run 2 "$app" --mpi "$@" --check) || fail "2 ranks: exit status $?"
    echo "2 ranks:     $out"
}

case "$scenario" in
pipeline)
    same_as_one_process pipeline -n 5000
    echo "$ref" | grep -q "5000 of 5000 records, sum .*, in order" || fail "pipeline result"
    ;;
window)
    # Windows of 1 and 5 records: every frame, or every frame after the
    # third, asks for its credits back (SNET_FRAME_ASK); a receiver that
    # held them back would leave the sender waiting for ever (a deadlock
    # report, or the timeout).
    # 500 records: with a window of 1 each record waits for a round trip
    # per channel, which under load takes milliseconds.
    for w in 1 5; do
        same_as_one_process pipeline -n 500 --window $w
        echo "$ref" | grep -q "500 of 500 records, sum .*, in order" || fail "window $w result"
    done
    ;;
split)
    same_as_one_process split -n 2000
    echo "$ref" | grep -q "placement as !@ says" || fail "split placement"
    ;;
sync)
    same_as_one_process sync -n 200
    echo "$ref" | grep -q "199 records out, 1 merged from two ranks$" || fail "sync result"
    ;;
det)
    same_as_one_process det -n 3000
    echo "$ref" | grep -q "in order" || fail "det order"
    ;;
star)
    same_as_one_process star -n 500
    ;;
codec)
    same_as_one_process codec -n 300
    # Without the codec the pair field cannot cross: one clear error.
    $run 2 "$DIST_DEMO" --mpi no-codec -n 10 >"$work/out" 2>"$work/err"
    rc=$?
    cat "$work/err"
    [ $rc -ne 0 ] || fail "no-codec must fail"
    grep -q "field 'p' has type 'pair', which has no codec" "$work/err" || fail "no-codec message"
    ;;
deadlock)
    for np in 2 3; do
        $run $np "$DIST_DEMO" --mpi deadlock -n 100 >"$work/out" 2>"$work/err"
        rc=$?
        cat "$work/err"
        [ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "$np ranks: exit status $rc (124: it hung)"
        grep -q "deadlock across $np ranks" "$work/err" || fail "no cross-rank deadlock report"
        grep -q "'S2:stuck' (worker [0-9]*) waits to read stream" "$work/err" || fail "stuck box"
        grep -q "waits for records from rank 1 on channel" "$work/err" || fail "rank 0 waits for rank 1"
        grep -q "^rank 1:" "$work/err" || fail "report of rank 1"
    done
    ;;
skew)
    # Rank 1's clock 1 s behind and 300 ppm fast (the monitor's test hook),
    # both ranks on CLOCK_MONOTONIC: one clock on this host, so what the
    # reader finds is the skew alone (with the TSC it also finds what the
    # ranks' calibrations differ by: their tick counts since boot convert
    # with their own frequencies, up to milliseconds apart). 1 s, not 5 ms:
    # a record of this batch can wait for milliseconds in frames and
    # streams, and in some runs none crossed within 5 ms (no violation to
    # find).
    MON_CLOCK=monotonic MON_CLOCK_SKEW=1:-1000000000:300 $run 2 "$DIST_DEMO" --mpi pipeline -n 3000 \
        -m A --mon-dir "$work/trace" >"$work/out" 2>"$work/err" || { cat "$work/err"; fail "skewed run"; }
    "$SNETMON" dump "$work/trace" >"$work/dump" || fail "dump of the skewed trace"
    alignment "$work/dump"
    [ "$(field "$work/dump" 'on the recorded')" -gt 0 ] || fail "the skew made no violation"
    [ "$(field "$work/dump" 'after the linear')" -eq 0 ] || fail "violations after the correction"
    [ "$(field "$work/dump" 'left')" -eq 0 ] || fail "violations left"
    # The offset at the start measurement: 1 s less what 300 ppm drifted
    # since the monitor started, within the round trip; the drift back,
    # with the sign that undoes it. The drift comes from two samples a
    # short run apart, so its error is about a round trip over the run
    # (722 ns over half a second under ASan: 1.5 ppm): within 5 ppm.
    grep "rank 1: offset" "$work/dump" | awk '{
        o = $5; sub(/^\+/, "", o); o += 0; d = $8 + 0
        exit (o > 0.9995e9 && o < 1.000001e9 && d > -305 && d < -295) ? 0 : 1 }' ||
        fail "offset and drift not recovered"
    causal "$work/dump" || fail "a message received before it was sent"
    # Without rank 1's offset measurements only the fix-up is left to do it.
    sed -i '/"phase": /d' "$work/trace/rank-1/run.json"
    "$SNETMON" dump "$work/trace" >"$work/dump2" || fail "dump without samples"
    alignment "$work/dump2"
    [ "$(field "$work/dump2" 'after the linear')" -gt 0 ] || fail "no violation to fix"
    [ "$(field "$work/dump2" 'receives moved')" -gt 0 ] || fail "nothing moved"
    [ "$(field "$work/dump2" 'left')" -eq 0 ] || fail "violations left after the fix-up"
    causal "$work/dump2" || fail "the fix-up left a message received before it was sent"
    ;;
monitored)
    # mc over 2 ranks with full monitoring: one trace, both ranks in it.
    same_app_result "$MC" -w 2 --inputs 8 --paths 1000 --batch 250 -m A --mon-dir "$work/trace"
    [ "$out" = "$ref" ] || fail "2 ranks differ from one process"
    ls "$work/trace/rank-0/ctf" "$work/trace/rank-1/ctf" >/dev/null || fail "no rank directories"
    "$SNETMON" dump "$work/trace" >"$work/dump" || fail "dump"
    grep -q " r0\.w[01] " "$work/dump" && grep -q " r1\.w[01] " "$work/dump" ||
        fail "the dump lacks a rank"
    causal "$work/dump" || fail "a message received before it was sent"
    "$SNETMON" metrics "$work/trace" >"$work/metrics" || fail "metrics"
    grep -q "(r0\.w0)" "$work/metrics" && grep -q "(r1\.w1)" "$work/metrics" ||
        fail "metrics lack a (rank, worker)"
    grep -q "Clock alignment of 2 ranks" "$work/metrics" || fail "metrics: no clock alignment"
    grep -q "on channel .* to another rank" "$work/metrics" || fail "no waiting across ranks"
    "$SNETMON" wcp "$work/trace" >"$work/wcp" || fail "wcp"
    # Whether mc's critical path runs through rank 1 depends on which
    # request finishes last (timing). A pipeline over three ranks has every
    # output depend on ranks 1 and 2, so its path must cross both.
    $run 3 "$DIST_DEMO" --mpi -n 200 -m A --mon-dir "$work/pipe" pipeline >/dev/null || fail "pipeline run"
    "$SNETMON" wcp "$work/pipe" >"$work/pipe-wcp" || fail "wcp of the pipeline"
    grep -q "@rank1" "$work/pipe-wcp" && grep -q "@rank2" "$work/pipe-wcp" ||
        fail "the critical path does not cross ranks 1 and 2"
    # The bounded analysis (the default) prints what the graph in memory
    # prints on multi-rank traces too, its records in temporary files.
    for t in trace pipe; do
        for cmd in "metrics --json" "wcp --json"; do
            # shellcheck disable=SC2086 # cmd is a command and its option
            "$SNETMON" $cmd --in-memory "$work/$t" >"$work/ref.json" || fail "$t: $cmd --in-memory"
            # shellcheck disable=SC2086
            "$SNETMON" $cmd --max-memory 4K "$work/$t" >"$work/bounded.json" || fail "$t: $cmd"
            cmp "$work/ref.json" "$work/bounded.json" || fail "$t: $cmd: bounded differs from in memory"
        done
    done
    "$SNETMON" render "$work/trace" -o "$work/util.svg" || fail "render"
    for col in r0.w0 r0.w1 r1.w0 r1.w1; do
        grep -q ">$col<" "$work/util.svg" || fail "the image has no column $col"
    done
    sed -n 1,12p "$work/metrics"
    # The other commands read it too.
    "$SNETMON" report "$work/trace" -o "$work/report.html" || fail "report"
    for col in r0.w0 r1.w1; do
        grep -q "$col" "$work/report.html" || fail "the report lacks $col"
    done
    grep -q "Clock alignment of 2 ranks" "$work/report.html" || fail "report: no clock alignment"
    grep -q "MPI ranks" "$work/report.html" || fail "report: the ranks are not among the facts"
    grep -q "on worker [23]," "$work/report.html" ||
        fail "report: the critical path is not drawn on a column of rank 1"
    "$SNETMON" export --chrome "$work/trace" -o "$work/trace.json" || fail "export --chrome"
    grep -q '"worker 3 (r1.w1)"' "$work/trace.json" || fail "chrome: no track of r1.w1"
    "$SNETMON" export --otf2 "$work/trace" -o "$work/otf2" >"$work/otf2.out" || fail "export --otf2"
    grep -q "4 locations" "$work/otf2.out" || fail "otf2: not a location per (rank, worker)"
    "$SNETMON" convert --to snet-logformat "$work/trace" -o "$work/logformat" || fail "convert"
    [ -f "$work/logformat/mon_n00_worker03.log" ] || fail "convert: no log of the 4th worker"
    "$SNETMON" top --once "$work/trace" >"$work/top" || fail "top on the finished trace"
    grep -q "run finished" "$work/top" || fail "top: the run is not finished"
    "$SNETMON" store "$work/trace" --db "$work/runs.sqlite" || fail "store"
    "$SNETMON" store "$work/trace/rank-0" --db "$work/runs.sqlite" || fail "store rank 0 alone"
    "$SNETMON" runs --db "$work/runs.sqlite" >"$work/runs" || fail "runs"
    grep -q "^ *1 .* mc  *4  *[^ ]" "$work/runs" || fail "runs: the 2-rank run has not 4 workers"
    "$SNETMON" compare --db "$work/runs.sqlite" 2 1 >"$work/compare" || fail "compare"
    # advise places tasks of one process: a clear refusal, exit status 1.
    "$SNETMON" advise "$work/trace" >"$work/advise" 2>"$work/advise.err"
    rc=$?
    cat "$work/advise.err"
    [ $rc -eq 1 ] && grep -q "a trace of a run across MPI ranks" "$work/advise.err" ||
        fail "advise: exit status $rc, no refusal"
    # A multi-rank run still going on is followed on the start offsets
    # (the mpi_top scenario follows a real one).
    cp -r "$work/trace" "$work/live"
    sed -i 's/"complete": true/"complete": false/' "$work/live/rank-1/run.json"
    "$SNETMON" top --once "$work/live" >"$work/top" 2>"$work/top.err" ||
        fail "top on a live multi-rank run: $(cat "$work/top.err")"
    grep -q "run in progress" "$work/top" && grep -q "^clocks: 2 of 2 ranks merged .* offsets at the start" "$work/top" ||
        fail "top on a live multi-rank run: $(cat "$work/top")"
    ;;
top)
    # snetmon top following rt across 2 ranks while it runs (seconds, a
    # small trace): snapshots of the run in progress on the ranks' start
    # offsets that grow, then, once both ranks have finished, one of the
    # finished trace aligned in full: what metrics prints of it.
    [ -n "${TOP_CHECK:-}" ] || { echo "top: skipped: built without LPEL hooks"; exit 77; }
    $run 2 "$RT" --mpi -w 1 --inputs 300 -m A --mon-dir "$work/trace" --mon-flush 50 \
        >"$work/rt.out" 2>"$work/rt.err" &
    pid=$!
    i=0
    while [ ! -f "$work/trace/run.json" ]; do # rank 0 writes it first
        kill -0 $pid 2>/dev/null || fail "the run ended before its trace appeared: $(cat "$work/rt.err")"
        i=$((i + 1))
        [ $i -lt 400 ] || { kill $pid; fail "no trace after 20 s"; }
        sleep 0.05
    done
    timeout 150 "$SNETMON" top --json --top 0 -d 0.2 -n 100000 "$work/trace" >"$work/top.jsonl" 2>"$work/top.err"
    rc=$?
    wait $pid || fail "the run failed: $(cat "$work/rt.err")"
    [ $rc -eq 0 ] || fail "top: exit status $rc (124: it did not end with the run): $(cat "$work/top.err")"
    echo "$(wc -l <"$work/top.jsonl") snapshots"
    grep '"run":"in progress"' "$work/top.jsonl" | grep '"method":"start offsets","ranks":2,"merged":2' |
        grep '"events":[1-9]' >"$work/live.jsonl"
    [ "$(wc -l <"$work/live.jsonl")" -ge 2 ] ||
        fail "fewer than two snapshots of the run in progress with both ranks: $(cat "$work/top.jsonl")"
    head -n 1 "$work/live.jsonl" >"$work/first.json"
    tail -n 1 "$work/live.jsonl" >"$work/later.json"
    "$TOP_CHECK" grow "$work/first.json" "$work/later.json" || fail "the snapshots do not progress"
    tail -n 1 "$work/top.jsonl" >"$work/last.json"
    grep -q '"run":"finished"' "$work/last.json" && grep -q '"method":"full"' "$work/last.json" ||
        fail "the last snapshot is not of the finished trace aligned in full: $(cat "$work/last.json")"
    "$SNETMON" metrics --json "$work/trace" >"$work/metrics.json" || fail "metrics"
    events=$("$SNETMON" dump --count "$work/trace") || fail "dump --count"
    "$TOP_CHECK" match "$work/last.json" "$work/metrics.json" "$events" ||
        fail "top's last snapshot and metrics disagree"
    echo "the last snapshot agrees with metrics ($events events)"
    ;;
mc)
    same_app_result "$MC" -w 2
    [ "$out" = "$ref" ] || fail "2 ranks differ from one process"
    echo "$out" | grep -q "check passed" || fail "mc check"
    ;;
rt)
    same_app_result "$RT" -w 1
    # The checksum and the check; scenes per solver follow the balancing.
    [ "${out%%; scenes per solver*}" = "${ref%%; scenes per solver*}" ] ||
        fail "2 ranks rendered other images"
    echo "$out" | grep -q "check passed" || fail "rt check"
    ;;
kill)
    $run 2 "$DIST_DEMO" --mpi kill -n 100 -m A --mon-dir "$work/trace" >"$work/out" 2>"$work/err"
    rc=$?
    cat "$work/err"
    [ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "exit status $rc (124: it hung)"
    grep -q "rank 1" "$work/err" || fail "the failing rank is not named"
    # Rank 0 was ended by mpirun: what it recorded is still readable (as a
    # partial trace: its run did not finish, which snetmon says).
    "$SNETMON" dump --partial "$work/trace/rank-0" >"$work/dump" 2>"$work/dump.err"
    drc=$?
    cat "$work/dump.err"
    [ $drc -eq 0 ] || fail "rank 0's trace is unreadable"
    grep -q "task_map" "$work/dump" || fail "rank 0's trace has no events"
    # The whole trace, both ranks merged, reads with --partial and says
    # what the killed run lacks.
    "$SNETMON" dump --partial "$work/trace" >"$work/all" 2>"$work/all.err" ||
        { cat "$work/all.err"; fail "the two ranks' trace is unreadable"; }
    # (Rank 1 died before its first flush period: its logs are there but
    # hold no event, which the loss names.)
    grep -q " r0\.w[0-9]* task_map" "$work/all" || fail "the merged trace lacks rank 0's events"
    grep -q "^#  *worker [0-9]* .*rank-1/ctf/worker-0" "$work/all" ||
        fail "the loss does not name rank 1's logs"
    grep -q "partial trace" "$work/all.err" || fail "no loss reported"
    "$SNETMON" metrics --partial "$work/trace" >"$work/metrics" 2>/dev/null ||
        fail "metrics --partial of the killed run"
    grep -q "Partial input" "$work/metrics" || fail "metrics do not say the input is partial"
    ;;
*)
    fail "unknown scenario $scenario"
    ;;
esac
echo "PASS"
