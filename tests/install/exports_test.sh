#!/bin/sh
# exports_test.sh CMAKE BUILD_DIR WORK GCC - the exported symbols are the
# API: installs the build into a fresh prefix, and for each installed shared
# library compares the functions it exports (nm -D --defined-only) with the
# functions its installed headers declare (gcc -aux-info lists them, with
# the header each comes from). Any difference fails: an internal function
# that leaks out, or a declared function the library does not provide.
# Every installed shared library and header must appear in the table below,
# so a new one fails here until it is given its place.
set -u
cmake="$1" build="$2" work="$3" gcc="$4"
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work" || exit 1
prefix="$work/prefix"
"$cmake" --install "$build" --prefix "$prefix" > "$work/install.log" 2>&1 ||
    { cat "$work/install.log"; fail "cmake --install exited $?"; }
libdir=$(dirname "$(find "$prefix" -name liblpel.so | head -1)")
inc="$prefix/include"

# library: its installed headers (relative to include/)
table='liblpel.so: lpel/lpel.h
liblpel-mon.so: lpel/mon.h
libsnet.so: snet/snet.h snet/snet_boxlib.h
libsnetmon-reader.so: snetmon/mon_reader.h snetmon/mon_msg_id.h'
# Headers whose functions an installed program provides to the libraries it
# loads (box sources written for the original runtime link nothing: snetrun
# gives them C4SNet). Each declared function must be exported by the program.
programs='snetrun: c4snet/C4SNet.h c4snet/memfun.h c4snet/bool.h'

for so in "$libdir"/*.so; do
    echo "$table" | grep -q "^$(basename "$so"):" || fail "$(basename "$so"): not in exports_test.sh's table"
done
(cd "$inc" && find . -name '*.h' | sed 's|^\./||') | while read -r h; do
    printf '%s\n%s\n' "$table" "$programs" | grep -q " $h\( \|$\)" ||
        { echo "FAIL: $h: not in exports_test.sh's table"; exit 1; }
done || exit 1

# The non-static functions a header declares itself (not those of the
# headers it includes), one name a line, sorted: the last word before the
# first " (" of an -aux-info line (a parameter may be a function pointer,
# "void (*)(void *)", whose "(" comes later).
declared() {
    printf '#include "%s"\n' "$inc/$1" > "$work/decl.c"
    "$gcc" -D_GNU_SOURCE -fsyntax-only -aux-info "$work/aux.txt" -I"$inc/lpel" -I"$inc/snet" \
        -I"$inc/snetmon" -I"$inc/c4snet" "$work/decl.c" || fail "$1 does not compile on its own"
    grep -F "/* $inc/$1:" "$work/aux.txt" | grep -v ' static ' |
        sed 's/ (.*$//; s/^.*[ *]//'
}

status=0
echo "$table" | while IFS=: read -r lib headers; do
    for h in $headers; do declared "$h"; done | sort -u > "$work/$lib.declared"
    # Exported: defined, global, not the toolchain's own (_init, __asan_*, ...).
    nm -D --defined-only "$libdir/$lib" | awk '$2 != "U" && $2 != "w" { print $2, $3 }' |
        grep -v ' _init$\| _fini$\| __' > "$work/$lib.nm"
    grep -v '^[TWi] ' "$work/$lib.nm" > "$work/$lib.data"
    if [ -s "$work/$lib.data" ]; then
        echo "FAIL: $lib exports data, not functions:"; cat "$work/$lib.data"; exit 1
    fi
    awk '{ print $2 }' "$work/$lib.nm" | sort -u > "$work/$lib.exported"
    n=$(wc -l < "$work/$lib.exported")
    [ "$n" -gt 0 ] || { echo "FAIL: $lib exports nothing"; exit 1; }
    if ! diff "$work/$lib.declared" "$work/$lib.exported" > "$work/$lib.diff"; then
        echo "FAIL: $lib: exported functions (>) and functions its headers declare (<) differ:"
        grep '^[<>]' "$work/$lib.diff"
        exit 1
    fi
    echo "ok: $lib exports the $n functions its headers declare"
done || status=1

echo "$programs" | while IFS=: read -r prog headers; do
    for h in $headers; do declared "$h"; done | sort -u > "$work/$prog.declared"
    nm -D --defined-only "$prefix/bin/$prog" | awk '$2 == "T" || $2 == "W" { print $3 }' |
        sort -u > "$work/$prog.exported"
    missing=$(comm -23 "$work/$prog.declared" "$work/$prog.exported")
    [ -z "$missing" ] || { echo "FAIL: $prog does not export:" $missing; exit 1; }
    echo "ok: $prog exports the $(wc -l < "$work/$prog.declared") functions of $headers"
done || status=1
exit $status
