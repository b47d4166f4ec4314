#!/bin/sh
# lang_run_test.sh SNETRUN BOXLIB NETDIR - runs the networks of NETDIR
# (one per combinator and language feature) with snetrun on their XML
# records (NAME.xml) and checks the records that come out. Outputs are
# compared as one line per record, "{x=(int)4, <t>=7}", in the order they
# left (sorted where the network does not promise an order).
set -u
snetrun="$1"
boxes="$2"
dir="$3"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# XML records on stdin -> one line per record.
records() {
    sed -n -e 's,^<field label="\([^"]*\)"[^>]*>\(.*\)</field>$,\1=\2,p' \
           -e 's,^<tag label="\([^"]*\)">\(.*\)</tag>$,<\1>=\2,p' \
           -e 's,^<btag label="\([^"]*\)">\(.*\)</btag>$,<#\1>=\2,p' \
           -e 's,^</record>$,END,p' |
    awk 'BEGIN { line = "" }
         $0 == "END" { print "{" line "}"; line = ""; next }
         { line = line (line == "" ? "" : ", ") $0 }'
}

# run NAME [snetrun options]: NAME.snet on NAME.xml; records into $tmp/NAME.
run() {
    name=$1; shift
    "$snetrun" "$dir/$name.snet" --boxes "$boxes" "$@" "$dir/$name.xml" \
        > "$tmp/$name.xml" 2> "$tmp/$name.err"
    rc=$?
    if [ $rc -ne 0 ]; then
        fail "$name: snetrun exited $rc"; sed 's/^/    /' "$tmp/$name.err"; return 1
    fi
    records < "$tmp/$name.xml" > "$tmp/$name"
}

# expect NAME [sorted]: the records must be the lines on stdin.
expect() {
    cat > "$tmp/$1.want"
    if [ "${2:-}" = sorted ]; then
        sort "$tmp/$1" > "$tmp/$1.got"; sort "$tmp/$1.want" > "$tmp/$1.want2"
    else
        cp "$tmp/$1" "$tmp/$1.got"; cp "$tmp/$1.want" "$tmp/$1.want2"
    fi
    if ! cmp -s "$tmp/$1.got" "$tmp/$1.want2"; then
        fail "$1: records differ (got < > want):"; diff "$tmp/$1.got" "$tmp/$1.want2" | head -20
    fi
}

# The metadata names the box library: found in the build tree.
if "$snetrun" "$dir/serial.snet" "$dir/serial.xml" > "$tmp/serial.xml" 2> "$tmp/serial.err"; then
    records < "$tmp/serial.xml" > "$tmp/serial"
    expect serial <<'EOF'
{x=(int)4}
{x=(int)6, <t>=7}
{x=(int)8, name=(string)"three"}
EOF
    tail -2 "$tmp/serial.xml" | grep -q '<record type="terminate" />' ||
        fail "serial: no terminate record at the end of the output"
else
    fail "serial (library from the metadata): exit $?"; cat "$tmp/serial.err"
fi

run parallel -w 2 && expect parallel sorted <<'EOF'
{x=(int)2}
{y=(int)5, <seen>=1}
{z=(int)7}
EOF

run parallel_det -w 2 && {
    i=1; while [ $i -le 40 ]; do
        if [ $((i % 3)) -eq 0 ]; then echo "{y=(int)$i}"; else echo "{x=(int)$i}"; fi
        i=$((i + 1))
    done | expect parallel_det
}

run star -w 2 && expect star sorted <<'EOF'
{<done>=1}
{<done>=1}
{<n>=0, <steps>=4}
{<n>=-2, <steps>=0}
EOF

run star_det -w 2 && {
    i=0; while [ $i -lt 30 ]; do echo "{id=(int)$i, <done>=1}"; i=$((i + 1)); done |
        expect star_det
}

run split -w 2 && {
    i=0; while [ $i -lt 9 ]; do echo "{x=(int)$((i + 1)), <k>=$((i % 3))}"; i=$((i + 1)); done |
        expect split sorted
}

run split_det -w 2 && {
    i=0; while [ $i -lt 40 ]; do echo "{x=(int)$i, <k>=$((i % 4))}"; i=$((i + 1)); done |
        expect split_det
}

run split_place -w 3 && {
    i=0; while [ $i -lt 20 ]; do
        echo "{x=(int)$i, w=(int)$((i % 5 % 3)), <k>=$((i % 5))}"; i=$((i + 1))
    done | expect split_place sorted
    # the !!@ half keeps its order
    grep -n . "$tmp/split_place" | sed -n 's/^\([0-9]*\):{x=(int)\(1[0-9]\),.*/\2/p' > "$tmp/det_order"
    seq 10 19 | cmp -s - "$tmp/det_order" || fail "split_place: !!@ changed the order"
}

run placement -w 2 && {
    i=0; while [ $i -lt 6 ]; do echo "{x=(int)$i, w=(int)1, w0=(int)1}"; i=$((i + 1)); done |
        expect placement
}

run sync -w 2 && expect sync sorted <<'EOF'
{a=(int)100}
{b=(int)200}
{s=(int)3}
EOF

run sync_keyed -w 2 && {
    expect sync_keyed sorted <<'EOF'
{s=(int)15, <job>=2}
{s=(int)8, <job>=1}
EOF
    grep -q "1 record(s) left in synchro-cells that never fired" "$tmp/sync_keyed.err" ||
        fail "sync_keyed: the unmatched record was not reported"
}

run sync_guard -w 2 && expect sync_guard sorted <<'EOF'
{a=(int)1, <passed>=5}
{s=(int)5}
EOF

run guards -w 2 && expect guards sorted <<'EOF'
{<one>=0}
{<two>=0}
{<two_again>=20}
{<other>=9}
{<big>=500}
{<negative>=7}
{<small>=50}
{<small>=5}
{<zero>=0}
EOF

run feedback -w 2 && expect feedback sorted <<'EOF'
{B=(int)3}
{B=(int)0}
{B=(int)5}
EOF

run feedback_guard -w 2 && expect feedback_guard sorted <<'EOF'
{<n>=0, <s>=4}
{<n>=0, <s>=1}
{<n>=-1, <s>=1}
EOF

run feedback_det -w 2 && {
    i=0; while [ $i -lt 25 ]; do echo "{x=(int)$i, <n>=0}"; i=$((i + 1)); done |
        expect feedback_det
}

run rename && expect rename sorted <<'EOF'
{x=(int)4, <e>=3}
{y=(int)4, <c>=2, <d>=5}
EOF

run nested -w 2 && expect nested <<'EOF'
{x=(int)10}
{x=(int)46}
EOF

run types && expect types <<'EOF'
{d=(double)0.5, s=(string)"hi!"}
{d=(double)3, s=(string)"a&lt;b&amp;c!", c=(int)65}
EOF

# Routing by what a whole branch needs (the original's determ test): B goes
# left (+1000), C right (+2000), A through show_a twice, in input order.
run routed -w 2 && {
    i=0; while [ $i -lt 12 ]; do
        if [ $((i % 3)) -eq 2 ]; then other="C=(int)$((i + 2000))"; else other="B=(int)$((i + 1000))"; fi
        echo "{A=(int)$((i + 2)), $other, D=(int)$((i * 5 % 11))}"; i=$((i + 1))
    done | expect routed
}

# Initialisers fire once at the start and take no records in a parallel.
run initialisers -w 2 && expect initialisers sorted <<'EOF'
{x=(int)3}
{x=(int)4}
{x=(int)101}
{x=(int)201}
EOF

# State joined with each value in turn: running sums, in a feedback loop, a
# deterministic star, and with a second state store released by a trigger.
for net in state state_det multistate; do
    run $net -w 2 && expect $net sorted <<'EOF'
{outval=(int)11}
{outval=(int)13}
{outval=(int)16}
EOF
done
[ "$(tr '\n' ' ' < "$tmp/state_det")" = "{outval=(int)11} {outval=(int)13} {outval=(int)16} " ] ||
    fail "state_det: ** did not keep the order: $(cat "$tmp/state_det")"

# A record filling both patterns fires the cell at once; [{} -> {}; {}] doubles.
printf '{<C>=0}\n' > "$tmp/c.txt"
out=$("$snetrun" "$dir/duplicate.snet" --text "$tmp/c.txt") || fail "duplicate: exit $?"
[ "$(echo "$out" | grep -c '^{<D>=0}$')" -eq 8 ] && [ "$(echo "$out" | wc -l)" -eq 8 ] ||
    fail "duplicate printed: $out"

# External nets: one from another .snet file (--with), one only declared
# and run as a box of the box library; without --with, one line names it.
run external --with "$dir/external_nets.snet" && expect external <<'EOF'
{x=(int)16}
{x=(int)24}
EOF
"$snetrun" "$dir/external.snet" --boxes "$boxes" "$dir/external.xml" > "$tmp/ext.out" 2> "$tmp/ext.err"
[ $? -eq 1 ] && [ ! -s "$tmp/ext.out" ] &&
    grep -q "^snetrun: .*external.snet:14:18: external net 'twice' has a network in no other .snet file given (none was)" "$tmp/ext.err" ||
    fail "external net nowhere: $(cat "$tmp/ext.err")"

# Text records in and out (docs/RECORDS.md).
printf '{x=1}\n{x=2, <t>=7}\n' > "$tmp/in.txt"
out=$("$snetrun" "$dir/serial.snet" --boxes "$boxes" --text "$tmp/in.txt") || fail "--text: exit $?"
[ "$out" = "$(printf '{x=4}\n{x=6, <t>=7}')" ] || fail "--text printed: $out"

# A failing box: the run goes on, exits 1, and -O leaves no file behind.
"$snetrun" "$dir/failing.snet" --boxes "$boxes" -O "$tmp/failed.xml" "$dir/failing.xml" \
    2> "$tmp/failing.err"
rc=$?
[ $rc -eq 1 ] || fail "failing: exit $rc, expected 1"
grep -q "box 'failing.broken' failed" "$tmp/failing.err" || fail "failing: $(cat "$tmp/failing.err")"
[ ! -e "$tmp/failed.xml" ] || fail "failing: -O left a file behind"
ls "$tmp" | grep -q 'failed.xml.tmp' && fail "failing: -O left a temporary file behind"

# -O writes the file when the run succeeds.
"$snetrun" "$dir/nested.snet" --boxes "$boxes" -O "$tmp/nested-out.xml" "$dir/nested.xml" ||
    fail "-O: exit $?"
[ "$(records < "$tmp/nested-out.xml" | tr '\n' ' ')" = "{x=(int)10} {x=(int)46} " ] ||
    fail "-O wrote: $(cat "$tmp/nested-out.xml")"

# Malformed XML input: the records before it run, the error names the line.
head -7 "$dir/nested.xml" > "$tmp/bad.xml"
printf '<record type="data" mode="textual">\n  <field label="x">(int)oops</field>\n</record>\n' >> "$tmp/bad.xml"
"$snetrun" "$dir/nested.snet" --boxes "$boxes" "$tmp/bad.xml" > "$tmp/bad.out" 2> "$tmp/bad.err"
rc=$?
[ $rc -eq 1 ] || fail "bad XML: exit $rc, expected 1"
grep -q "bad.xml:9: field 'x': bad (int) value 'oops'" "$tmp/bad.err" ||
    fail "bad XML: $(cat "$tmp/bad.err")"
[ "$(records < "$tmp/bad.out" | tr '\n' ' ')" = "{x=(int)10} {x=(int)46} " ] ||
    fail "bad XML: the good records did not come out: $(cat "$tmp/bad.out")"
printf '<record type="data"><field label="x">(int)1</field>\n' > "$tmp/cut.xml"
"$snetrun" "$dir/nested.snet" --boxes "$boxes" "$tmp/cut.xml" > /dev/null 2> "$tmp/cut.err"
[ $? -eq 1 ] && grep -q "cut.xml:[0-9]*: not well-formed XML" "$tmp/cut.err" ||
    fail "truncated XML: $(cat "$tmp/cut.err")"

# Monitoring works as for compiled programs.
"$snetrun" "$dir/nested.snet" --boxes "$boxes" -m A --mon-dir "$tmp/trace" "$dir/nested.xml" > /dev/null ||
    fail "-m A: exit $?"
[ -f "$tmp/trace/run.json" ] && ls "$tmp/trace" | grep -q . || fail "-m A wrote no trace"

# Usage errors and a missing box.
"$snetrun" "$dir/nested.snet" --boxes "$boxes" --no-such-option < /dev/null > /dev/null 2>&1
[ $? -eq 2 ] || fail "an unknown option did not exit 2"
"$snetrun" "$dir/nested.snet" --net nowhere < /dev/null > /dev/null 2> "$tmp/net.err"
[ $? -eq 1 ] && grep -q "no top-level net 'nowhere'" "$tmp/net.err" || fail "--net nowhere"
printf 'net lost { box nobody ((x) -> (x)); } connect nobody;\n' > "$tmp/lost.snet"
"$snetrun" "$tmp/lost.snet" --boxes "$boxes" < /dev/null > /dev/null 2> "$tmp/lost.err"
[ $? -eq 1 ] && grep -q "lost.snet:1:16: box 'nobody': no function 'nobody' in .*libsnet-langtest.so" \
    "$tmp/lost.err" || fail "missing box: $(cat "$tmp/lost.err")"

# Every test network passes the check.
for f in "$dir"/*.snet; do
    "$snetrun" --parse-only "$f" > /dev/null 2> "$tmp/parse.err" ||
        { fail "--parse-only $f"; cat "$tmp/parse.err"; }
    grep "never fires" "$tmp/parse.err" && fail "$f: a false note that a synchro-cell never fires"
done

[ $failed -eq 0 ] && echo "lang_run_test: ok"
exit $failed
