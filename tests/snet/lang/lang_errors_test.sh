#!/bin/sh
# lang_errors_test.sh SNETRUN DIR - every DIR/*.snet is a broken program whose
# first line says what snetrun --parse-only must report:
#     // expect: LINE:COLUMN: error: MESSAGE      (or "// expect: error: MESSAGE")
# The run must exit 1 and print "FILE:LINE:COLUMN: error: MESSAGE..." (or
# "FILE: error: MESSAGE...") and nothing on standard output.
set -u
snetrun="$1"
dir="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
count=0
cd "$dir" || exit 1
for f in *.snet; do
    count=$((count + 1))
    want=$(sed -n '1s,^// expect: ,,p' "$f")
    [ -n "$want" ] || { echo "FAIL: $f has no '// expect:' line"; failed=1; continue; }
    "$snetrun" --parse-only "$f" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    case "$want" in
        error:*) prefix="$f: $want" ;;
        *) prefix="$f:$want" ;;
    esac
    if [ $rc -ne 1 ]; then
        echo "FAIL: $f: exit $rc, expected 1"; failed=1
    elif ! grep -qF -- "$prefix" "$tmp/err"; then
        echo "FAIL: $f: expected '$prefix', got:"; sed 's/^/    /' "$tmp/err"; failed=1
    elif [ -s "$tmp/out" ]; then
        echo "FAIL: $f: printed a tree although it is broken"; failed=1
    fi
done
[ $count -ge 12 ] || { echo "FAIL: only $count broken files"; failed=1; }
[ $failed -eq 0 ] && echo "lang_errors_test: $count broken files, each reported where it is broken"
exit $failed
