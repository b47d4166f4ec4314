#!/bin/sh
# check_original_snet.sh SNETRUN DIR - checks snetrun against the original
# S-Net runtime's snapshot in DIR (snetdev/snet-rts, read only; nothing of
# it is copied or built): every one of its .snet files passes
# `snetrun --parse-only` except the ones docs/SNET-LANGUAGE.md lists as
# rightly refused, which fail at the place listed there; no file gets a
# note that a synchro-cell never fires; and its box-free C tests with an
# expected output (filter1, filter2, syncstar: `input` is what the original
# runtime printed for input*.xml) give the same records here. Exit 0 when
# all hold, 1 otherwise, 77 when DIR is not there (the test is skipped).
set -u
snetrun="$1"
dir="$2"
[ -d "$dir/examples" ] || { echo "check_original_snet: no snapshot at $dir (skipped)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# The refused files with where they fail (docs/SNET-LANGUAGE.md).
cat > "$tmp/refused" <<'LIST'
examples/bench-pipeline/base-test.snet 17:1
examples/loadbalance/raytrace.snet 34:13
tests/compiler/dcrtest/dcrtest.snet 18:18
tests/compiler/filttest/filttest.snet 21:21
tests/compiler/runexample/disam_runexample.snet 18:8
tests/compiler/runexample/final_runexample.snet 3:8
tests/compiler/runexample/netren_runexample.snet 18:8
tests/compiler/runexample/opt_runexample.snet 34:9
tests/compiler/tagexprtest/tagexprtest.snet 14:18
tests/compiler/tinftest/tinftest.snet 57:20
tests/compiler/trestest/trestest.snet 22:16
LIST

accepted=0 refused=0
for f in $(cd "$dir" && find . -name '*.snet' | sed 's,^\./,,' | sort); do
    (cd "$dir" && "$snetrun" --parse-only "$f") > /dev/null 2> "$tmp/err"
    rc=$?
    place=$(awk -v f="$f" '$1 == f { print $2 }' "$tmp/refused")
    if [ -n "$place" ]; then
        refused=$((refused + 1))
        [ $rc -eq 1 ] && grep -q "^$f:$place: error: " "$tmp/err" ||
            fail "$f: expected an error at $place, got exit $rc: $(head -2 "$tmp/err")"
    else
        accepted=$((accepted + 1))
        [ $rc -eq 0 ] || fail "$f: refused: $(grep error "$tmp/err" | head -1)"
    fi
    grep "never fires" "$tmp/err" && fail "$f: a note that a synchro-cell never fires"
done
[ $refused -eq "$(wc -l < "$tmp/refused")" ] || fail "only $refused of the refused files were found"

# XML records -> one line per record, labels sorted: "{A=(int)10, <T>=0}".
records() {
    grep -o '<field label="[^"]*"[^>]*>[^<]*</field>\|<tag label="[^"]*">[^<]*</tag>\|<btag label="[^"]*">[^<]*</btag>\|</record>' |
        sed -e 's,^<field label="\([^"]*\)"[^>]*>\(.*\)</field>$,\1=\2,' \
            -e 's,^<tag label="\([^"]*\)">\(.*\)</tag>$,<\1>=\2,' \
            -e 's,^<btag label="\([^"]*\)">\(.*\)</btag>$,<#\1>=\2,' \
            -e 's,^</record>$,END,' |
        awk '$0 == "END" { n = split(line, l, "\t"); s = "";
                           for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
                               if (l[j] < l[i]) { t = l[i]; l[i] = l[j]; l[j] = t }
                           for (i = 1; i <= n; i++) s = s (i > 1 ? ", " : "") l[i];
                           print "{" s "}"; line = ""; next }
             { line = line (line == "" ? "" : "\t") $0 }'
}

# compare TEST INPUT EXPECTED ordered|sorted
compare() {
    t="$dir/examples/tests/C/$1"
    "$snetrun" "$t/$1.snet" -i "$t/$2" > "$tmp/out.xml" 2> "$tmp/run.err" ||
        { fail "$1 $2: snetrun exited $?: $(cat "$tmp/run.err")"; return; }
    records < "$tmp/out.xml" > "$tmp/got"
    records < "$t/$3" > "$tmp/want"
    if [ "$4" = sorted ]; then sort -o "$tmp/got" "$tmp/got"; sort -o "$tmp/want" "$tmp/want"; fi
    [ -s "$tmp/want" ] && cmp -s "$tmp/got" "$tmp/want" ||
        { fail "$1 $2: records differ (got < > want):"; diff "$tmp/got" "$tmp/want" | head; }
}
compare filter1 input.xml input ordered
compare filter1 input2.xml input2 ordered
compare filter2 input.xml input ordered
compare syncstar input.xml input sorted

[ $failed -eq 0 ] && echo "check_original_snet: $accepted files accepted, $refused refused where they are wrong; filter1, filter2, syncstar give the original's records"
exit $failed
