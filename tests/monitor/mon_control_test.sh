#!/bin/sh
# mon_control_test.sh - monitoring changed while the program runs: the
# flight recorder (--mon-ring, snetmon snap twice and SIGUSR1, the window
# at exit), and event classes switched off and on again (snetmon ctl),
# found only where they were on.
#   mon_control_test.sh SNETMON BABELTRACE2 PIPELINE WORKDIR LPEL_DEMO
# PIPELINE is tests/monitor/mon_pipeline (--pace makes a run last);
# LPEL_DEMO is tools/lpel-demo (its deadlock run). Every
# run is bounded: paced runs end by themselves after a few seconds; the
# whole test has a CTest timeout.
set -u
snetmon=$1 babeltrace=$2 pipeline=$3 work=$4 demo=$5
fail() { echo "FAIL: $*" >&2; [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null; exit 1; }

rm -rf "$work" && mkdir -p "$work" || fail "cannot create $work"

# Wait up to 20 s until the program writing DIR answers on its control
# channel.
wait_channel() {
    i=0
    until "$snetmon" ctl "$1" >/dev/null 2>&1; do
        i=$((i + 1))
        [ $i -lt 200 ] || return 1
        sleep 0.1
    done
}

# The time of the last event of a trace (snetmon dump's first column).
last_time() { "$snetmon" dump "$1" 2>/dev/null | tail -1 | cut -d' ' -f1; }

# --- the flight recorder -----------------------------------------------------
# 64 KiB per worker holds a few thousand events: this run records ~40 000,
# so the window moves on between the two requests.
ring=$work/ring
"$pipeline" -m A --mon-dir "$ring" --mon-ring 64K --pace 1000 3000 1 >/dev/null 2>"$work/ring.err" &
pid=$!
wait_channel "$ring" || fail "the flight recorder's control channel never answered: $(cat "$work/ring.err")"
sleep 0.5
snap1=$("$snetmon" snap "$ring") || fail "snetmon snap (first): exit $?"
sleep 0.5
snap2=$("$snetmon" snap "$ring") || fail "snetmon snap (second): exit $?"
[ "$snap1" = "$ring/snapshot-1" ] && [ "$snap2" = "$ring/snapshot-2" ] ||
    fail "snapshot directories: '$snap1' and '$snap2'"
kill -USR1 $pid
wait $pid || fail "the flight recorder's run failed: $(cat "$work/ring.err")"
pid=
grep -q "snapshot (signal): $ring/snapshot-3" "$work/ring.err" || fail "SIGUSR1 wrote no snapshot: $(cat "$work/ring.err")"
for d in "$snap1" "$snap2" "$ring/snapshot-3" "$ring"; do
    n=$("$snetmon" dump --count "$d" 2>"$work/w.err") || fail "dump --count $d: exit $?: $(cat "$work/w.err")"
    [ "$n" -gt 100 ] || fail "$d holds $n events"
    grep -q "flight recorder's window" "$work/w.err" || fail "$d: no window note: $(cat "$work/w.err")"
    "$snetmon" metrics "$d" >/dev/null 2>"$work/w.err" || fail "metrics $d: exit $?: $(cat "$work/w.err")"
    "$babeltrace" "$d" >/dev/null 2>"$work/w.err" || fail "babeltrace2 $d: $(head -3 "$work/w.err")"
done
# Each window is a trace of this run (issue 24): its run.json names the
# run's id, which every packet of its logs names too (or the reads above
# would have refused them as another run's).
id=$(sed -n 's/.*"run_id": "\([0-9a-f]*\)".*/\1/p' "$ring/run.json")
[ -n "$id" ] || fail "no run_id in $ring/run.json"
for d in "$snap1" "$snap2" "$ring/snapshot-3"; do
    grep -q "\"run_id\": \"$id\"" "$d/run.json" || fail "$d/run.json: not the run's id $id"
done
t1=$(last_time "$snap1") t2=$(last_time "$snap2")
[ "$t2" -gt "$t1" ] || fail "the second window ($t2) does not reach past the first ($t1)"
grep -q '"why": "request", "snapshot": 2' "$snap2/run.json" || fail "snapshot-2's run.json: $(grep why "$snap2/run.json")"
# At exit the window has moved past the run's start: the events before it
# are counted as not recorded, and the tasks keep their names.
before=$(sed -n 's/.*"events_before": \([0-9]*\).*/\1/p' "$ring/run.json")
[ -n "$before" ] && [ "$before" -gt 0 ] || fail "the window at exit says $before events before it"
"$snetmon" dump "$ring" 2>/dev/null | grep -q "task_map task=[0-9]* worker=0 name=.*relay" ||
    fail "the window at exit lost the task names"
# The next run in the directory clears this run's snapshots with its trace.
"$pipeline" -m A --mon-dir "$ring" --mon-ring 64K 200 1 >/dev/null 2>"$work/ring2.err" ||
    fail "a second flight recorder's run in $ring: $(cat "$work/ring2.err")"
[ ! -e "$ring/snapshot-1" ] && [ ! -e "$ring/snapshot-3" ] || fail "the earlier run's snapshots stayed: $(ls "$ring")"
# A deadlock the runtime reports: its window is written by itself.
"$demo" deadlock -m A --mon-ring 64K --mon-dir "$work/deadlock" >/dev/null 2>"$work/dl.err"
grep -q "snapshot (deadlock): $work/deadlock/snapshot-1" "$work/dl.err" || fail "no deadlock window: $(cat "$work/dl.err")"
grep -q '"why": "deadlock"' "$work/deadlock/snapshot-1/run.json" || fail "the deadlock window's run.json"
"$snetmon" dump "$work/deadlock/snapshot-1" 2>/dev/null | grep -q "task_block task=[0-9]* cause=input" ||
    fail "the deadlock window lacks the blocks"
# Without a flight recorder there is nothing to snap.
"$pipeline" -m A --mon-dir "$work/plain" --pace 2000 1500 1 >/dev/null 2>&1 &
pid=$!
wait_channel "$work/plain" || fail "the plain run's control channel never answered"
"$snetmon" snap "$work/plain" >/dev/null 2>"$work/snap.err" && fail "snap without --mon-ring succeeded"
grep -q "keeps no flight recorder" "$work/snap.err" || fail "snap without a ring: $(cat "$work/snap.err")"
wait $pid
pid=
"$snetmon" ctl "$work/plain" >/dev/null 2>"$work/ctl.err" && fail "ctl after the run ended succeeded"
grep -q "no running program writes this trace" "$work/ctl.err" || fail "ctl after the end: $(cat "$work/ctl.err")"

# --- classes switched off and on again ----------------------------------------
live=$work/ctl
"$pipeline" -m A --mon-dir "$live" --pace 1000 4000 1 >/dev/null 2>"$work/ctl-run.err" &
pid=$!
wait_channel "$live" || fail "the control channel never answered"
sleep 0.3
out=$("$snetmon" ctl --classes -T "$live") || fail "ctl --classes -T: exit $?"
[ "$out" = "ok classes=mtWSMLC" ] || fail "ctl --classes -T: '$out'"
"$snetmon" ctl --classes -t "$live" >/dev/null 2>"$work/t.err" && fail "ctl could switch t off"
grep -q "'t' cannot change" "$work/t.err" || fail "ctl -t: $(cat "$work/t.err")"
"$snetmon" ctl --classes Q "$live" >/dev/null 2>&1
[ $? -eq 1 ] || fail "ctl --classes Q: not exit 1"
sleep 0.6
out=$("$snetmon" ctl --classes +T "$live") || fail "ctl --classes +T: exit $?"
[ "$out" = "ok classes=mtWTSMLC" ] || fail "ctl --classes +T: '$out'"
# The CPU readings (C) off and on again.
sleep 0.3
out=$("$snetmon" ctl --classes -C "$live") || fail "ctl --classes -C: exit $?"
[ "$out" = "ok classes=mtWTSML" ] || fail "ctl --classes -C: '$out'"
sleep 0.6
out=$("$snetmon" ctl --classes +C "$live") || fail "ctl --classes +C: exit $?"
[ "$out" = "ok classes=mtWTSMLC" ] || fail "ctl --classes +C: '$out'"
wait $pid || fail "the controlled run failed: $(cat "$work/ctl-run.err")"
pid=
"$snetmon" dump "$live" >"$work/ctl.txt" || fail "dump of the controlled run: exit $?"
marks=$(grep -c ' monitor_control ' "$work/ctl.txt")
[ "$marks" -eq 4 ] || fail "$marks monitor_control marks, expected 4"
# CPU readings before C went off and after it came on, none between; one
# right before the mark that switches them off, one right after the mark
# that switches them on (no stretch between readings spans the gap).
awk '$3 == "monitor_control" && $4 !~ /C/ { off = 1; if (prev != "cpu_time") bad = "no reading before the -C mark" }
     $3 == "monitor_control" && $4 ~ /C/ && off { off = 0; on = 1; prev = $3; next }
     on { if ($3 != "cpu_time") bad = "no reading after the +C mark"; on = 0 }
     $3 == "cpu_time" { n[off ? "off" : seen ? "after" : "before"]++ }
     $3 == "monitor_control" && $4 !~ /C/ { seen = 1 }
     { prev = $3 }
     END { if (bad) print bad; else printf "%d %d %d\n", n["before"], n["off"], n["after"] }' \
    "$work/ctl.txt" >"$work/cpu-counts"
read -r cbefore coff cafter <"$work/cpu-counts"
[ "${cbefore:-0}" -gt 0 ] 2>/dev/null && [ "$coff" -eq 0 ] && [ "$cafter" -gt 0 ] ||
    fail "CPU readings before / while off / after: $(cat "$work/cpu-counts")"
# Task events before the first mark and after the second, none between.
awk '$3 == "monitor_control" { state = ($4 ~ /T/) ? "on-again" : "off"; next }
     $3 ~ /^task_(dispatch|block|yield|destroy|create)$/ { n[state == "" ? "before" : state]++ }
     END { printf "%d %d %d\n", n["before"], n["off"], n["on-again"] }' "$work/ctl.txt" >"$work/counts"
read -r before off again <"$work/counts"
[ "$before" -gt 0 ] && [ "$off" -eq 0 ] && [ "$again" -gt 0 ] ||
    fail "task events before / while off / after: $before $off $again"
# Stream events went on all along.
awk '$3 == "monitor_control" && $4 !~ /T/ { off = 1 } $3 == "monitor_control" && $4 ~ /T/ { off = 0 }
     off && $3 == "stream_read" { n++ } END { exit !(n > 0) }' "$work/ctl.txt" ||
    fail "no stream events while task events were off"
"$snetmon" metrics "$live" >/dev/null 2>"$work/m.err" || fail "metrics of the controlled run: $(cat "$work/m.err")"
"$babeltrace" "$live" >/dev/null 2>"$work/bt.err" || fail "babeltrace2 on the controlled run: $(head -3 "$work/bt.err")"
echo "mon_control: ok"
