#!/bin/sh
# export_viewers_test.sh - `snetmon export` for the viewers people use, on
# the trace of a real application run:
#   - --otf2: otf2-print (the OTF2 project's own reader) reads the archive
#     without a word on stderr, and its counts agree with `snetmon dump`:
#     one Enter and one Leave per task_dispatch (execution period) and per
#     worker_wait ("waiting" region), one MPI_SEND and one MPI_RECV per
#     message written and read, each send matched by the receive with the
#     same tag on the named location; the clock is the trace's;
#   - --chrome: every flow id has exactly one start and one end, one per
#     message written and read;
#   - refusals leave nothing behind.
#   export_viewers_test.sh SNETMON JSON_CHECK OTF2_PRINT WORKDIR APP [APP ARGS...]
set -u
snetmon=$1 json_check=$2 otf2_print=$3 work=$4
shift 4
fail() { echo "FAIL: $*" >&2; exit 1; }

rm -rf "$work" && mkdir -p "$work" || fail "cannot create $work"
"$@" -m A --mon-dir "$work/trace" >/dev/null || fail "$* -m A"
"$snetmon" dump "$work/trace" >"$work/dump.txt" || fail "dump"

count() { grep -cE " $1( |$)" "$work/dump.txt" || true; }
dispatches=$(count task_dispatch)
waits=$(count worker_wait)
paired=$(awk '$3 == "message_written" || $3 == "message_read" { split($5, m, "="); seen[m[2]] = seen[m[2]] $3 }
              END { n = 0; for (k in seen) if (seen[k] ~ /written/ && seen[k] ~ /read/) n++; print n }' "$work/dump.txt")
[ "$dispatches" -gt 0 ] && [ "$paired" -gt 0 ] || fail "the run recorded no periods or messages"

# ---- OTF2 ----
"$snetmon" export --otf2 "$work/trace" -o "$work/otf2" >"$work/otf2.out" || fail "export --otf2"
cat "$work/otf2.out"
[ -s "$work/otf2/traces.otf2" ] && [ -s "$work/otf2/traces.def" ] || fail "no archive in $work/otf2"
"$otf2_print" "$work/otf2/traces.otf2" >"$work/otf2.txt" 2>"$work/otf2.err" || fail "otf2-print: $(head -3 "$work/otf2.err")"
[ -s "$work/otf2.err" ] && fail "otf2-print wrote to stderr: $(head -3 "$work/otf2.err")"
records() { awk -v k="$1" '$1 == k' "$work/otf2.txt" | wc -l; }
enter=$(records ENTER) leave=$(records LEAVE) send=$(records MPI_SEND) recv=$(records MPI_RECV)
enter_wait=$(awk '$1 == "ENTER" && /Region: "waiting"/' "$work/otf2.txt" | wc -l)
[ "$enter" -eq $((dispatches + waits)) ] || fail "otf2: $enter ENTER, dump: $dispatches task_dispatch + $waits worker_wait"
[ "$leave" -eq "$enter" ] || fail "otf2: $enter ENTER but $leave LEAVE"
[ "$enter_wait" -eq "$waits" ] || fail "otf2: $enter_wait waiting periods, dump: $waits worker_wait"
[ "$send" -eq "$paired" ] && [ "$recv" -eq "$paired" ] ||
    fail "otf2: $send MPI_SEND, $recv MPI_RECV; dump: $paired messages written and read"
# Each send (on location S to receiver R, tag T) has the receive on R from S
# with tag T.
awk '$1 == "MPI_SEND" { for (i = 1; i <= NF; i++) { if ($i == "Receiver:") r = $(i + 1); if ($i == "Tag:") t = $(i + 1) }
                        sub(",", "", t); print $2, r, t }' "$work/otf2.txt" | sort >"$work/sends"
awk '$1 == "MPI_RECV" { for (i = 1; i <= NF; i++) { if ($i == "Sender:") s = $(i + 1); if ($i == "Tag:") t = $(i + 1) }
                        sub(",", "", t); print s, $2, t }' "$work/otf2.txt" | sort >"$work/recvs"
cmp -s "$work/sends" "$work/recvs" || fail "otf2: sends and receives do not match ($(diff "$work/sends" "$work/recvs" | head -3))"
# The clock: ns ticks, the first event's time as offset, wall-clock date.
first=$(head -1 "$work/dump.txt" | cut -d' ' -f1)
"$otf2_print" -G "$work/otf2/traces.otf2" >"$work/defs.txt" 2>&1 || fail "otf2-print -G"
grep -q "CLOCK_PROPERTIES .*Ticks per Seconds: 1000000000, Global Offset: $first, " "$work/defs.txt" ||
    fail "otf2 clock: $(grep CLOCK_PROPERTIES "$work/defs.txt"), first event $first"
[ "$(grep -c '^LOCATION ' "$work/defs.txt")" -eq "$(grep -c ' worker_start' "$work/dump.txt")" ] ||
    fail "otf2: not one location per worker"
echo "ok: otf2: $enter enter/leave = $dispatches periods + $waits waits, $send send/receive = $paired messages"

# A second export into the same directory replaces the archive whole (the
# one rule of output directories: an earlier output of the same command is
# replaced), leaving nothing of the first or of the temporary directory.
ls "$work/otf2/traces" > "$work/locations.before"
"$snetmon" export --otf2 "$work/trace" -o "$work/otf2" >/dev/null 2>"$work/again.err" ||
    fail "export into an earlier archive: $(cat "$work/again.err")"
"$otf2_print" "$work/otf2/traces.otf2" >/dev/null 2>&1 || fail "the second export's archive does not read"
ls "$work/otf2/traces" | cmp -s - "$work/locations.before" || fail "the second archive's traces/ differs"
ls -a "$work" "$work/otf2" | grep -q '\.tmp-\|\.old-' && fail "the second export left a temporary entry"
# A directory holding something else is refused, and left as it was.
mkdir "$work/other" && echo keep > "$work/other/notes.txt"
"$snetmon" export --otf2 "$work/trace" -o "$work/other" >/dev/null 2>"$work/other.err" && fail "export into a foreign directory"
grep -q "holds no earlier output of snetmon export" "$work/other.err" || fail "export into a foreign directory: $(cat "$work/other.err")"
[ "$(ls "$work/other")" = notes.txt ] || fail "the refused export changed $work/other"
# A damaged trace: one line, exit 1, no directory.
cp -r "$work/trace" "$work/bad"
printf '\036' | dd of="$work/bad/ctf/worker-0" bs=1 seek=68 conv=notrunc 2>/dev/null
"$snetmon" export --otf2 "$work/bad" -o "$work/bad-otf2" 2>"$work/bad.err"
[ $? -eq 1 ] || fail "damaged trace: not exit 1"
[ "$(wc -l <"$work/bad.err")" -eq 1 ] || fail "damaged trace: $(cat "$work/bad.err")"
[ -e "$work/bad-otf2" ] && fail "damaged trace: $work/bad-otf2 left behind"
ls -a "$work" | grep -q '\.bad-otf2\.tmp' && fail "damaged trace: temporary directory left behind"
"$snetmon" export --otf2 "$work/trace" >/dev/null 2>&1
[ $? -eq 2 ] || fail "--otf2 without -o: not exit 2"
"$snetmon" export --otf2 --chrome "$work/trace" -o x >/dev/null 2>&1
[ $? -eq 2 ] || fail "--otf2 --chrome: not exit 2"
echo "ok: otf2: refusals"

# ---- Chrome ----
"$snetmon" export --chrome "$work/trace" -o "$work/trace.json" > "$work/chrome.out" || fail "export --chrome"
grep -q "^$work/trace.json: [0-9]* tracks, [0-9]* execution periods, " "$work/chrome.out" ||
    fail "export --chrome: no line saying what it wrote: $(cat "$work/chrome.out")"
counts=$("$json_check" "$work/trace.json") || fail "chrome: invalid JSON"
echo "$counts" | grep -q "flows_out=$paired flows_in=$paired unpaired=0" ||
    fail "chrome: $counts; dump: $paired messages written and read"
grep -q "\"written_unread\":" "$work/trace.json" || fail "chrome: the unpaired messages are not counted"
echo "ok: chrome: $counts"
