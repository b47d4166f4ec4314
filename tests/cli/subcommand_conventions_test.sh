#!/bin/sh
# subcommand_conventions_test.sh SNETMON - every subcommand `snetmon --help`
# lists follows the conventions of tools/snetmon/cli.h: -h and --help print
# its usage and exit 0, --version prints "snetmon VERSION (git REVISION)",
# an unknown option is one line in the shared wording with exit status 2.
# Subcommands come from snetmon itself, so a new one is checked unasked.
set -u
snetmon="$1"
fail() { echo "FAIL: $*"; exit 1; }
cmds=$("$snetmon" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
[ -n "$cmds" ] || fail "snetmon --help lists no commands"
for c in $cmds; do
    for h in -h --help; do
        out=$("$snetmon" "$c" "$h") || fail "snetmon $c $h exited $?"
        echo "$out" | grep -q "^usage: snetmon $c" || fail "snetmon $c $h: no usage line"
    done
    out=$("$snetmon" "$c" --version) || fail "snetmon $c --version exited $?"
    echo "$out" | grep -Eqx 'snetmon [0-9.]+ \(git [^)]+\)' || fail "snetmon $c --version: $out"
    err=$("$snetmon" "$c" --no-such-option 2>&1 >/dev/null)
    rc=$?
    [ $rc -eq 2 ] || fail "snetmon $c --no-such-option exited $rc"
    [ "$err" = "snetmon $c: unknown option '--no-such-option'" ] ||
        fail "snetmon $c --no-such-option said: $err"
done
echo "subcommand conventions: ok ($(echo $cmds | wc -w) subcommands)"
