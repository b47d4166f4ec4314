#!/usr/bin/env bash
# Build every variant and run every test: this is the README's test command
# and exactly what CI (.ci/run) runs.
#   build/release   -Werror, hooks built in: all tests
#   build/asan      AddressSanitizer + UndefinedBehaviorSanitizer: all tests
#   build/tsan      ThreadSanitizer: the runtime's tests (label 'runtime')
#   build/baseline  hooks compiled out, ucontext switch: the runtime's tests
#   build/user      a user's plain build: `cmake -DCMAKE_BUILD_TYPE=Release`, default
#                   options (-Werror included), this machine's gcc: build only
#   build/clang     the same with CC=clang, warnings as errors: build only
#   build/fuzz      clang, -DFUZZ=ON: each libFuzzer target of tests/fuzz runs for
#                   FUZZ_SECONDS (label 'fuzz'), plus the replays of its inputs
# Usage: scripts/test.sh [variant...]   (default: all seven)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh

jobs=$(nproc)
variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(user clang release asan tsan baseline fuzz)

# Exactly what a user types: no cache variables beyond the build type, so the
# defaults (WERROR=ON, -O3) are what is compiled.
build_only() {
    local name=$1; shift
    echo "=== $name: configure and build (plain Release, default options${CC:+, CC=$CC})"
    rm -rf "build/$name"
    cmake -S . -B "build/$name" -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "build/$name" -j "$jobs" >/dev/null
}

run_variant() {
    local name=$1; shift
    local label=$1; shift
    echo "=== $name: configure and build"
    cmake -S . -B "build/$name" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWERROR=ON "$@" >/dev/null
    # Only what the label's tests run, when there is a target for it.
    cmake --build "build/$name" -j "$jobs" ${target:+--target "$target"} >/dev/null
    echo "=== $name: test${label:+ (label $label)}"
    (cd "build/$name" && ctest --output-on-failure -j "$jobs" ${label:+-L "$label"})
}

for v in "${variants[@]}"; do
    case "$v" in
        user)     CC=gcc build_only user ;;
        clang)    CC=clang build_only clang ;;
        release)  run_variant release "" ;;
        asan)     run_variant asan "" -DSANITIZE=address,undefined ;;
        tsan)     run_variant tsan runtime -DSANITIZE=thread ;;
        baseline) run_variant baseline runtime -DLPEL_HOOKS=OFF -DLPEL_CONTEXT=ucontext ;;
        fuzz)     CC=clang target=fuzz_all run_variant fuzz fuzz -DFUZZ=ON ;;
        *) echo "test.sh: unknown variant '$v' (expected user, clang, release, asan, tsan, baseline, fuzz)" >&2; exit 2 ;;
    esac
done
echo "all variants passed: ${variants[*]}"
