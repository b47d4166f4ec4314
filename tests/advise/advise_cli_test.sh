#!/bin/sh
# advise_cli_test.sh - `snetmon advise` from the command line:
#   - on a hand-made trace with an obviously bad mapping it names the
#     problem and writes a mapping, which the runtime's own matcher reads
#     back with every task on the worker the advice chose;
#   - on a balanced trace it says the mapping is already good and writes
#     no file;
#   - usage errors exit 2, unusable traces exit 1 with one line and leave
#     no file behind;
#   - with a real app (mc) the round trip: trace -> advice -> the app runs
#     with --map and --check -> every task of the rerun sits where the
#     mapping file says, and every task of the first run is covered.
#
# usage: advise_cli_test.sh SNETMON MAKE_FIXTURE MAP_LOOKUP WORKDIR [MC]
set -u
SNETMON=$1
FIXTURE=$2
LOOKUP=$3
WORK=$4
MC=${5:-}

fail() {
    echo "FAIL: $*"
    exit 1
}

# expect RC CMD...: runs CMD (stdout to out.txt, stderr to err.txt), checks its status.
expect() {
    want=$1
    shift
    "$@" >out.txt 2>err.txt
    rc=$?
    [ "$rc" = "$want" ] || { cat out.txt err.txt; fail "'$*' exited $rc, expected $want"; }
}

# The task names of `advise --list-tasks` with their advised worker: "NAME WORKER".
advised_names() {
    awk '/^Task names/ {t = 1; next} t && NF >= 5 {print $1, $NF}' "$1"
}

rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK" || exit 1
"$FIXTURE" bad bad && "$FIXTURE" good good && "$FIXTURE" tworuns tworuns ||
    fail "could not write the fixtures"

# 1. an obviously bad mapping
expect 0 "$SNETMON" advise bad -o bad.map --list-tasks
grep -q "load imbalance: worker 0 executes 100.0 %" out.txt || fail "bad: no imbalance named"
grep -q "change the mapping: predicted 2.00x faster" out.txt || fail "bad: no change advised"
grep -q "wrote bad.map" out.txt || fail "bad: no file reported"
[ -s bad.map ] || fail "bad: no mapping file"
advised_names out.txt >bad.names
[ "$(wc -l <bad.names)" = 6 ] || fail "bad: expected 6 task names, got $(wc -l <bad.names)"
"$LOOKUP" bad.map <bad.names || fail "bad.map does not place the tasks as advised"

# 2. a perfect one: said so, no file
expect 0 "$SNETMON" advise good -o good.map
grep -q "the mapping is already good" out.txt || fail "good: not called good"
grep -q "no mapping written to good.map" out.txt || fail "good: no word about the file"
[ ! -e good.map ] || fail "good: a mapping file was written"

# 3. errors
expect 2 "$SNETMON" advise
expect 2 "$SNETMON" advise --bogus bad
grep -q "unknown option '--bogus'" err.txt || fail "unknown option not named"
expect 2 "$SNETMON" advise --min-gain lots bad
grep -q -- "--min-gain needs a number" err.txt || fail "bad --min-gain not explained"
expect 2 "$SNETMON" advise --cores 0 bad
grep -q -- "--cores needs a whole number" err.txt || fail "bad --cores not explained"
expect 2 "$SNETMON" advise bad good
expect 2 "$SNETMON" advise bad -o
expect 0 "$SNETMON" advise --help
grep -q "usage: snetmon advise TRACE" out.txt || fail "--help"
expect 1 "$SNETMON" advise no-such-trace -o none.map
[ "$(wc -l <err.txt)" = 1 ] || fail "missing trace: not one line"
grep -q "^snetmon advise: .*no-such-trace" err.txt || fail "missing trace not named"
expect 1 "$SNETMON" advise tworuns -o two.map
grep -q "holds 2 runs" err.txt || fail "two runs not refused"
[ ! -e two.map ] || fail "tworuns: a file was left behind"
cp -r bad cut
log=cut/ctf/worker-0
truncate -s $(($(wc -c <"$log") - 5)) "$log"
expect 1 "$SNETMON" advise cut -o cut.map
grep -q "worker-0" err.txt || fail "truncated trace: log not named: $(cat err.txt)"
[ ! -e cut.map ] && [ -z "$(ls cut.map.* 2>/dev/null)" ] || fail "truncated trace: a file was left"

# 4. the round trip through a real program
if [ -n "$MC" ]; then
    args="-w 2 --inputs 6 --paths 600 --batch 100"
    # shellcheck disable=SC2086
    "$MC" $args -m A --mon-dir mc1 >/dev/null || fail "mc run"
    expect 0 "$SNETMON" advise mc1 -o mc.map --list-tasks --min-gain 0
    [ -s mc.map ] || { cat out.txt; fail "mc: no mapping written"; }
    advised_names out.txt >mc1.names
    "$LOOKUP" mc.map <mc1.names || fail "mc.map does not place the traced tasks as advised"
    # shellcheck disable=SC2086
    "$MC" $args --check --map mc.map -m A --mon-dir mc2 >mc2.txt 2>&1 || {
        cat mc2.txt
        fail "mc does not run with the advised mapping"
    }
    "$SNETMON" dump mc2 | sed -n 's/.* task_map task=[0-9]* worker=\([0-9]*\) name=\(.*\)$/\2 \1/p' \
        >mc2.placed
    [ "$(wc -l <mc2.placed)" = "$(awk '/ tasks under / {print $6}' out.txt)" ] ||
        fail "mc: the rerun has another number of tasks"
    "$LOOKUP" mc.map <mc2.placed || fail "the rerun did not place its tasks as mc.map says"
    # The mapping names its workers; a run with another number warns (and runs).
    grep -q "^workers 2 " mc.map || fail "mc.map does not say it is for 2 workers"
    "$MC" -w 1 --inputs 2 --paths 200 --batch 100 --map mc.map >/dev/null 2>mc3.err &&
        fail "mc -w 1 ran a mapping that places tasks on worker 1"
    LPEL_OVERSUBSCRIBE=1 "$MC" -w 3 --inputs 2 --paths 200 --batch 100 --map mc.map >/dev/null 2>mc3.err ||
        fail "mc -w 3 with a 2-worker mapping: $(cat mc3.err)"
    grep -q "^mc: warning: mc.map:[0-9]*: the mapping is for 2 workers, this run has 3; give -w 2\$" mc3.err ||
        fail "mc -w 3 with a 2-worker mapping: no warning: $(cat mc3.err)"
    # one worker: nothing to choose
    # shellcheck disable=SC2086
    "$MC" -w 1 --inputs 2 --paths 200 --batch 100 -m A --mon-dir mc1w >/dev/null || fail "mc -w 1"
    expect 0 "$SNETMON" advise mc1w -o mc1w.map
    grep -q "the run has one worker" out.txt || fail "one worker: not said"
    [ ! -e mc1w.map ] || fail "one worker: a mapping was written"
fi
echo "advise CLI: all checks passed"
