#!/bin/sh
# snet_parse_only_test.sh SNETRUN NET.snet... - `snetrun --parse-only` on
# each application's network file exits 0 and prints the tree with the
# app's boxes, without any box library: none is loaded (the dynamic
# linker's log, LD_DEBUG=files, shows no *_boxes.so), and a copy whose
# metadata names a library that does not exist still parses, while
# running that copy fails with one line naming the missing library.
set -u
snetrun=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

for snet in "$@"; do
    app=$(basename "$snet" .snet)
    LD_DEBUG=files "$snetrun" --parse-only "$snet" > "$tmp/tree" 2> "$tmp/ld" ||
        { fail "$snet: --parse-only exited $?"; grep -v '^ *[0-9]*:' "$tmp/ld"; continue; }
    grep -q "^net $app " "$tmp/tree" || fail "$snet: the tree does not start with net $app"
    grep -q "box $app\." "$tmp/tree" || fail "$snet: no box $app.* in the tree"
    if grep -q '_boxes\.so' "$tmp/ld"; then
        fail "$snet: --parse-only loaded a box library"; grep '_boxes\.so' "$tmp/ld" | head -3
    fi
    sed "s/<library value=\"${app}_boxes\"\/>/<library value=\"no_such_boxes\"\/>/" "$snet" \
        > "$tmp/$app.snet"
    grep -q no_such_boxes "$tmp/$app.snet" || fail "$snet: its metadata names no ${app}_boxes"
    "$snetrun" --parse-only "$tmp/$app.snet" > /dev/null 2> "$tmp/err" ||
        { fail "$app.snet naming a missing library: --parse-only exited $?"; cat "$tmp/err"; }
    "$snetrun" "$tmp/$app.snet" > "$tmp/out" 2> "$tmp/err" < /dev/null
    status=$?
    [ $status -eq 1 ] || fail "$app.snet naming a missing library: running it exited $status, not 1"
    grep -q "box library 'no_such_boxes' not found" "$tmp/err" ||
        { fail "$app.snet: no message naming the missing library"; cat "$tmp/err"; }
    [ "$(wc -l < "$tmp/err")" -eq 1 ] || { fail "$app.snet: more than one line"; cat "$tmp/err"; }
    echo "$snet: parsed, $(grep -c ' box ' "$tmp/tree") boxes, no box library loaded"
done
exit $failed
