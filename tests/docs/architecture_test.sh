#!/bin/sh
# architecture_test.sh ARCHITECTURE.md DEPS - the module table of
# docs/ARCHITECTURE.md against the build: DEPS is what
# cmake/Architecture.cmake wrote at configure time ("target: dep dep ..."
# for every library and main program); the table's "target" and "links"
# columns must say the same, row for row, no target missing or extra.
set -u
doc="$1" deps="$2"
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT

# The rows of the table under "## Modules": | `t` | dir | `a` `b` | ...
awk '
    /^## Modules/ { in_section = 1; next }
    /^## / { in_section = 0 }
    in_section && /^\| `/ {
        split($0, col, "|")
        target = col[2]; links = col[4]
        gsub(/[` ]/, "", target)
        gsub(/—/, "", links)
        n = split(links, l, "`")
        out = ""
        for (i = 1; i <= n; i++) {
            gsub(/ /, "", l[i])
            if (l[i] != "") out = out " " l[i]
        }
        print target ":" out
    }' "$doc" | sort > "$work/doc"
sort "$deps" | sed 's/ *$//' > "$work/build"
[ -s "$work/doc" ] || { echo "FAIL: $doc has no module table under '## Modules'"; exit 1; }
if ! diff "$work/doc" "$work/build" > "$work/diff"; then
    echo "FAIL: the module table of $doc (<) differs from the build's links (>):"
    grep '^[<>]' "$work/diff"
    exit 1
fi
echo "ok: $(wc -l < "$work/doc") modules, links as the build has them"
