#!/bin/sh
# mon_cli_test.sh - the snetmon subcommands and babeltrace2 on real traces.
#   mon_cli_test.sh SNETMON BABELTRACE2 MAKE_FIXTURE JSON_CHECK WORKDIR [PIPELINE]
# With PIPELINE (a program on the LPEL runtime) the traces of a real run
# are checked too. babeltrace2 must read every trace without a word on
# stderr and print exactly one line per event that `snetmon dump` prints.
set -u
snetmon=$1 babeltrace=$2 make_fixture=$3 json_check=$4 work=$5 pipeline=${6:-}
fail() { echo "FAIL: $*" >&2; exit 1; }

rm -rf "$work" && mkdir -p "$work" || fail "cannot create $work"

same_count() { # DIR: babeltrace2 and dump agree, both clean
    dir=$1
    "$snetmon" dump "$dir" >"$work/dump.txt" 2>"$work/dump.err" || fail "dump $dir: $(cat "$work/dump.err")"
    [ -s "$work/dump.err" ] && fail "dump $dir wrote to stderr: $(cat "$work/dump.err")"
    "$babeltrace" "$dir" >"$work/bt.txt" 2>"$work/bt.err" || fail "babeltrace2 $dir failed: $(head -5 "$work/bt.err")"
    [ -s "$work/bt.err" ] && fail "babeltrace2 $dir wrote to stderr: $(head -5 "$work/bt.err")"
    n_dump=$(wc -l <"$work/dump.txt")
    n_bt=$(wc -l <"$work/bt.txt")
    [ "$n_dump" -gt 0 ] || fail "no events in $dir"
    [ "$n_dump" -eq "$n_bt" ] || fail "$dir: snetmon dump printed $n_dump events, babeltrace2 $n_bt"
    echo "ok: $dir: $n_dump events (dump) = $n_bt (babeltrace2)"
}

# babeltrace2 decodes every field to the value our reader gives: both
# outputs (of same_count) as "w<worker> <event> <values in babeltrace2's
# field order>", compared log by log (the merges may break ties between
# logs differently). Flag labels (mode, state, cause, end) count as values;
# values the reader derives (stream_block's and channel_block's peer, the
# parents, task_map's worker, which is the log's) are left out.
bt_values() {
    awk '{
        if (!match($0, / [a-z_]+: \{ cpu_id = [0-9]+(, run_id = [0-9]+)? \}/)) { print "unparsed: " $0; next }
        head = substr($0, RSTART + 1, RLENGTH - 1); rest = substr($0, RSTART + RLENGTH)
        split(head, h, /[:, ]+/); out = "w" h[5] " " h[1]
        while (match(rest, /value = \{ [0-9]+ \}|\( "[a-z]+" : container|name = "[^"]*"/)) {
            t = substr(rest, RSTART, RLENGTH); rest = substr(rest, RSTART + RLENGTH)
            if (t ~ /^value/) { gsub(/[^0-9]/, "", t); out = out " " t }
            else if (t ~ /^\(/) { gsub(/^\( "|" : container$/, "", t); if (t !~ /^b[1248]$/) out = out " " t }
            else { sub(/^name = "/, "", t); sub(/"$/, "", t); out = out " " t }
        }
        print out
    }' "$1"
}
dump_values() {
    awk '{
        delete f; for (i = 4; i <= NF; i++) { k = $i; sub(/=.*/, "", k); v = $i; sub(/^[^=]*=/, "", v); f[k] = v }
        e = $3; out = $2 " " e
        if (e == "task_map") out = out " " f["task"] " " f["name"]
        else if (e == "task_block") out = out " " f["cause"] " " f["task"]
        else if (e == "stream_open" || e == "stream_close") out = out " " f["task"] " " f["mode"] " " f["stream"]
        else if (e == "stream_block") out = out " " f["task"] " " f["state"] " " f["stream"]
        else if (e == "stream_read" || e == "stream_write") out = out " " f["task"] " " f["stream"]
        else if (e == "stream_wake") out = out " " f["waker"] " " f["stream"] " " f["woken"]
        else if (e ~ /^message_/) {
            # msg is [rank:]worker.seq; the trace stores node = rank * 4096 + worker, and seq
            r = 0; id = f["msg"]; if (index(id, ":")) { r = substr(id, 1, index(id, ":") - 1); id = substr(id, index(id, ":") + 1) }
            split(id, m, "."); out = out " " f["task"] " " (r * 4096 + m[1]) " " m[2]
            if (e == "message_sent") out = out " " f["to"]
            else if (e == "message_received") out = out " " f["from"]
        }
        else if (e == "channel_open") { split(f["channel"], c, "."); out = out " " f["task"] " " c[1] " " f["end"] " " c[2] " " f["rank"] }
        else if (e == "channel_block") { split(f["channel"], c, "."); out = out " " f["task"] " " c[1] " " f["state"] " " c[2] }
        else if (e == "task_load") out = out " " f["task"] " " f["dispatches"] " " f["exec_ns"]
        else if (e == "worker_load") out = out " " f["waits"] " " f["wait_ns"] " " f["busy_ns"]
        else if (e == "run_start") out = out " " f["run"]
        else if (e == "cpu_time") out = out " " f["cpu_ns"] " " f["preemptions"]
        else if ("task" in f) out = out " " f["task"]
        print out
    }' "$1"
}
same_values() { # DIR, after same_count DIR
    bt_values "$work/bt.txt" >"$work/bt.values"
    dump_values "$work/dump.txt" >"$work/dump.values"
    for w in $(cut -d' ' -f1 "$work/dump.values" | sort -u); do
        grep "^$w " "$work/bt.values" >"$work/bt.$w"
        grep "^$w " "$work/dump.values" >"$work/dump.$w"
        cmp -s "$work/bt.$w" "$work/dump.$w" ||
            fail "$1: babeltrace2 and dump decode $w differently: $(diff "$work/bt.$w" "$work/dump.$w" | head -4)"
    done
    echo "ok: $1: babeltrace2 decodes the same field values"
}

# Every event kind, many small packets.
"$make_fixture" kinds "$work/kinds" || fail "fixture kinds"
same_count "$work/kinds"
same_values "$work/kinds"
[ "$(wc -l <"$work/dump.txt")" -eq 60 ] || fail "kinds fixture: expected 60 events"
for k in task_map task_create task_dispatch task_block task_yield task_destroy worker_start \
         worker_wait worker_resume worker_end stream_open stream_close stream_read stream_write \
         stream_block stream_wake component_begin component_end message_read message_written \
         task_load worker_load run_start message_sent message_received channel_open \
         channel_block cpu_time; do
    grep -q " $k" "$work/dump.txt" || fail "dump lacks $k"
    grep -q " $k:" "$work/bt.txt" || fail "babeltrace2 output lacks $k"
done

# Many events on three workers.
"$make_fixture" many "$work/many" 30000 || fail "fixture many"
same_count "$work/many"
same_values "$work/many"

# The first event's wall-clock time as babeltrace2 computes it from the
# metadata's clock (freq, offset_s, offset) must be our reader's time plus
# run.json's offset_ns (to the ns of rounding), and must follow
# wall_clock_start_ns within the run's few seconds.
json_num() { sed -n "s/.*\"$1\": \([0-9]*\).*/\1/p" "$2" | head -1; }
wall_clock_sane() { # DIR
    dir=$1
    bt=$("$babeltrace" --clock-seconds "$dir" | head -1 | sed -n 's/^\[\([0-9]*\)\.\([0-9]*\)\].*/\1 \2/p')
    [ -n "$bt" ] || fail "$dir: no time in babeltrace2's first line"
    set -- $bt
    frac=$(echo "$2" | sed 's/^0*//') # no leading zeros: not octal to $(( ))
    bt_ns=$(($1 * 1000000000 + ${frac:-0}))
    first=$("$snetmon" dump "$dir" | head -1 | cut -d' ' -f1)
    ours=$((first + $(json_num offset_ns "$dir/run.json")))
    start=$(json_num wall_clock_start_ns "$dir/run.json")
    d=$((bt_ns - ours))
    [ "$d" -ge -2 ] && [ "$d" -le 2 ] || fail "$dir: babeltrace2 says $bt_ns, snetmon dump + offset_ns $ours"
    [ "$bt_ns" -ge $((start - 1000000)) ] && [ "$bt_ns" -le $((start + 10000000000)) ] ||
        fail "$dir: first event at $bt_ns ns, run started at $start"
    echo "ok: $dir: first event $(((bt_ns - start) / 1000)) us after wall_clock_start"
}

# A real run, if we have the runtime.
if [ -n "$pipeline" ]; then
    "$pipeline" -m A --mon-dir "$work/run" 300 2 || fail "pipeline -m A"
    same_count "$work/run"
    same_values "$work/run"
    wall_clock_sane "$work/run"
    grep -q '"source": "tsc"' "$work/run/run.json" && echo "ok: $work/run: TSC clock"
    MON_CLOCK=monotonic "$pipeline" -m A --mon-dir "$work/mono" 300 2 || fail "MON_CLOCK=monotonic pipeline -m A"
    same_count "$work/mono"
    wall_clock_sane "$work/mono"
    grep -q '"source": "CLOCK_MONOTONIC"' "$work/mono/run.json" || fail "MON_CLOCK=monotonic: $(grep source "$work/mono/run.json")"
    grep -q '"why": "MON_CLOCK=monotonic"' "$work/mono/run.json" || fail "MON_CLOCK=monotonic: no reason in run.json"
    grep -q '"complete": true' "$work/run/run.json" || fail "run.json not completed"
    grep -q '"flags": "mtWTSMLC"' "$work/run/run.json" || fail "run.json lacks the flags"
    # C: each worker's CPU time at least at its end (worker_end takes a reading always)
    for w in 0 1; do
        grep -q "^[0-9]* w$w cpu_time cpu_ns=[0-9]* preemptions=[0-9]*$" "$work/dump.txt" ||
            fail "-m A: no cpu_time of worker $w"
    done
    "$pipeline" -m Q --mon-dir "$work/bad" 2>"$work/bad.err" && fail "-m Q accepted"
    [ "$(wc -l <"$work/bad.err")" -eq 1 ] || fail "-m Q: not a one-line error"
    grep -q "unknown monitoring flag 'Q'" "$work/bad.err" || fail "-m Q: $(cat "$work/bad.err")"
    "$pipeline" --mon-dir "$work/off" 10 || fail "pipeline without -m"
    [ -e "$work/off" ] && fail "monitoring off still made a trace directory"
    conv_dir=$work/run
else
    conv_dir=$work/kinds
fi

# convert: a map and one log per worker, each starting with the version.
"$snetmon" convert --to snet-logformat "$conv_dir" "$work/old" || fail "convert"
[ -s "$work/old/mon_n00_tasks.map" ] || fail "convert: no map file"
for f in "$work"/old/mon_n00_worker*.log; do
    head -c 42 "$f" | grep -q '^Log format version 2.2 (since 05/03/2012)#' || fail "$f: no version entry"
done
stops=$(grep -cE ' (task_block|task_yield|task_destroy) ' "$work/dump.txt" || true)
"$snetmon" dump "$conv_dir" >"$work/dump.txt"
stops=$(grep -cE ' (task_block|task_yield|task_destroy) ' "$work/dump.txt")
entries=$(cat "$work"/old/mon_n00_worker*.log | tr '#' '\n' | grep -cE '^[0-9]+[IOARZ][0-9]+ ')
[ "$stops" -eq "$entries" ] || fail "convert: $stops task stops but $entries task entries"
echo "ok: convert: $entries task entries"
# Converted again into the same directory: the earlier conversion is
# replaced whole (a worker's log the new one lacks goes), other files stay;
# a directory holding only other files is refused and left alone.
: >"$work/old/mon_n00_worker99.log"
echo keep >"$work/old/notes.txt"
"$snetmon" convert --to snet-logformat "$conv_dir" "$work/old" || fail "convert again into the same directory"
[ ! -e "$work/old/mon_n00_worker99.log" ] || fail "convert again: the earlier conversion's extra log is still there"
[ -s "$work/old/mon_n00_tasks.map" ] && [ -e "$work/old/notes.txt" ] || fail "convert again: $(ls "$work/old")"
mkdir "$work/foreign" && echo x >"$work/foreign/x"
"$snetmon" convert --to snet-logformat "$conv_dir" "$work/foreign" 2>"$work/foreign.err" &&
    fail "convert into a directory of other files"
grep -q "holds no earlier output of snetmon convert" "$work/foreign.err" || fail "convert into a foreign directory: $(cat "$work/foreign.err")"
[ "$(ls "$work/foreign")" = x ] || fail "the refused convert changed the directory"
echo "ok: convert again replaces its earlier output; a foreign directory is refused"

# export --chrome: valid JSON, one slice per execution period, one flow
# (one start, one end) per message both written and read in the trace.
"$snetmon" export --chrome "$conv_dir" -o "$work/trace.json" || fail "export"
counts=$("$json_check" "$work/trace.json") || fail "export: invalid JSON"
paired=$(awk '$3 == "message_written" || $3 == "message_read" { split($5, m, "="); seen[m[2]] = seen[m[2]] $3 }
              END { n = 0; for (k in seen) if (seen[k] ~ /written/ && seen[k] ~ /read/) n++; print n }' "$work/dump.txt")
echo "$counts" | grep -q "slices=[1-9]" || fail "export: no slices ($counts)"
echo "$counts" | grep -q "flows_out=$paired flows_in=$paired unpaired=0" || fail "export: $counts, $paired messages written and read"
echo "ok: export: $counts"

# Damaged traces: one-line errors naming file and offset, exit 1.
cp -r "$work/many" "$work/trunc"
f=$work/trunc/ctf/worker-2
size=$(wc -c <"$f")
truncate -s $((size - 7)) "$f" 2>/dev/null || head -c $((size - 7)) "$work/many/ctf/worker-2" >"$f"
"$snetmon" dump "$work/trunc" >/dev/null 2>"$work/trunc.err" && fail "truncated trace: exit 0"
[ "$(wc -l <"$work/trunc.err")" -eq 1 ] || fail "truncated: $(cat "$work/trunc.err")"
grep -q "worker-2: truncated: the file ends at byte $((size - 7))" "$work/trunc.err" || fail "truncated: $(cat "$work/trunc.err")"
cp -r "$work/many" "$work/bad"
# The first event starts right after the 60-byte packet preamble.
printf '\036' | dd of="$work/bad/ctf/worker-1" bs=1 seek=68 conv=notrunc 2>/dev/null
"$snetmon" dump "$work/bad" >/dev/null 2>"$work/bad.err" && fail "corrupt trace: exit 0"
grep -q "worker-1: byte 68: unknown event id 30" "$work/bad.err" || fail "corrupt: $(cat "$work/bad.err")"
echo "ok: damaged traces rejected"

# --help everywhere; usage errors exit 2.
for c in dump convert export; do
    "$snetmon" $c --help >/dev/null || fail "$c --help"
done
"$snetmon" dump >/dev/null 2>&1; [ $? -eq 2 ] || fail "dump without DIR: not exit 2"
"$snetmon" convert --to nothing a b >/dev/null 2>&1; [ $? -eq 2 ] || fail "convert --to nothing: not exit 2"
"$snetmon" dump "$work/nonexistent" 2>"$work/ne.err"; [ $? -eq 1 ] || fail "dump of nothing: not exit 1"
rm -rf "$work"
echo "all snetmon checks passed"
