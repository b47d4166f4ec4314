#!/bin/sh
# trace_input_test.sh - one trace-input policy for every snetmon subcommand.
#   trace_input_test.sh SNETMON JSON_CHECK WORKDIR PROGRAM [ARGS...]
# PROGRAM ARGS -m A --mon-dir DIR makes a trace (a real monitored run). Then, for a
# worker log cut inside a packet, cut to nothing, and removed:
#  - every subcommand (dump, convert, export --chrome and --otf2, metrics,
#    wcp, render, report) exits 1
#    with one line naming the file and the byte offset, and leaves no
#    output file behind;
#  - with --partial each one succeeds and says what was lost in its output
#    format: text, JSON and CSV.
set -u
snetmon=$1 json_check=$2 work=$3
shift 3
fail() { echo "FAIL: $*" >&2; exit 1; }

rm -rf "$work" && mkdir -p "$work" || fail "cannot create $work"
"$@" -m A --mon-dir "$work/trace" >/dev/null || fail "$* -m A"
grep -q '"logs": \[' "$work/trace/run.json" || fail "run.json lists no logs"

# Every subcommand that reads a trace, with the output it would write.
commands() { # DIR
    echo "dump $1"
    echo "convert --to snet-logformat $1 $work/out.conv"
    echo "export --chrome $1 -o $work/out.json"
    echo "export --otf2 $1 -o $work/out.otf2"
    echo "report $1 -o $work/out.html"
    echo "metrics $1"
    echo "wcp $1 --dot $work/out.dot --render $work/out.svg"
    echo "render $1 -o $work/out.png"
    echo "render --graph $1 -o $work/out.gv.svg"
}

refused_everywhere() { # DIR WHAT: exit 1, one line with file and offset, nothing left
    dir=$1 what=$2
    commands "$dir" | while read -r line; do
        # shellcheck disable=SC2086
        "$snetmon" $line >/dev/null 2>"$work/err"
        rc=$?
        [ $rc -eq 1 ] || fail "$what: snetmon $line: exit $rc"
        [ "$(wc -l <"$work/err")" -eq 1 ] || fail "$what: snetmon $line: not one line: $(cat "$work/err")"
        grep -q "$what" "$work/err" || fail "$what: snetmon $line: $(cat "$work/err")"
        for f in out.conv out.json out.otf2 out.html out.dot out.svg out.png out.gv.svg; do
            if [ -e "$work/$f" ]; then fail "$what: snetmon $line left $f behind"; fi
        done
        if ls -a "$work" | grep -q '\.tmp-'; then fail "$what: snetmon $line left a temporary file"; fi
    done || exit 1
    echo "ok: $what: every subcommand refused it"
}

partial_everywhere() { # DIR STATE
    dir=$1 state=$2
    "$snetmon" dump --partial "$dir" >"$work/dump.txt" 2>"$work/err" || fail "dump --partial: $(cat "$work/err")"
    grep -q "^# Partial input: .* bytes lost" "$work/dump.txt" || fail "dump --partial: no loss report"
    grep -q "worker 1 $state" "$work/dump.txt" || fail "dump --partial: worker 1 not named"
    "$snetmon" metrics --partial "$dir" >"$work/m.txt" 2>/dev/null || fail "metrics --partial"
    grep -q "^Partial input: " "$work/m.txt" || fail "metrics text: no loss report"
    "$snetmon" metrics --partial --json "$dir" >"$work/m.json" 2>/dev/null || fail "metrics --json"
    "$json_check" --any "$work/m.json" || fail "metrics --json --partial: invalid JSON"
    grep -q "\"state\": \"$state\"" "$work/m.json" || fail "metrics --json: no loss of state $state"
    grep -q '"bytes_lost": [1-9]' "$work/m.json" || fail "metrics --json: no bytes lost"
    "$snetmon" metrics --partial --csv "$dir" >"$work/m.csv" 2>/dev/null || fail "metrics --csv"
    head -1 "$work/m.csv" | grep -q "^log,worker,state,offset,events_read,events_lost" || fail "metrics --csv: no loss table"
    grep -q ",1,$state," "$work/m.csv" || fail "metrics --csv: worker 1 not in the loss table"
    "$snetmon" wcp --partial "$dir" >"$work/w.txt" 2>/dev/null || fail "wcp --partial"
    grep -q "^Partial input: " "$work/w.txt" || fail "wcp text: no loss report"
    "$snetmon" wcp --partial --json "$dir" >"$work/w.json" 2>/dev/null || fail "wcp --json --partial"
    grep -q '"input_loss": {' "$work/w.json" || fail "wcp --json: no input_loss"
    "$snetmon" export --chrome --partial "$dir" -o "$work/out.json" 2>/dev/null || fail "export --partial"
    "$json_check" "$work/out.json" >/dev/null || fail "export --partial: invalid JSON"
    grep -q '"otherData":{"input_loss":{' "$work/out.json" || fail "export: no input_loss"
    "$snetmon" export --otf2 --partial "$dir" -o "$work/out.otf2" >/dev/null 2>&1 || fail "export --otf2 --partial"
    [ -s "$work/out.otf2/traces.otf2" ] || fail "export --otf2 --partial: no archive"
    "$snetmon" report --partial "$dir" -o "$work/out.html" >/dev/null 2>"$work/err" || fail "report --partial"
    [ "$(grep -c 'warning: partial trace' "$work/err")" -eq 1 ] || fail "report --partial: not one warning: $(cat "$work/err")"
    grep -q "What could not be read" "$work/out.html" || fail "report: the loss is not in the report"
    grep -q "worker 1 $state\|<td>$state</td>" "$work/out.html" || fail "report: worker 1 $state not in the report"
    "$snetmon" convert --partial --to snet-logformat "$dir" "$work/out.conv" 2>/dev/null || fail "convert --partial"
    grep -q "worker 1 $state" "$work/out.conv/partial.txt" || fail "convert: no partial.txt"
    "$snetmon" render --partial "$dir" -o "$work/out.svg" >/dev/null 2>&1 || fail "render --partial"
    grep -q "partial trace: .* bytes lost (worker 1 $state)" "$work/out.svg" || fail "render: title lacks the loss"
    rm -rf "$work/out.conv" "$work/out.json" "$work/out.svg" "$work/out.otf2" "$work/out.html"
    echo "ok: $state: --partial reports the loss in text, JSON and CSV"
}

# The whole trace: read as it is, nothing refused, no loss reported.
"$snetmon" metrics --json "$work/trace" >"$work/m.json" || fail "metrics of the whole trace"
grep -q '"input_loss": null' "$work/m.json" || fail "whole trace: a loss is reported"

log=$work/cut/ctf/worker-1
size=$(wc -c <"$work/trace/ctf/worker-1")

# Cut inside a packet.
cp -r "$work/trace" "$work/cut"
truncate -s $((size / 2)) "$log"
refused_everywhere "$work/cut" "worker-1: truncated: the file ends at byte $((size / 2))"
partial_everywhere "$work/cut" truncated

# Cut to nothing: at a packet boundary, told by run.json.
truncate -s 0 "$log"
refused_everywhere "$work/cut" "worker-1: truncated: the file ends at byte 0 at a packet boundary"
partial_everywhere "$work/cut" truncated

# A log removed altogether.
rm "$log"
refused_everywhere "$work/cut" "worker-1: missing"
partial_everywhere "$work/cut" missing

# A damaged event in the middle: the offset of the bad byte.
rm -rf "$work/cut" && cp -r "$work/trace" "$work/cut"
printf '\036' | dd of="$log" bs=1 seek=68 conv=notrunc 2>/dev/null
refused_everywhere "$work/cut" "worker-1: byte 68: unknown event id 30"
partial_everywhere "$work/cut" damaged

rm -rf "$work"
echo "all trace-input checks passed"
