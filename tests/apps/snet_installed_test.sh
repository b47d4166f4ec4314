#!/bin/sh
# snet_installed_test.sh CMAKE BUILD_DIR NET.snet OPTIONS... - snetrun finds a
# box library the metadata names in the installed library path: the build
# is installed into a fresh prefix (cmake --install), and PREFIX/bin/snetrun
# runs NET.snet with OPTIONS, loading the library from
# PREFIX/lib/snet-boxes (the dynamic linker's log says which file), not
# from the build tree.
set -u
cmake=$1 build=$2 snet=$3
shift 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

"$cmake" --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log"; echo "FAIL: cmake --install exited $?"; exit 1; }
app=$(basename "$snet" .snet)
lib="$tmp/prefix/lib/snet-boxes/lib${app}_boxes.so"
[ -f "$lib" ] || { echo "FAIL: $lib was not installed"; exit 1; }
unset SNET_BOX_PATH
LD_DEBUG=files "$tmp/prefix/bin/snetrun" "$snet" "$@" > "$tmp/out" 2> "$tmp/err"
status=$?
cat "$tmp/out"
[ $status -eq 0 ] || { fail "installed snetrun exited $status"; grep -v '^ *[0-9]*:' "$tmp/err"; }
grep -q "file=$tmp/prefix/bin/../lib/snet-boxes/lib${app}_boxes.so" "$tmp/err" ||
    { fail "lib${app}_boxes.so was not loaded from the installed path:";
      grep "_boxes.so" "$tmp/err" | head -3; }
exit $failed
