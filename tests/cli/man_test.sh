#!/bin/sh
# man_test.sh SNETMON MANDIR - the man pages built from docs/man render
# without a warning, and snetmon(1) has a section for every subcommand
# `snetmon --help` lists, with that subcommand's usage line.
set -u
snetmon="$1" mandir="$2"
fail() { echo "FAIL: $*"; exit 1; }
for page in snetmon.1 lpel.3 snetmon-trace.5; do
    [ -s "$mandir/$page" ] || fail "$page was not built"
    MANWIDTH=80 man --warnings -l "$mandir/$page" > "$mandir/$page.txt" 2> "$mandir/$page.err" ||
        fail "man $page exited $?"
    [ ! -s "$mandir/$page.err" ] || fail "man $page: $(head -3 "$mandir/$page.err")"
done
cmds=$("$snetmon" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
[ -n "$cmds" ] || fail "snetmon --help lists no commands"
for c in $cmds; do
    grep -q "^   $c\$" "$mandir/snetmon.1.txt" || fail "snetmon(1) has no section for $c"
    grep -q "usage: snetmon $c" "$mandir/snetmon.1.txt" || fail "snetmon(1): no usage of $c"
done
# The trace format page is docs/LOGFORMAT.md: its sections and its event table.
for s in "THE TRACE DIRECTORY" "RUN.JSON" "WORKER LOGS" "LOSSES, CRASHES AND DAMAGE"; do
    grep -q "$s" "$mandir/snetmon-trace.5.txt" || fail "snetmon-trace(5) lacks section $s"
done
grep -q "19 message_written" "$mandir/snetmon-trace.5.txt" || fail "snetmon-trace(5) lacks the event table"
echo "man pages: ok"
