#!/usr/bin/env bash
# Fuzz one target for as long as you like (the `fuzz` CTest label only runs
# each for FUZZ_SECONDS). Builds build/fuzz (clang, -DFUZZ=ON) if needed.
#   scripts/fuzz.sh TARGET SECONDS [libFuzzer options...]
#   scripts/fuzz.sh --list
# e.g. scripts/fuzz.sh trace 3600 -jobs=2 -workers=2
# New interesting inputs collect in build/fuzz/tests/fuzz/work/TARGET (kept
# between runs); a crash is saved in build/fuzz/tests/fuzz/artifacts/TARGET/.
# tests/fuzz/README.md says how to turn a crash into a regression input.
set -euo pipefail
cd "$(dirname "$0")/.."

build=build/fuzz
targets() { sed -n 's/^snet_add_fuzz_target(\([a-z_0-9]*\) .*/\1/p' tests/fuzz/CMakeLists.txt; }

if [ "${1:-}" = --list ]; then
    targets
    exit 0
fi
if [ $# -lt 2 ] || ! [[ "$2" =~ ^[0-9]+$ ]]; then
    echo "usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer options...]   (targets: $(targets | tr '\n' ' '))" >&2
    exit 2
fi
target=$1 seconds=$2
shift 2
if ! targets | grep -qx "$target"; then
    echo "fuzz.sh: unknown target '$target' (targets: $(targets | tr '\n' ' '))" >&2
    exit 2
fi

bash scripts/deps.sh
CC=clang cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWERROR=ON -DFUZZ=ON >/dev/null
cmake --build "$build" -j "$(nproc)" --target "fuzz-$target" >/dev/null

src=tests/fuzz
out=$build/tests/fuzz
mkdir -p "$out/work/$target" "$out/artifacts/$target"
args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
      -artifact_prefix="$out/artifacts/$target/")
[ -f "$src/dict/$target.dict" ] && args+=(-dict="$src/dict/$target.dict")
dirs=("$out/work/$target" "$src/corpus/$target")
[ -d "$src/regressions/$target" ] && dirs+=("$src/regressions/$target")

echo "fuzz.sh: fuzzing $target for $seconds s (corpus $out/work/$target)" >&2
rc=0
"$out/fuzz-$target" "${args[@]}" "$@" "${dirs[@]}" || rc=$?
if [ $rc -ne 0 ]; then
    echo "fuzz.sh: $target found a problem (exit $rc); inputs in $out/artifacts/$target/" >&2
fi
exit $rc
