#!/bin/sh
# c4snet_cli_test.sh SNETRUN SNETMON ARITY_LIB COLLATZ_LIB DIR - original-
# style programs through snetrun: C4SNet box libraries built from sources
# that include only C4SNet.h, memfun.h and bool.h, records in the original
# XML format, outputs compared as records (the expected file is written as
# the original runtime writes it, all on one line); box libraries as a
# comma list, records on standard input, monitoring and snetmon on the
# trace, and the errors: a box in no library, a box's bad C4SNetOut.
set -u
snetrun="$1" snetmon="$2" arity="$3" collatz="$4" dir="$5"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# XML records (any layout) -> one line per data record, labels sorted:
# {name=(TYPE)VALUE, <tag>=N, <#btag>=N}. Values are kept as written.
records() {
    sed -e 's/</\
</g' "$1" | awk '
        function flush(   i, j, t, line) {
            for (i = 1; i < n; i++)
                for (j = i + 1; j <= n; j++)
                    if (item[j] < item[i]) { t = item[i]; item[i] = item[j]; item[j] = t }
            line = ""
            for (i = 1; i <= n; i++) line = line (i > 1 ? ", " : "") item[i]
            print "{" line "}"
        }
        /^<record/ { data = ($0 ~ /type="data"/); n = 0; next }
        /^<\/record>/ { if (data) flush(); data = 0; next }
        data && /^<(field|tag|btag) label="/ {
            kind = substr($0, 2, index($0, " ") - 2)
            label = $0; sub(/^[^"]*"/, "", label); sub(/".*/, "", label)
            value = substr($0, index($0, ">") + 1); sub(/[ \t\r]+$/, "", value)
            if (kind == "tag") label = "<" label ">"
            if (kind == "btag") label = "<#" label ">"
            item[++n] = label "=" value
        }' | sort
}

same_records() { # NAME GOT WANT
    records "$2" > "$tmp/$1.got.lines"
    records "$3" > "$tmp/$1.want.lines"
    [ -s "$tmp/$1.want.lines" ] || { fail "$1: no records expected (bad test)"; return; }
    cmp -s "$tmp/$1.got.lines" "$tmp/$1.want.lines" ||
        { fail "$1: records differ (got < > want)"; diff "$tmp/$1.got.lines" "$tmp/$1.want.lines" | head -20; }
}

# Boxes of 0 to 12 labels; the libraries as a comma list.
"$snetrun" "$dir/arity.snet" --boxes "$arity,$collatz" -i "$dir/arity.xml" > "$tmp/arity.xml" \
    2> "$tmp/arity.err" || { fail "arity: exit $?"; cat "$tmp/arity.err"; }
cat > "$tmp/arity.want" <<'XML'
<record type="data"><field label="f1">(int)13</field><field label="f3">(int)13</field>
<field label="f5">(int)13</field><field label="f7">(int)13</field><field label="f9">(int)13</field>
<field label="f11">(int)13</field><tag label="t2">13</tag><tag label="t4">13</tag>
<tag label="t6">13</tag><tag label="t8">13</tag><tag label="t10">13</tag><tag label="t12">13</tag>
<tag label="keep">99</tag><tag label="zero">0</tag></record>
XML
same_records arity "$tmp/arity.xml" "$tmp/arity.want"
tail -1 "$tmp/arity.xml" | grep -q '<record type="terminate" />' ||
    fail "arity: no terminate record at the end"

# An original-style program, records on standard input, the libraries
# given one by one.
"$snetrun" "$dir/collatz.snet" --boxes "$collatz" --boxes "$arity" -w 2 < "$dir/collatz.xml" \
    > "$tmp/collatz.xml" 2> "$tmp/collatz.err" || { fail "collatz: exit $?"; cat "$tmp/collatz.err"; }
same_records collatz "$tmp/collatz.xml" "$dir/collatz.out"

# Monitored like any program; snetmon reads the trace.
"$snetrun" "$dir/collatz.snet" --boxes "$collatz" -i "$dir/collatz.xml" -m A --mon-dir "$tmp/trace" \
    > /dev/null 2> "$tmp/mon.err" || { fail "-m A: exit $?"; cat "$tmp/mon.err"; }
"$snetmon" metrics "$tmp/trace" > "$tmp/metrics.txt" 2>&1 || fail "snetmon metrics: exit $?"
grep -q "collatz.step" "$tmp/metrics.txt" || fail "snetmon metrics names no collatz.step task"
"$snetmon" wcp "$tmp/trace" > "$tmp/wcp.txt" 2>&1 || fail "snetmon wcp: exit $?"
grep -q "collatz.report" "$tmp/wcp.txt" || fail "the critical path does not end in collatz.report"
"$snetmon" report "$tmp/trace" -o "$tmp/report.html" > /dev/null 2>&1 || fail "snetmon report: exit $?"
[ -s "$tmp/report.html" ] || fail "snetmon report wrote nothing"

# Text records: C4SNet data keeps its original text, quoted.
printf '<record type="data"><field label="x">(int[2])1,2</field></record>\n' > "$tmp/x.xml"
printf 'net t { box pass ((x) -> (x)); } connect [{x} -> {x, <y=1>}];\n' > "$tmp/t.snet"
out=$("$snetrun" "$tmp/t.snet" --boxes "$collatz" --text < /dev/null) || fail "--text: exit $?"
[ -z "$out" ] || fail "--text with no input printed: $out"

# A box in no library: named, with every library searched.
printf 'net lost { box nowhere ((x) -> (x)); } connect nowhere;\n' > "$tmp/lost.snet"
"$snetrun" "$tmp/lost.snet" --boxes "$arity,$collatz" < /dev/null > /dev/null 2> "$tmp/lost.err"
rc=$?
[ $rc -eq 1 ] || fail "a missing box: exit $rc, expected 1"
grep -q "box 'nowhere': no function 'nowhere' in .*arity.*, .*collatz" "$tmp/lost.err" ||
    fail "a missing box: $(cat "$tmp/lost.err")"

# A bad C4SNetOut: one runtime error naming the box, exit 1, no output records.
printf '<record type="data"><field label="x">(int)1</field></record>\n' > "$tmp/one.xml"
"$snetrun" "$dir/broken.snet" --boxes "$collatz" -i "$tmp/one.xml" > "$tmp/broken.out" \
    2> "$tmp/broken.err"
rc=$?
[ $rc -eq 1 ] || fail "broken: exit $rc, expected 1"
grep -q "box 'broken.broken': C4SNetOut: output variant 2 does not exist" "$tmp/broken.err" ||
    fail "broken: $(cat "$tmp/broken.err")"
[ -z "$(records "$tmp/broken.out")" ] || fail "broken: records came out"

[ $failed -eq 0 ] && echo "c4snet_cli_test: ok"
exit $failed
