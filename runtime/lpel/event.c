/*
 * event.c - events: a flag that a task waits for and any thread raises, and
 * the two calls an outside party needs to judge a run that waits for it
 * (is it quiescent? then stop it as deadlocked).
 *
 * Why a mutex per event rather than the lock-free handshake of streams: the
 * raiser is typically a thread outside LPEL (an MPI progress thread) that
 * holds a pointer to the waiting task only while the lock is held, so the
 * task cannot end and be freed under it. Events are raised once per batch
 * of records, not per record, so the lock costs nothing measurable.
 *
 * Exactly one wake-up per block, as for streams: the waiter sets its
 * wake_token before it blocks and the raiser takes it with an exchange.
 * The token can also be taken by a stale stream waker (see stream.c); the
 * wait loop re-checks the flag, so such a wake-up is only spurious.
 */
#include "lpel_internal.h"

#include <stdlib.h>
#include <string.h>

struct lpel_event {
    pthread_mutex_t lock;
    bool raised;
    lpel_task *waiter; /* blocked in lpel_event_wait, or NULL */
    char *what;
};

lpel_event *lpel_event_create(const char *what)
{
    lpel_event *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->what = strdup(what ? what : "an event");
    if (!e->what) {
        free(e);
        return NULL;
    }
    pthread_mutex_init(&e->lock, NULL);
    return e;
}

void lpel_event_destroy(lpel_event *e)
{
    if (!e)
        return;
    pthread_mutex_destroy(&e->lock);
    free(e->what);
    free(e);
}

const char *lpel_event_what(const lpel_event *e) { return e->what; }

void lpel_event_wait(lpel_event *e, lpel_block_cause cause)
{
    lpel_task *t = lpel_current_task();
    if (!t)
        lpel_fatal("lpel_event_wait called outside a task");
    lpel_runtime *rt = t->rt;
    for (;;) {
        pthread_mutex_lock(&e->lock);
        if (e->raised) {
            e->raised = false;
            pthread_mutex_unlock(&e->lock);
            return;
        }
        if (e->waiter && e->waiter != t)
            lpel_fatal("event '%s': task '%s' waits while task '%s' already does", e->what,
                       t->name, e->waiter->name);
        e->waiter = t;
        t->block_cause = cause == LPEL_BLOCK_OUTPUT ? LPEL_BLOCK_OUTPUT : LPEL_BLOCK_INPUT;
        t->blocked_on = NULL;
        t->blocked_event = e;
        atomic_store(&t->wake_token, 1);
        atomic_fetch_add(&rt->event_waits, 1);
        pthread_mutex_unlock(&e->lock);
        lpel_task_block_current(t);
        atomic_fetch_sub(&rt->event_waits, 1);
        pthread_mutex_lock(&e->lock);
        if (e->waiter == t)
            e->waiter = NULL; /* a spurious wake-up: we are no longer waiting */
        t->blocked_event = NULL;
        pthread_mutex_unlock(&e->lock);
    }
}

void lpel_event_raise(lpel_event *e)
{
    pthread_mutex_lock(&e->lock);
    e->raised = true;
    lpel_task *t = e->waiter;
    e->waiter = NULL;
    if (t && atomic_exchange(&t->wake_token, 0) == 1)
        lpel_task_wake(t);
    pthread_mutex_unlock(&e->lock);
}

/* ---- judging a run from outside ------------------------------------------------- */

bool lpel_runtime_quiescent(lpel_runtime *rt, long *live_tasks)
{
    pthread_mutex_lock(&rt->idle_lock);
    bool quiet = !atomic_load(&rt->terminate) && lpel_runtime_all_idle(rt);
    if (live_tasks)
        *live_tasks = (long)atomic_load(&rt->live_tasks);
    pthread_mutex_unlock(&rt->idle_lock);
    return quiet;
}

int lpel_runtime_stop_deadlocked(lpel_runtime *rt, FILE *report)
{
    pthread_mutex_lock(&rt->idle_lock);
    bool quiet = !atomic_load(&rt->terminate) && lpel_runtime_all_idle(rt);
    if (quiet) {
        rt->deadlocked = true;
        if (!report)
            report = rt->config.report ? rt->config.report : stderr;
        lpel_deadlock_report(rt, report);
    }
    pthread_mutex_unlock(&rt->idle_lock);
    if (!quiet)
        return LPEL_ESTATE;
    lpel_runtime_terminate(rt);
    return LPEL_OK;
}
