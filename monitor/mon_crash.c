/*
 * mon_crash.c - the crash flush: on a fatal signal (a fault, abort, or
 * SIGTERM/SIGINT from outside), write what every open
 * monitor has recorded, then hand the signal to whoever had it before.
 *
 * Why there is process-wide state here: signal dispositions belong to the
 * process, not to a monitor, so the handler can only find the monitors to
 * flush through a process-wide registry. It is kept minimal: a few slots
 * holding pointers (read by the handler with atomic loads) and the actions
 * we replaced, changed only under a mutex at register/unregister time, never
 * on the monitoring hot path.
 *
 * Chaining: the handler restores the previous action for the signal, then
 * either returns (a fault: the faulting instruction runs again and now
 * reaches the previous handler, e.g. LPEL's stack-overflow reporter on its
 * alternate stack, or the default action) or re-raises it (a signal sent
 * with kill/raise/abort, which would not repeat by itself).
 */
#include "mon_crash_internal.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

#define CRASH_SLOTS 8

/* Faults, abort, and the signals that end a process from outside: kill's
 * default SIGTERM (also what mpirun sends the other ranks when one rank
 * fails) and Ctrl-C. */
static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGABRT, SIGTERM, SIGINT};
#define NSIG_CRASH (sizeof crash_signals / sizeof crash_signals[0])

static _Atomic(mon_crash_entry *) crash_slots[CRASH_SLOTS];
static struct sigaction previous_actions[NSIG_CRASH];
static bool handlers_installed;
static unsigned registered;
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
/* Set by the first crash so that a second fault (in another thread, or in
 * a flush) does not flush again. */
static atomic_flag crash_seen = ATOMIC_FLAG_INIT;

static int signal_index(int sig)
{
    for (unsigned i = 0; i < NSIG_CRASH; i++)
        if (crash_signals[i] == sig)
            return (int)i;
    return -1;
}

static void crash_handler(int sig, siginfo_t *info, void *uctx)
{
    (void)uctx;
    if (!atomic_flag_test_and_set(&crash_seen)) {
        for (unsigned i = 0; i < CRASH_SLOTS; i++) {
            mon_crash_entry *e = atomic_load(&crash_slots[i]);
            if (e)
                e->flush(e->arg, sig);
        }
    }
    int idx = signal_index(sig);
    if (idx >= 0)
        sigaction(sig, &previous_actions[idx], NULL);
    else
        signal(sig, SIG_DFL);
    if (info == NULL || info->si_code <= 0)
        raise(sig); /* sent, not a fault: deliver again once we return */
}

static void install_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = crash_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (unsigned i = 0; i < NSIG_CRASH; i++)
        sigaction(crash_signals[i], &sa, &previous_actions[i]);
    handlers_installed = true;
}

/* Put the previous actions back, but only where ours is still installed:
 * someone who installed a handler after us keeps theirs. */
static void restore_handlers(void)
{
    for (unsigned i = 0; i < NSIG_CRASH; i++) {
        struct sigaction cur;
        if (sigaction(crash_signals[i], NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
            cur.sa_sigaction == crash_handler)
            sigaction(crash_signals[i], &previous_actions[i], NULL);
    }
    handlers_installed = false;
}

int mon_crash_register(mon_crash_entry *e)
{
    int rc = -1;
    pthread_mutex_lock(&registry_lock);
    for (unsigned i = 0; i < CRASH_SLOTS; i++) {
        if (atomic_load(&crash_slots[i]) == NULL) {
            atomic_store(&crash_slots[i], e);
            registered++;
            rc = 0;
            break;
        }
    }
    if (rc == 0 && !handlers_installed)
        install_handlers();
    pthread_mutex_unlock(&registry_lock);
    return rc;
}

void mon_crash_unregister(mon_crash_entry *e)
{
    pthread_mutex_lock(&registry_lock);
    for (unsigned i = 0; i < CRASH_SLOTS; i++) {
        if (atomic_load(&crash_slots[i]) == e) {
            atomic_store(&crash_slots[i], NULL);
            registered--;
        }
    }
    if (registered == 0 && handlers_installed)
        restore_handlers();
    pthread_mutex_unlock(&registry_lock);
}
