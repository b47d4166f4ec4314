#!/bin/sh
# mon_live_test.sh - what happens to a trace while and after a run: a run
# killed with SIGKILL, a run whose trace does not fit on its file system.
#   mon_live_test.sh SNETMON BABELTRACE2 PIPELINE WORKDIR
# PIPELINE is tests/monitor/mon_pipeline (see its --hold and --pace).
# Every run here is bounded in time: held runs end by themselves after 20 s
# if the kill never comes; the whole test has a CTest timeout.
set -u
snetmon=$1 babeltrace=$2 pipeline=$3 work=$4
fail() { echo "FAIL: $*" >&2; exit 1; }

rm -rf "$work" && mkdir -p "$work" || fail "cannot create $work"

# Wait up to 20 s for FILE to hold a line.
wait_line() {
    i=0
    while [ ! -s "$1" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
    [ -s "$1" ]
}

# --- kill -9 after a flush ---------------------------------------------------
# One worker: when the consumer has every item it prints how many events were
# recorded, then holds. Everything recorded is then at least one flush period
# old after 10 periods, so all of it must be readable after the kill.
flush_ms=50
"$pipeline" -m A --mon-dir "$work/killed" --mon-flush $flush_ms --hold 20 2000 1 >"$work/hold.out" 2>"$work/hold.err" &
pid=$!
wait_line "$work/hold.out" || { kill -9 $pid; fail "the held run never reported"; }
recorded=$(sed -n 's/^recorded \([0-9]*\)$/\1/p' "$work/hold.out")
[ -n "$recorded" ] && [ "$recorded" -gt 2000 ] || { kill -9 $pid; fail "held run: $(cat "$work/hold.out")"; }
sleep 0.5
kill -9 $pid
wait $pid 2>/dev/null
grep -q '"complete": false' "$work/killed/run.json" || fail "killed run: run.json says complete"
# A run that did not finish is refused, saying so, whatever it looks like;
# --partial reads what it published.
! "$snetmon" dump "$work/killed" >/dev/null 2>"$work/killed.err" ||
    fail "killed run: dump succeeded without --partial"
grep -q 'run.json: the run did not finish ("complete": false): it was killed' "$work/killed.err" ||
    fail "killed run: the refusal does not say why: $(cat "$work/killed.err")"
"$snetmon" dump --partial "$work/killed" 2>"$work/killed.err" | grep -v '^# ' >"$work/killed.txt"
n_dump=$(wc -l <"$work/killed.txt")
[ "$n_dump" -ge "$recorded" ] || fail "killed run: dump read $n_dump events, $recorded were recorded ${flush_ms}0 ms before the kill"
"$babeltrace" "$work/killed" >"$work/killed-bt.txt" 2>"$work/killed-bt.err" ||
    fail "babeltrace2 on the killed run: $(head -3 "$work/killed-bt.err")"
n_bt=$(wc -l <"$work/killed-bt.txt")
[ "$n_bt" -eq "$n_dump" ] || fail "killed run: babeltrace2 read $n_bt events, dump $n_dump"
echo "ok: killed run: $n_dump events readable ($recorded recorded before the kill) by dump and babeltrace2"

# --- a file system too small for the trace -----------------------------------
# A private mount namespace with a 2 MiB tmpfs needs root (or unprivileged
# user namespaces); without either, a file size limit makes the writes fail
# the same way (EFBIG instead of ENOSPC, SIGXFSZ ignored). One worker: two
# would spend most of this machine's time waking each other.
# The run: the pipeline with its trace in DIR/trace (DIR = $1), exit status
# into full.rc.
full_run='"$pipeline" -m A --mon-dir "$1/trace" 100000 1 >"$work/full.out" 2>"$work/full.err"
          echo $? >"$work/full.rc"'
mkdir -p "$work/mnt"
export pipeline work full_run
mount_tmpfs='mount -t tmpfs -o size=2m tmpfs "$work/mnt"'
method=""
for how in "unshare -m" "unshare -rm"; do
    if $how sh -c "$mount_tmpfs" 2>/dev/null; then
        $how sh -c "$mount_tmpfs"' && set -- "$work/mnt" && eval "$full_run" &&
                    cp -r "$work/mnt/trace" "$work/full-trace"' || fail "tmpfs run"
        method="a 2 MiB tmpfs ($how)"
        break
    fi
done
if [ -z "$method" ]; then
    # 4096 blocks: 2 MiB in dash's 512-byte blocks, 4 MiB in bash's KiB.
    mkdir -p "$work/limited"
    (trap '' XFSZ; ulimit -f 4096; set -- "$work/limited"; eval "$full_run") || fail "size-limited run"
    mv "$work/limited/trace" "$work/full-trace"
    method="a file size limit (ulimit -f 4096, SIGXFSZ ignored)"
fi
[ "$(cat "$work/full.rc")" -eq 0 ] || fail "full disk: the run exited $(cat "$work/full.rc"): $(cat "$work/full.err")"
grep -q "lost" "$work/full.err" || fail "full disk: no loss reported on stderr: $(cat "$work/full.err")"
grep -q "mon: warning: worker [0-9]* lost [0-9]* of its" "$work/full.err" || fail "full disk: no per-worker report: $(cat "$work/full.err")"
grep -q '"complete": true' "$work/full-trace/run.json" || fail "full disk: run.json not completed"
lost=$(sed -n 's/.*"events_discarded": \([0-9]*\).*/\1/p' "$work/full-trace/run.json")
[ "$lost" -gt 0 ] || fail "full disk: run.json reports no lost events"
grep -q '"events_discarded_per_worker": \[[0-9]' "$work/full-trace/run.json" || fail "full disk: no per-worker losses in run.json"
# A lossy trace is refused whole, naming the loss; --partial reads what fitted.
! "$snetmon" dump --count "$work/full-trace" >/dev/null 2>"$work/full-dump.err" ||
    fail "full disk: dump of a lossy trace succeeded without --partial"
grep -q "the writer lost [0-9]* events" "$work/full-dump.err" ||
    fail "full disk: the refusal does not name the loss: $(cat "$work/full-dump.err")"
"$snetmon" dump --count --partial "$work/full-trace" >"$work/full-count" 2>"$work/full-dump.err" ||
    fail "full disk: dump --partial failed: $(cat "$work/full-dump.err")"
"$babeltrace" "$work/full-trace" >/dev/null 2>"$work/full-bt.err" ||
    fail "full disk: babeltrace2 failed: $(head -3 "$work/full-bt.err")"
[ "$(head -1 "$work/full-count")" -gt 0 ] || fail "full disk: nothing of what fitted is readable"
echo "ok: full disk ($method): exit 0, $lost events lost and reported, $(cat "$work/full-count") readable"

rm -rf "$work"
echo "all live-trace checks passed"
