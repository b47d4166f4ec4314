#!/bin/sh
# examples_test.sh SNETRUN DIR - the grammar and checker accept networks
# written the way the original S-Net runtime's examples are (DIR/*.snet,
# our own networks modelled on them, one per example: nested nets,
# signatures over many lines, XML declarations and namespaced metadata,
# inline box code, guards with > inside, long else-if filters, placement,
# open signatures "-> ...", external nets, initialisers, synchro-cells
# joining a net's input variants, routing by a whole branch).
# Each must pass `snetrun --parse-only` with exit 0, print its tree (which
# starts with "net NAME"), and say nothing on stderr but notes - and no
# note that a synchro-cell never fires: each of these fires; metadata
# that means nothing here is noted, names defined nowhere too (external
# nets); inline box code parses but running it is refused with one line.
set -u
snetrun=$1
dir=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
count=0
fail() { echo "FAIL: $*"; failed=1; }
cd "$dir" || exit 1
for f in *.snet; do
    count=$((count + 1))
    name=$(basename "$f" .snet)
    "$snetrun" --parse-only "$f" > "$tmp/tree" 2> "$tmp/err"
    rc=$?
    [ $rc -eq 0 ] || { fail "$f: --parse-only exited $rc"; sed 's/^/    /' "$tmp/err"; continue; }
    head -1 "$tmp/tree" | grep -q "^net $name " || fail "$f: the tree does not start with net $name"
    if grep -v "^$f:[0-9]*:[0-9]*: note: " "$tmp/err" | grep -q .; then
        fail "$f: more than notes on stderr:"; sed 's/^/    /' "$tmp/err"
    fi
    grep "never fires" "$tmp/err" && fail "$f: a false note that a synchro-cell never fires"
    cp "$tmp/err" "$tmp/$name.notes"
    cp "$tmp/tree" "$tmp/$name.tree"
done
grep -q "metadata <SACmodule> means nothing to this runtime; ignored" "$tmp/puzzle.notes" ||
    fail "puzzle.snet: no note on the ignored <SACmodule>"
for element in observer flags compiler layout; do
    grep -q "metadata <$element> means nothing" "$tmp/annotated.notes" ||
        fail "annotated.snet: no note on the ignored <$element>"
done
"$snetrun" inline.snet > "$tmp/out" 2> "$tmp/err" < /dev/null
rc=$?
[ $rc -eq 1 ] || fail "inline.snet: running it exited $rc, not 1"
grep -q "^snetrun: inline.snet:[0-9]*:[0-9]*: box 'hello' has inline code" "$tmp/err" ||
    { fail "inline.snet: no message on the inline code"; cat "$tmp/err"; }
grep -q "linked.snet:22:10: note: 'decode' is defined nowhere in this file: an external net" \
    "$tmp/linked.notes" || fail "linked.snet: no note on the external net decode"
grep -q "route {part, <even>}" "$tmp/phases.tree" && grep -q "route (none: it is never chosen)" \
    "$tmp/phases.tree" || fail "phases.snet: a branch is not routed by what it needs"
[ $count -ge 12 ] || fail "only $count example networks"
[ $failed -eq 0 ] && echo "examples_test: $count networks in the original examples' style accepted"
exit $failed
