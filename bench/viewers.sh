#!/bin/sh
# viewers.sh - what the exports and the HTML report cost, as ratios to
# reading the same trace once (`snetmon dump --count`, the baseline) run
# alongside: N interleaved rounds of every command on one trace, then the
# median, min and max wall time of each and its median's ratio to the
# baseline's. Never a test (nothing here is timed in CTest).
#   bench/viewers.sh SNETMON TRACE [ROUNDS]     (default 7 rounds)
# Make a trace first, e.g. build/release/apps/mc/mc -w 2 --inputs 400 -m A --mon-dir /tmp/t
set -eu
snetmon=$1 trace=$2 rounds=${3:-7}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
ms() { s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N); echo $(((e - s) / 1000000)); }
for i in $(seq "$rounds"); do
    rm -rf "$out/otf2"
    echo "dump_count $(ms "$snetmon" dump --count "$trace")"
    echo "render_png $(ms "$snetmon" render "$trace" -o "$out/u.png")"
    echo "export_chrome $(ms "$snetmon" export --chrome "$trace" -o "$out/t.json")"
    echo "export_otf2 $(ms "$snetmon" export --otf2 "$trace" -o "$out/otf2")"
    echo "report_html $(ms "$snetmon" report "$trace" -o "$out/r.html")"
done | awk '
    { t[$1] = t[$1] " " $2; if (!($1 in seen)) { seen[$1] = 1; order[n++] = $1 } }
    END {
        for (i = 0; i < n; i++) {
            k = order[i]; m = split(substr(t[k], 2), v, " ")
            for (a = 1; a <= m; a++) for (b = a + 1; b <= m; b++) if (v[b] < v[a]) { x = v[a]; v[a] = v[b]; v[b] = x }
            med[k] = (m % 2) ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2; lo[k] = v[1]; hi[k] = v[m]
        }
        base = med["dump_count"] > 0 ? med["dump_count"] : 1
        printf "%-14s %10s %8s %8s %10s\n", "command", "median ms", "min", "max", "/ dump"
        for (i = 0; i < n; i++) { k = order[i]; printf "%-14s %10.0f %8d %8d %10.1f\n", k, med[k], lo[k], hi[k], med[k] / base }
    }'
ls -l "$out" | awk 'NR > 1 && $1 !~ /^d/ { print "size", $NF, $5 }'
du -sk "$out/otf2" | awk '{ print "size otf2/", $1 * 1024 }'
