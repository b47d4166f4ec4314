#!/bin/sh
# expect_usage_error.sh TEXT PROGRAM ARGS... - runs PROGRAM ARGS, which must
# exit 2 (a usage error), print TEXT (a fixed string) on stderr, and nothing
# on stdout.
set -u
text=$1
shift
err=$("$@" 2>&1 >/dev/null)
status=$?
out=$("$@" 2>/dev/null)
echo "$err"
[ $status -eq 2 ] || { echo "FAIL: exit $status, expected 2"; exit 1; }
[ -z "$out" ] || { echo "FAIL: printed on stdout: $out"; exit 1; }
case $err in
    *"$text"*) exit 0 ;;
esac
echo "FAIL: stderr lacks: $text"
exit 1
