#!/bin/sh
# readme_test.sh SOURCE BUILD WORK [SNET_RTS_DIR] - README.md run top to bottom
# as a new user would, after the main job: every ```sh block but the first
# (the two set-up commands, which are the main job and this test command
# themselves), in order, each exiting 0 within a time bound, each file it
# names as an output (-o, --output, -O, --mon-dir, --render, > FILE) there
# afterwards, and nothing left in the tree that git does not ignore.
#
# Where: a copy of SOURCE's files (git ls-files; what is tracked or not
# ignored) in WORK/repo, made a git repository of its own so that "nothing
# left" is `git status` there, with WORK/repo/build/release a link to BUILD,
# the build under test (the README's blocks use build/release, the main
# job's build). The blocks run one by one with bash -e -o pipefail from
# WORK/repo, as a user types them into a fresh shell.
#
# Substitutions, the only differences from a user's run:
#   - HOME is WORK/home, so the install prefix $HOME/.local and the default
#     experiment repository are the test's own;
#   - as root, `mpirun` is a wrapper that adds --allow-run-as-root (Open MPI
#     refuses root without it; the README says so);
#   - in a sanitizer build, `cc` is a wrapper that adds $CFLAGS (the
#     -fsanitize flags the installed libraries need in programs linking
#     them), and LeakSanitizer is off (leaks are the other tests' matter);
#   - the block that needs a checkout of the original S-Net runtime
#     (snetdev/snet-rts) gets SNET_RTS=SNET_RTS_DIR, and is skipped, saying
#     so, when there is none; a build without MPI skips the mpirun block.
# README_BLOCK_SECONDS bounds each block (default 300).
set -u
src=$1 build=$2 work=$3 rts=${4:-}
limit=${README_BLOCK_SECONDS:-300}
fail() { echo "FAIL: $*"; exit 1; }
readme="$src/README.md"

# The project's rule for the README's first lines: the title, a blank line,
# then the one block of the two set-up commands.
head -6 "$readme" >"${TMPDIR:-/tmp}/readme-head.$$"
awk 'NR == 1 && !/^# / { print "line 1 is not the title"; exit 1 }
     NR == 2 && $0 != "" { print "line 2 is not blank"; exit 1 }
     NR == 3 && $0 != "```sh" { print "line 3 does not open the set-up block"; exit 1 }
     NR == 4 && !/^bash scripts\/main-job\.sh( |$)/ { print "line 4 is not bash scripts/main-job.sh"; exit 1 }
     NR == 5 && !/^bash scripts\/test\.sh( |$)/ { print "line 5 is not bash scripts/test.sh"; exit 1 }
     NR == 6 && $0 != "```" { print "the set-up block has more than the two commands"; exit 1 }' \
    "${TMPDIR:-/tmp}/readme-head.$$" >"${TMPDIR:-/tmp}/readme-head.err.$$"
rc=$?
why=$(cat "${TMPDIR:-/tmp}/readme-head.err.$$")
rm -f "${TMPDIR:-/tmp}/readme-head.$$" "${TMPDIR:-/tmp}/readme-head.err.$$"
[ $rc -eq 0 ] || fail "README.md does not start as it must: $why"

rm -rf "$work" && mkdir -p "$work/repo/build" "$work/home" "$work/bin" "$work/blocks" || exit 1

# The copy of the tree, and its own git repository.
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    (cd "$src" && git ls-files -z --cached --others --exclude-standard |
        xargs -0 sh -c 'for f; do [ -f "$f" ] && printf "%s\n" "$f"; done' sh) >"$work/files"
    tar -C "$src" -cf - -T "$work/files" | tar -C "$work/repo" -xf - || fail "copying the tree"
else
    tar -C "$src" --exclude='./build*' --exclude=./out --exclude=./.git -cf - . |
        tar -C "$work/repo" -xf - || fail "copying the tree"
fi
ln -s "$build" "$work/repo/build/release" || exit 1
(cd "$work/repo" && git init -q && git add -A &&
    git -c user.name=readme -c user.email=readme@localhost commit -qm "the tree" ) ||
    fail "git init in the copy"

# The substitutions.
export HOME="$work/home"
unset SNETMON_DB XDG_DATA_HOME SNET_RTS
real_mpirun=$(command -v mpirun || true)
if [ -n "$real_mpirun" ] && [ "$(id -u)" = 0 ]; then
    printf '#!/bin/sh\nexec "%s" --allow-run-as-root "$@"\n' "$real_mpirun" >"$work/bin/mpirun"
    chmod +x "$work/bin/mpirun"
fi
if [ -n "${CFLAGS:-}" ]; then
    real_cc=$(command -v cc) || fail "no cc"
    printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$real_cc" "$CFLAGS" >"$work/bin/cc"
    chmod +x "$work/bin/cc"
    export ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
fi
export PATH="$work/bin:$PATH"

# The blocks: "LINE" then the block's text, one file each.
awk -v dir="$work/blocks" '
    /^```sh$/ { n++; inside = 1; file = sprintf("%s/%03d", dir, n); print NR + 1 > (file ".line"); next }
    inside && /^```$/ { inside = 0; close(file); next }
    inside { print > file }' "$readme"
n=$(ls "$work/blocks" | grep -c '^[0-9]*$')
[ "$n" -ge 2 ] || fail "README.md has no command blocks besides the set-up commands"

# The outputs a block names: the word after -o, --output, -O, --mon-dir,
# --render or >, in lines with their comments taken off; words holding $
# are left out.
outputs() {
    sed 's/[[:space:]]#.*$//' "$1" | tr -s ' \t' '\n\n' |
        awk 'take && $0 !~ /\$/ { print } { take = ($0 == "-o" || $0 == "--output" || $0 == "-O" ||
                                               $0 == "--mon-dir" || $0 == "--render" || $0 == ">") }'
}

start=$(date +%s)
ran=0
for f in "$work"/blocks/[0-9][0-9][0-9]; do
    b=$(basename "$f")
    [ "$b" = 001 ] && continue # the set-up commands
    at="README.md:$(cat "$f.line")"
    if grep -q 'snet-rts' "$f"; then
        if [ -z "$rts" ] || [ ! -d "$rts/examples" ]; then
            echo "readme: $at skipped: it needs a checkout of the original S-Net runtime" \
                 "(snetdev/snet-rts), and there is none at '${rts:-}' (the test's SNET_RTS_DIR)"
            continue
        fi
        export SNET_RTS="$rts"
    fi
    if grep -q '^mpirun ' "$f" && [ "${SNET_MPI:-ON}" != ON ]; then
        echo "readme: $at skipped: this build has no MPI"
        continue
    fi
    t0=$(date +%s)
    (cd "$work/repo" && timeout -k 10 "$limit" bash -e -o pipefail -c "$(cat "$f")
wait") >"$f.log" 2>&1
    rc=$?
    t1=$(date +%s)
    if [ $rc -ne 0 ]; then
        echo "--- the block at $at:"
        cat "$f"
        echo "--- its output (the end):"
        tail -40 "$f.log"
        [ $rc -eq 124 ] || [ $rc -eq 137 ] && fail "$at: did not finish within $limit s"
        fail "$at: exited $rc"
    fi
    for out in $(outputs "$f"); do
        case $out in /*) p=$out ;; *) p="$work/repo/$out" ;; esac
        [ -e "$p" ] || fail "$at: names $out, which is not there afterwards"
    done
    echo "readme: $at: ok ($((t1 - t0)) s)"
    ran=$((ran + 1))
done

left=$(cd "$work/repo" && git status --porcelain --untracked-files=all)
[ -z "$left" ] || fail "the blocks left files git does not ignore (or changed tracked ones):
$left"
echo "readme: $ran blocks ran in $(($(date +%s) - start)) s; nothing left outside what git ignores"
rm -rf "$work"
