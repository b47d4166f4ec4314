#!/usr/bin/env bash
# Build every variant and run every test: this is the README's test command
# and exactly what CI (.ci/run) runs.
#   build/release   -Werror, hooks built in: all tests
#   build/asan      AddressSanitizer + UndefinedBehaviorSanitizer: all tests
#   build/tsan      ThreadSanitizer: the runtime's tests (label 'runtime')
#   build/baseline  hooks compiled out, ucontext switch: the runtime's tests
# Usage: scripts/test.sh [variant...]   (default: all four)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh

jobs=$(nproc)
variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(release asan tsan baseline)

run_variant() {
    local name=$1; shift
    local label=$1; shift
    echo "=== $name: configure and build"
    cmake -S . -B "build/$name" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWERROR=ON "$@" >/dev/null
    cmake --build "build/$name" -j "$jobs" >/dev/null
    echo "=== $name: test${label:+ (label $label)}"
    (cd "build/$name" && ctest --output-on-failure -j "$jobs" ${label:+-L "$label"})
}

for v in "${variants[@]}"; do
    case "$v" in
        release)  run_variant release "" ;;
        asan)     run_variant asan "" -DSANITIZE=address,undefined ;;
        tsan)     run_variant tsan runtime -DSANITIZE=thread ;;
        baseline) run_variant baseline runtime -DLPEL_HOOKS=OFF -DLPEL_CONTEXT=ucontext ;;
        *) echo "test.sh: unknown variant '$v' (expected release, asan, tsan, baseline)" >&2; exit 2 ;;
    esac
done
echo "all variants passed: ${variants[*]}"
