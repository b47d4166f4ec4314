/*
 * mon_control_internal.h - the monitor's control channel and service
 * thread: what a running program records can be changed from outside
 * (`snetmon ctl`), a flight recorder's window written on request (`snetmon
 * snap`, SIGUSR1), and every worker's log published each flush period.
 *
 * Why one thread for all three: each is rare work on a timer or a request,
 * and none may run on a worker (a worker's hooks take no locks and make no
 * system calls). The thread waits in poll(2) on the control socket and a
 * wake-up pipe, with the flush period as its timeout.
 *
 * The channel is a UNIX stream socket in the abstract namespace, named from
 * the trace directory's real path (mon_control_name_internal.h), so `snetmon ctl
 * DIR` finds the program writing DIR without a file that could be left
 * behind, and whatever the path's length. Only the program's own user (or
 * root) is answered. The protocol (docs/LOGFORMAT.md section 10): one
 * request line, one answer line starting with "ok" or "error".
 *
 * Workers apply a change themselves at their next dispatch or resume: the
 * hooks compare a generation number (one relaxed load) and, when it moved,
 * fetch the new choice under the lock (mon_control_get) and write a
 * monitor_control event, so the trace says where each log changed.
 */
#ifndef MON_CONTROL_INTERNAL_H
#define MON_CONTROL_INTERNAL_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct mon_control mon_control;

/* What the service thread calls back into the monitor. */
typedef struct mon_control_handlers {
    void *arg;
    /* Every flush period (not called when flush_ms is 0). */
    void (*tick)(void *arg);
    /* Write a snapshot of the flight recorder (why: "request", "signal",
     * "deadlock"); its directory into path. 0, or -1 with err. NULL when
     * the monitor keeps no ring. */
    int (*snapshot)(void *arg, const char *why, char *path, size_t pathlen, char *err,
                    size_t errlen);
    unsigned flush_ms;
} mon_control_handlers;

/* Start the channel for the trace directory dir, recording `flags` (the
 * MON_FLAG_* classes) and --mon-tasks `tasks` (NULL: all; compiled as
 * `regex`, which the control keeps and frees). The thread starts with it.
 * A channel that cannot be opened (no sockets) is a warning, not an error:
 * the run is monitored as asked, just not controllable. 0, or -1 with err
 * (out of memory). */
int mon_control_open(mon_control **out, const char *dir, unsigned flags, const char *tasks,
                     pcre2_code *regex, const mon_control_handlers *h, char *err, size_t errlen);

/* Stop the thread and free everything (the regexes of every generation:
 * no worker runs any more). c may be NULL. */
void mon_control_close(mon_control *c);

/* The generation of the current choice; workers compare it at each
 * dispatch. */
const _Atomic unsigned *mon_control_generation(const mon_control *c);

/* The current choice: its generation, classes, compiled --mon-tasks (NULL:
 * all tasks; valid until mon_control_close) and its pattern ("" for all),
 * copied into pattern (at most len bytes with the NUL). */
void mon_control_get(mon_control *c, unsigned *gen, unsigned *flags, const pcre2_code **regex,
                     char *pattern, size_t len);

/* Change the choice as a control request would (the tests' and the
 * channel's one way in): flags, or keep them with keep_flags; tasks NULL
 * for all tasks, or a pattern, or keep it with keep_tasks. 0, or -1 with
 * err (a pattern pcre2 rejects; the choice is then unchanged). */
int mon_control_set(mon_control *c, bool keep_flags, unsigned flags, bool keep_tasks,
                    const char *tasks, char *err, size_t errlen);

/* Ask the service thread for a snapshot (why as in the handler). Async-
 * signal-safe: a flag and a byte into a pipe. */
void mon_control_request_snapshot(mon_control *c, const char *why);

#endif /* MON_CONTROL_INTERNAL_H */
