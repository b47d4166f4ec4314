#!/bin/bash
# reader.sh - our trace reader against babeltrace2 on the same trace, like
# for like (never run as a test):
#   decoding: `snetmon dump --count DIR`  vs  `babeltrace2 DIR -c sink.utils.counter`
#             (both decode every event and count; neither formats)
#   text:     `snetmon dump DIR`          vs  `babeltrace2 DIR`
#             (both decode and print one line per event)
#
#   reader.sh SNETMON PIPELINE [ITEMS] [RUNS]
#
# PIPELINE is tests/monitor/mon_pipeline of a normal build: one worker, -m A,
# ITEMS items (default 160000: 11 events per item, ~1.8 M events) make the
# trace. Each of the four commands runs RUNS times (default 5), interleaved;
# printed: median wall and CPU seconds, events per second, and the factors.
set -eu
snetmon=${1:?usage: reader.sh SNETMON PIPELINE [ITEMS] [RUNS]}
pipeline=${2:?usage: reader.sh SNETMON PIPELINE [ITEMS] [RUNS]}
items=${3:-160000} runs=${4:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/timing.sh"

"$pipeline" -m A --mon-dir "$work/trace" "$items" 1 >/dev/null
events=$("$snetmon" dump --count "$work/trace")
bt_events=$(babeltrace2 "$work/trace" -c sink.utils.counter -p step=+0 | awk '/Event messages/ {print $1}')
[ "$bt_events" = "$events" ] || echo "warning: babeltrace2 counts $bt_events events, snetmon $events" >&2
bytes=$(cat "$work"/trace/ctf/worker-* | wc -c)
i=0
while [ $i -lt "$runs" ]; do
    timed "$work/count" "$snetmon" dump --count "$work/trace"
    timed "$work/btcount" babeltrace2 "$work/trace" -c sink.utils.counter -p step=+0
    timed "$work/dump" "$snetmon" dump "$work/trace"
    timed "$work/bt" babeltrace2 "$work/trace"
    i=$((i + 1))
done
line() { # LABEL FILE
    w=$(column 1 "$work/$2"); c=$(column 2 "$work/$2")
    printf '| %s | %s | %s | %s |\n' "$1" "$w" "$c" "$(echo "$events $c" | awk '{printf "%.2f", $1 / $2 / 1e6}')"
}
echo "trace: mon_pipeline -m A, $items items, 1 worker: $events events, $bytes bytes ($(echo "$bytes $events" | awk '{printf "%.2f", $1 / $2}') bytes/event)"
echo
echo "| command | wall [s] | CPU [s] | M events per CPU second |"
echo "|---|---:|---:|---:|"
line '`snetmon dump --count`' count
line '`babeltrace2 -c sink.utils.counter`' btcount
line '`snetmon dump` (text)' dump
line '`babeltrace2` (text)' bt
echo
echo "decoding: snetmon $(factor "$(column 2 "$work/btcount")" "$(column 2 "$work/count")") faster than babeltrace2's counter (CPU), $(factor "$(column 1 "$work/btcount")" "$(column 1 "$work/count")") (wall)"
echo "text:     snetmon $(factor "$(column 2 "$work/bt")" "$(column 2 "$work/dump")") faster than babeltrace2's text (CPU), $(factor "$(column 1 "$work/bt")" "$(column 1 "$work/dump")") (wall)"
echo "($runs interleaved runs each, medians)"
