#!/bin/sh
# install_test.sh CMAKE BUILD_DIR SOURCE_DIR WORK CC - what a new user does
# with an installed LPEL: install the build into a fresh prefix, compile the
# README's example program ("The runtime in a few lines", taken from
# README.md itself so the two cannot drift) with
#     cc example.c $(pkg-config --cflags --libs lpel)
# and run it; the same against the static archive; a C4SNet box library
# built with $(pkg-config --cflags c4snet) and run by the installed
# snetrun; and a CMake project using find_package(LPEL) with the imported
# targets (shared and static).
set -u
cmake="$1" build="$2" src="$3" work="$4" cc="$5"
# CFLAGS: what a sanitizer build's libraries need from the programs too.
cflags="${CFLAGS:-}"
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work" || exit 1
prefix="$work/prefix"

"$cmake" --install "$build" --prefix "$prefix" > "$work/install.log" 2>&1 ||
    { cat "$work/install.log"; fail "cmake --install exited $?"; }

# What has to be there: libraries both ways, headers, programs, man pages,
# completion, pkg-config files and the package.
pcfile=$(find "$prefix" -name lpel.pc | head -1)
[ -n "$pcfile" ] || fail "no lpel.pc installed"
pcdir=$(dirname "$pcfile")
libdir=$(dirname "$pcdir")
for f in "$libdir/liblpel.a" "$libdir/liblpel.so" "$libdir/libsnet.so" "$libdir/libsnet.a" \
         "$libdir/liblpel-mon.so" "$libdir/libsnetmon-reader.so" "$libdir/libsnetmon-reader.a" \
         "$pcdir/snet.pc" "$pcdir/lpel-mon.pc" "$pcdir/snetmon-reader.pc" "$pcdir/c4snet.pc" \
         "$prefix/include/c4snet/C4SNet.h" "$prefix/include/c4snet/memfun.h" \
         "$prefix/include/c4snet/bool.h" \
         "$libdir/cmake/LPEL/LPELConfig.cmake" "$prefix/include/lpel/lpel.h" \
         "$prefix/include/lpel/mon.h" "$prefix/include/snet/snet.h" \
         "$prefix/include/snetmon/mon_reader.h" "$prefix/bin/snetmon" "$prefix/bin/snetrun" \
         "$prefix/bin/snet-mc" "$prefix/share/man/man1/snetmon.1" "$prefix/share/man/man3/lpel.3" \
         "$prefix/share/man/man5/snetmon-trace.5" \
         "$prefix/share/bash-completion/completions/snetmon"; do
    [ -e "$f" ] || fail "not installed: ${f#$prefix/}"
done
# The installed programs run from the prefix.
"$prefix/bin/snetmon" --version | grep -q '^snetmon ' || fail "installed snetmon --version"
# The analysis side needs nothing of the runtime, installed too.
if ldd "$prefix/bin/snetmon" | grep -q 'hwloc\|atomic_ops'; then fail "snetmon links hwloc/atomic_ops"; fi

# The README's example, verbatim.
awk '/^## The runtime in a few lines/ { want = 1 }
     want && /^```c$/ { inside = 1; next }
     inside && /^```$/ { exit }
     inside { print }' "$src/README.md" > "$work/example.c"
grep -q 'lpel_run' "$work/example.c" || fail "no example program found in README.md"

export PKG_CONFIG_PATH="$pcdir"
# shellcheck disable=SC2046 # the flags are meant to split
"$cc" $cflags -o "$work/example" "$work/example.c" $(pkg-config --cflags --libs lpel) \
    > "$work/cc.log" 2>&1 || { cat "$work/cc.log"; fail "the README example does not compile"; }
LD_LIBRARY_PATH="$libdir" "$work/example" || fail "the README example exited $?"
LD_LIBRARY_PATH="$libdir" ldd "$work/example" | grep -q "$libdir/liblpel.so" ||
    fail "the example is not linked to the installed liblpel.so"

# The same against the static archive: the archive by path, and the shared
# libraries it needs (lpel.pc's private requirements); nothing of
# liblpel.so then.
deps="$(pkg-config --libs $(pkg-config --print-requires-private lpel)) -pthread"
# shellcheck disable=SC2046,SC2086
"$cc" $cflags -o "$work/example-static" "$work/example.c" $(pkg-config --cflags lpel) \
    "$libdir/liblpel.a" $deps > "$work/cc-static.log" 2>&1 ||
    { cat "$work/cc-static.log"; fail "the README example does not link statically"; }
"$work/example-static" || fail "the static example exited $?"
if ldd "$work/example-static" | grep -q liblpel; then fail "the static example needs liblpel.so"; fi

# snet.pc and snetmon-reader.pc resolve (Requires included).
pkg-config --exists --print-errors snet snetmon-reader lpel-mon || fail "pkg-config snet etc."

# A C4SNet box library from original-style sources, built with the recipe
# of docs/C4SNET.md against the installed headers only, run by the
# installed snetrun (which provides the C4SNet functions).
c4="$work/c4snet"
mkdir -p "$c4" || exit 1
# shellcheck disable=SC2046 # the flags are meant to split
"$cc" $cflags -shared -fPIC $(pkg-config --cflags c4snet) "$src/tests/c4snet/collatz_boxes.c" \
    -o "$c4/libcollatz.so" > "$c4/cc.log" 2>&1 ||
    { cat "$c4/cc.log"; fail "a C4SNet box library does not build with pkg-config --cflags c4snet"; }
[ -z "$(pkg-config --libs c4snet)" ] || fail "c4snet.pc links something: $(pkg-config --libs c4snet)"
"$prefix/bin/snetrun" "$src/tests/c4snet/collatz.snet" --boxes "$c4/libcollatz.so" \
    -i "$src/tests/c4snet/collatz.xml" > "$c4/out.xml" 2> "$c4/err" ||
    { cat "$c4/err"; fail "the installed snetrun did not run the C4SNet program"; }
for want in '(char[5])s,i,x,:,8' '(char[7])a,&lt;,b,&amp;,c,:,0' '(char[5])z,:,1,1,1'; do
    grep -qF "<field label=\"line\" interface=\"C4SNet\">$want</field>" "$c4/out.xml" ||
        fail "the C4SNet program's output lacks $want"
done

# find_package(LPEL): shared, then static.
for kind in shared static; do
    static=OFF; [ $kind = static ] && static=ON
    b="$work/fp-$kind"
    "$cmake" -S "$src/tests/install/find_package" -B "$b" -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$cflags" -DLPEL_USE_STATIC_LIBS=$static \
        -DEXAMPLE="$work/example.c" \
        > "$b.log" 2>&1 || { cat "$b.log"; fail "find_package($kind): configure"; }
    "$cmake" --build "$b" >> "$b.log" 2>&1 || { cat "$b.log"; fail "find_package($kind): build"; }
    LD_LIBRARY_PATH="$libdir" "$b/example" || fail "find_package($kind): example exited $?"
    LD_LIBRARY_PATH="$libdir" "$b/reader_version" | grep -q "^snetmon-reader ok" ||
        fail "find_package($kind): LPEL::mon_reader"
done
echo "install test: ok ($prefix)"
