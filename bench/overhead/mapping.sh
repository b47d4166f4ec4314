#!/bin/sh
# mapping.sh - the paper's mapping experiment (Figures 5-7) on mc: the
# default placement (star replicas on consecutive workers, the rest round
# robin) against every task on one worker (a mapping file "** 0").
# bench/paper/run.sh does the whole experiment with `snetmon advise`. Prints the median wall time of RUNS runs of each, the speedup,
# and from one traced run of each the per-worker waiting events and waiting
# time (`snetmon metrics`). A benchmark, never a test.
#
# usage: mapping.sh BUILD_DIR [RUNS] [WORKERS]   (env ARGS: mc's options)
set -eu
BUILD=${1:?usage: mapping.sh BUILD_DIR [RUNS] [WORKERS]}
RUNS=${2:-5}
WORKERS=${3:-2}
ARGS=${ARGS:-"--paper"}
MC=$BUILD/apps/mc/mc
SNETMON=$BUILD/tools/snetmon/snetmon
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

now() { date +%s.%N; }
median() { sort -g | awk '{v[NR]=$1} END {if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }
seconds() {
    t0=$(now)
    # shellcheck disable=SC2086
    "$MC" -w "$WORKERS" $ARGS "$@" >/dev/null
    t1=$(now)
    echo "$t1 - $t0" | bc -l
}

echo '** 0' >"$TMP/one.map"
: >"$TMP/rr"; : >"$TMP/one"
i=0
while [ "$i" -lt "$RUNS" ]; do
    seconds >>"$TMP/rr"
    seconds --map "$TMP/one.map" >>"$TMP/one"
    i=$((i + 1))
done
rr=$(median <"$TMP/rr"); one=$(median <"$TMP/one")
printf 'mc %s on %s workers, median of %s runs\n' "$ARGS" "$WORKERS" "$RUNS"
printf '  default mapping      %.3f s\n' "$rr"
printf '  all on worker 0      %.3f s\n' "$one"
printf '  speedup of default over one worker: %.2f\n' "$(echo "$one / $rr" | bc -l)"
for mode in default one; do
    extra=""
    [ "$mode" = one ] && extra="--map $TMP/one.map"
    # shellcheck disable=SC2086
    "$MC" -w "$WORKERS" $ARGS $extra -m A --mon-dir "$TMP/trace-$mode" >/dev/null
    echo "  $mode mapping, per worker (snetmon metrics):"
    "$SNETMON" metrics "$TMP/trace-$mode" | grep '^worker ' | sed 's/^/    /'
done
