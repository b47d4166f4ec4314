/*
 * mon_crash_internal.h - flushing the trace when the program crashes.
 *
 * An open monitor registers a flush callback; on SIGSEGV, SIGBUS, SIGFPE,
 * SIGABRT, SIGTERM or SIGINT every registered callback runs (it must be async-signal-safe)
 * and then the handler that was installed before ours gets the signal.
 */
#ifndef MON_CRASH_INTERNAL_H
#define MON_CRASH_INTERNAL_H

typedef struct mon_crash_entry {
    void (*flush)(void *arg, int sig); /* async-signal-safe; sig: the signal that ends the process */
    void *arg;
} mon_crash_entry;

/* Register e (which must stay valid until unregistered); the first
 * registration installs the signal handlers. Returns 0, or -1 when every
 * slot is taken (then that monitor is not flushed on a crash). */
int mon_crash_register(mon_crash_entry *e);

/* Remove e; the last one out restores the previous handlers. */
void mon_crash_unregister(mon_crash_entry *e);

#endif /* MON_CRASH_INTERNAL_H */
