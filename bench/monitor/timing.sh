# timing.sh - bash helpers the monitor benchmarks share (sourced, not run).
#
# timed FILE CMD ARGS...  runs CMD once (stdout to /dev/null, stderr to
#                         $work/.stderr) and appends "WALL_S CPU_S" to FILE:
#                         the wall time, and the user + system time of the
#                         command (getrusage, ms precision)
# median                  the median of the numbers on stdin
# column N FILE           the median of column N of FILE
# pct NEW BASE            NEW relative to BASE, "+1.23 %"
# factor BASE NEW         BASE / NEW, "12.3x"
# ring_ir_per_hop BENCH [ARGS...]
#                         callgrind instructions (Ir) per hop of BENCH's
#                         ring (lpel-bench, 100 tasks): the difference of
#                         250 and 50 rounds over their 20000 hops, so start
#                         and exit cancel out; exact whatever the load. A
#                         trace goes to --mon-dir "$work/ir" (emptied before
#                         each run; the 250 rounds' stays)
#
# Why CPU time besides wall time: the development machine is shared, and a
# run's wall time swings by tens of percent with the other tenants' load
# while the CPU time the run itself used moves much less. Both are printed.
# Needs $work (a scratch directory) to be set.

timed() {
    local file=$1 t
    shift
    # bash's time keyword: wall, user and system time of the command, from
    # getrusage (ms precision; `times` would have the 10-ms clock tick).
    t=$( { TIMEFORMAT='%3R %3U %3S'; time "$@" >/dev/null 2>"$work/.stderr"; } 2>&1 )
    echo "$t" | awk '{printf "%.3f %.3f\n", $1, $2 + $3}' >>"$file"
}

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
column() { awk -v c="$1" '{print $c}' "$2" | median; }
pct() { echo "$1 $2" | awk '{printf "%+.2f %%", ($1 / $2 - 1) * 100}'; }
factor() { echo "$1 $2" | awk '{printf "%.1fx", $1 / $2}'; }

ring_ir() { # ROUNDS BENCH [ARGS...]: the Ir of one run
    local r=$1 b=$2
    shift 2
    rm -rf "$work/ir"
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$b" ring --ring-size 100 \
        --rounds "$r" --no-baseline "$@" 2>&1 >/dev/null | awk '/Collected/ {print $4; exit}'
}
ring_ir_per_hop() {
    local b=$1 small big
    shift
    small=$(ring_ir 50 "$b" "$@")
    big=$(ring_ir 250 "$b" "$@") # last: its trace stays in $work/ir
    echo "$big $small" | awk '{printf "%.1f\n", ($1 - $2) / 20000}'
}
