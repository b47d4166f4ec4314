#!/bin/sh
# report_browser_test.sh - `snetmon report` on a real application run,
# loaded in headless Chromium: the page renders without a script error, a
# console error or a blocked fetch (its security policy forbids them all),
# and its timeline has one lane per worker log of the trace. Also: the file
# fetches nothing by itself (no external src/href), the advice section is
# there only with --advice, a refused report leaves no file.
#   report_browser_test.sh SNETMON CHROMIUM WORKDIR APP [APP ARGS...]
set -u
snetmon=$1 chromium=$2 work=$3
shift 3
fail() { echo "FAIL: $*" >&2; exit 1; }

rm -rf "$work" && mkdir -p "$work" || fail "cannot create $work"
"$@" -m A --mon-dir "$work/trace" >/dev/null || fail "$* -m A"
workers=$(ls "$work/trace/ctf" | grep -c '^worker-')
"$snetmon" report "$work/trace" -o "$work/report.html" || fail "snetmon report"
[ -s "$work/report.html" ] || fail "no report"

# Self-contained: nothing to fetch (fragment links and data: only).
if grep -Eo '(src|href)="[^"#][^"]*"' "$work/report.html" | grep -v '"data:' | grep -q .; then
    fail "the report refers to outside files: $(grep -Eo '(src|href)="[^"#][^"]*"' "$work/report.html" | head -3)"
fi
grep -q 'id="advice"' "$work/report.html" && fail "an advice section without --advice"

# A browser that can reach nothing and remembers nothing between runs.
browse() { # FILE, then chromium options
    file=$1
    shift
    rm -rf "$work/profile" && mkdir "$work/profile"
    timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$work/profile" --enable-logging=stderr --v=0 "$@" "file://$file"
}
browse "$work/report.html" --dump-dom >"$work/dom.html" 2>"$work/chromium.err" ||
    fail "chromium failed: $(tail -3 "$work/chromium.err")"
selftest=$(sed -n 's/.*<pre id="selftest"[^>]*>\([^<]*\)<\/pre>.*/\1/p' "$work/dom.html")
echo "selftest: $selftest"
[ -n "$selftest" ] || fail "the page's script did not run (no self-test line)"
echo "$selftest" | grep -q " errors=0" || fail "errors in the page: $selftest"
echo "$selftest" | grep -q "^lanes=$workers expected_lanes=$workers " ||
    fail "timeline: $selftest; the trace has $workers worker logs"
echo "$selftest" | grep -Eq "path_points=[1-9]" || fail "no critical path over the timeline: $selftest"
echo "$selftest" | grep -Eq "tables=([5-9]|[1-9][0-9])" || fail "tables missing: $selftest"
if grep -q 'CONSOLE' "$work/chromium.err"; then
    fail "console messages: $(grep CONSOLE "$work/chromium.err" | head -3)"
fi
grep -q 'id="tasks-table" class="data sortable"' "$work/dom.html" || fail "no sortable task table"
echo "ok: rendered with $workers worker lanes, no console errors"

# The advice hook: the section appears with --advice, its text escaped.
printf 'Move <vcall> off worker 0.\n' >"$work/advice.txt"
"$snetmon" report "$work/trace" -o "$work/advised.html" --advice "$work/advice.txt" >/dev/null ||
    fail "report --advice"
grep -q 'id="advice"' "$work/advised.html" || fail "--advice: no advice section"
grep -q 'Move &lt;vcall&gt; off worker 0.' "$work/advised.html" || fail "--advice: text missing or not escaped"

# Refusals: a damaged trace is one line, exit 1, and no file.
cp -r "$work/trace" "$work/bad"
printf '\036' | dd of="$work/bad/ctf/worker-0" bs=1 seek=68 conv=notrunc 2>/dev/null
"$snetmon" report "$work/bad" -o "$work/bad.html" 2>"$work/bad.err"
[ $? -eq 1 ] || fail "damaged trace: not exit 1"
[ "$(wc -l <"$work/bad.err")" -eq 1 ] || fail "damaged trace: $(cat "$work/bad.err")"
[ -e "$work/bad.html" ] && fail "damaged trace: a report was left behind"
"$snetmon" report "$work/trace" >/dev/null 2>&1
[ $? -eq 2 ] || fail "report without -o: not exit 2"
echo "ok: advice hook and refusals"
