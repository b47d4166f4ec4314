# boosted.sh - sourced by the scripts that time runs (scripts/main-job.sh,
# bench/paper/run.sh): `boosted CMD ARGS...` runs CMD at high priority, so
# that other tenants of a shared machine disturb the measurement less.
#
# Why more than nice: with sched_autogroup (the Linux default on desktops
# and on this VM) the scheduler first shares the CPU between sessions, and a
# nice value counts only inside its own session, so `nice -n -20` alone
# changes nothing against other sessions' work. CMD therefore gets a session
# of its own (setsid), whose group is given the niceness too. Only root may
# raise priority; otherwise, or with BOOST=0, CMD runs plainly.
# BOOST_NICE (default -20) is the niceness used.

boost_on() {
    [ "${BOOST:-1}" != 0 ] && [ "$(id -u)" = 0 ] && command -v setsid >/dev/null 2>&1
}

boosted() {
    if boost_on; then
        setsid --wait sh -c 'echo "$0" > /proc/self/autogroup 2>/dev/null; exec nice -n "$0" "$@"' \
            "${BOOST_NICE:--20}" "$@"
    else
        "$@"
    fi
}

# One line for the output: how the timed runs were prioritised.
boost_note() {
    if boost_on; then
        echo "timed runs in a session of their own at niceness ${BOOST_NICE:--20} (scripts/boosted.sh)"
    else
        echo "timed runs at normal priority"
    fi
}
