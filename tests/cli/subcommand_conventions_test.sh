#!/bin/sh
# subcommand_conventions_test.sh SNETMON CLI_H PROGRAM... - the command-line
# conventions of tools/snetmon/cli.h, checked on every snetmon subcommand
# `snetmon --help` lists and on the programs given (the apps, snetrun,
# lpel-demo, the benches):
#   - -h and --help print the usage and exit 0, --version prints
#     "snetmon VERSION (git REVISION)", an unknown option is one line in the
#     shared wording with exit status 2 (the subcommands);
#   - every subcommand's --help lists --version and ends with one or two
#     examples ("examples:", then lines "  snetmon NAME ...");
#   - one meaning per flag: every long flag that the --help texts of two of
#     them share is a row of cli.h's table of flags;
#   - every old spelling of the table still works for its subcommands or
#     programs: one warning line "PROG: warning: OLD is deprecated, use
#     NEW", exit 0 (tried with --help after it), and no --help lists it
#     (flag and value) as an option of its own any more.
# Subcommands come from snetmon itself, so a new one is checked unasked.
set -u
snetmon="$1" cli_h="$2"
shift 2
fail() { echo "FAIL: $*"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

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

# Every --help text, one file per subcommand or program.
for c in $cmds; do
    "$snetmon" "$c" --help >"$work/help.snetmon-$c" || fail "snetmon $c --help"
done

# --version listed, and the examples last.
for c in $cmds; do
    h="$work/help.snetmon-$c"
    grep -Eq -- '^ +--version( |$)' "$h" || fail "snetmon $c --help does not list --version"
    awk '/^examples:$/ { on = 1; next } on' "$h" >"$work/examples"
    n=$(wc -l <"$work/examples")
    [ "$n" -ge 1 ] && [ "$n" -le 2 ] ||
        fail "snetmon $c --help does not end with one or two examples (found $n lines after 'examples:')"
    grep -v "^  snetmon $c " "$work/examples" >/dev/null &&
        fail "snetmon $c --help: an example that is not 'snetmon $c ...': $(grep -v "^  snetmon $c " "$work/examples")"
done
for p in "$@"; do
    "$p" --help >"$work/help.$(basename "$p")" 2>&1 || fail "$p --help exited $?"
done

# The table: the rows between "flag  meaning" and "Old spellings"; a row's
# flags are the words of its first column.
sed -n '/^ \*   flag  *meaning/,/^ \* Old spellings/p' "$cli_h" |
    sed -n 's/^ \*   \(-[^ ].*\)$/\1/p' | sed 's/  .*//' |
    grep -oE -- '--[a-z][a-z0-9-]*|(^| )-[a-zA-Z]' | tr -d ' ' | sort -u >"$work/table"
[ -s "$work/table" ] || fail "$cli_h: no table of flags"

# Long flags in two or more --help texts must be rows.
for f in "$work"/help.*; do
    grep -oE -- '--[a-z][a-z0-9-]*' "$f" | sort -u
done | sort | uniq -c | awk '$1 > 1 { print $2 }' >"$work/shared"
missing=$(comm -23 "$work/shared" "$work/table")
[ -z "$missing" ] || fail "flags in several --help texts but not in cli.h's table:" $missing

# The old spellings: "WHERE, WHERE: OLD [VALUE] -> NEW [VALUE]".
sed -n '/^ \* Old spellings/,/^ \*\//p' "$cli_h" | sed -n 's/^ \*   \(.*: .* -> .*\)$/\1/p' \
    >"$work/old"
[ -s "$work/old" ] || fail "$cli_h: no old spellings listed"
n=0
while IFS= read -r row; do
    where=${row%%: *}
    rest=${row#*: }
    old=${rest%% -> *}
    new=${rest#* -> }
    old_flag=${old%% *}
    new_flag=${new%% *}
    value=
    [ "$old_flag" = "$old" ] || value=100
    for w in $(echo "$where" | tr ',' ' '); do
        if echo "$cmds" | grep -qx "$w"; then
            targets="snetmon:$w"
        else
            targets=
            for p in "$@"; do [ "$(basename "$p")" = "$w" ] && targets="$p"; done
            [ -n "$targets" ] || fail "old spelling for '$w', which is neither a subcommand nor a program given"
        fi
        for t in $targets; do
            case $t in
            snetmon:*) name="snetmon ${t#snetmon:}"; run() { "$snetmon" "${t#snetmon:}" "$@"; } ;;
            *) name=$(basename "$t"); run() { "$t" "$@"; } ;;
            esac
            help="$work/help.$(echo "$name" | sed 's/^snetmon /snetmon-/')"
            # The old spelling with its value (render's --from FORMAT is an
            # option again; its --from T is not).
            grep -Eq -- "^ +(-[a-zA-Z], )?$old( |,|\$)" "$help" &&
                fail "$name --help still lists $old as an option"
            if [ -n "$value" ]; then
                run "$old_flag" "$value" --help >/dev/null 2>"$work/err"
            else
                run "$old_flag" --help >/dev/null 2>"$work/err"
            fi
            rc=$?
            [ $rc -eq 0 ] || fail "$name $old_flag ${value:+$value }--help exited $rc: $(cat "$work/err")"
            grep -q ": warning: $old is deprecated, use $new\$" "$work/err" ||
                fail "$name $old_flag: no deprecation line: $(cat "$work/err")"
            [ "$(grep -c 'is deprecated' "$work/err")" -eq 1 ] ||
                fail "$name $old_flag: more than one deprecation line: $(cat "$work/err")"
            n=$((n + 1))
        done
    done
    : "$new_flag"
done <"$work/old"

echo "subcommand conventions: ok ($(echo $cmds | wc -w) subcommands, $# programs," \
     "$(wc -l <"$work/table") flags in the table, $n old spellings tried)"
