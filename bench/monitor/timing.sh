# timing.sh - shell helpers the monitor benchmarks share (sourced, not run).
#
# timed FILE CMD ARGS...  runs CMD once (stdout to /dev/null) and appends
#                         "WALL_S CPU_S" to FILE: the wall time, and the user
#                         + system time of the command (from the shell's
#                         `times`, taken in this shell, not in a subshell)
# median                  the median of the numbers on stdin
# column N FILE           the median of column N of FILE
# pct NEW BASE            NEW relative to BASE, "+1.23 %"
# factor BASE NEW         BASE / NEW, "12.3x"
#
# Why CPU time besides wall time: the development machine is shared, and a
# run's wall time swings by tens of percent with the other tenants' load
# while the CPU time the run itself used moves much less. Both are printed.
# Needs $work (a scratch directory) to be set.

timed() {
    _file=$1
    shift
    _t0=$(date +%s%N)
    times >"$work/.times0"
    "$@" >/dev/null
    times >"$work/.times1"
    _t1=$(date +%s%N)
    echo "$_t0 $_t1 $(_times_s "$work/.times0") $(_times_s "$work/.times1")" |
        awk '{printf "%.6f %.6f\n", ($2 - $1) / 1e9, $4 - $3}' >>"$_file"
}

# The children's user + system seconds in the output of `times` in FILE (its
# second line: "XmY.YYYs XmY.YYYs").
_times_s() { awk 'NR == 2 {gsub(/m/, " "); gsub(/s/, ""); print $1 * 60 + $2 + $3 * 60 + $4}' "$1"; }

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
column() { awk -v c="$1" '{print $c}' "$2" | median; }
pct() { echo "$1 $2" | awk '{printf "%+.2f %%", ($1 / $2 - 1) * 100}'; }
factor() { echo "$1 $2" | awk '{printf "%.1fx", $1 / $2}'; }
