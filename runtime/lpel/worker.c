/*
 * worker.c - a worker: one kernel thread that runs its own ready tasks.
 *
 * The loop: take what arrived in the mailbox (new tasks, wake-ups), run the
 * next ready task until it blocks, yields or ends, repeat. With nothing to
 * do, a worker polls its mailbox a bounded number of times and then sleeps
 * on a condition variable; it never spins on an idle core.
 *
 * Sleeping is also where deadlocks are found. A worker going to sleep
 * counts itself idle under the runtime's idle lock. When the count reaches
 * the number of workers, no worker runs a task and every worker that could
 * still receive something is counted idle before draining its mailbox; so
 * if tasks are alive and every mailbox is empty, nothing can ever make
 * progress again: every live task is blocked on a stream.
 */
#include "lpel_internal.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if LPEL_ASAN
#include <sanitizer/asan_interface.h>
#endif
#if LPEL_TSAN
#include <sanitizer/tsan_interface.h>
#endif

_Thread_local lpel_worker *lpel_this_worker;

/* ---- mailbox ------------------------------------------------------------ */

/* Sleeping is a semaphore and a flag. The sleeper sets the flag, then
 * looks at its mailbox (and the terminate flag) and waits on the
 * semaphore only if nothing is there; a poster pushes its mail, then takes
 * the flag (exchange to 0) and, if it was set, posts the semaphore. Both
 * orders are sequentially consistent, so either the sleeper sees the mail
 * or the poster sees the flag. Exactly one poster posts per sleep; a post
 * the sleeper did not need (it saw the mail itself) leaves the semaphore
 * at 1, which costs one spurious turn of the sleep loop later.
 * This replaced a mutex + condition variable: per sleep of a worker the
 * 2-worker S-Net pipeline made ~5.4 futex calls (condition wait, the
 * mutex and the condition's internal lock contended by the signaller,
 * wakes), now 2 (one wait, one wake). */
void lpel_worker_wake(lpel_worker *w)
{
    /* seq_cst (a plain load on x86): ordered after the caller's push or
     * terminate flag, as the sleeper's flag is ordered before its look. */
    if (atomic_load(&w->sleeping) == 0)
        return; /* not even about to sleep: it will see whatever we did */
    if (atomic_exchange(&w->sleeping, 0) == 1)
        sem_post(&w->wakeup);
}

void lpel_worker_post(lpel_worker *w, lpel_task *t, lpel_mail_kind kind)
{
    t->mail_kind = kind;
    lpel_mailbox_push(&w->mailbox, t);
    /* The push was a full barrier, so either we see the owner's flag here
     * or the owner sees the mail when it looks after setting the flag. */
    lpel_worker_wake(w);
}

static void drain_mailbox(lpel_worker *w)
{
    LPEL_HOOK0(w, worker_mail);
    lpel_task *t = lpel_mailbox_take_all(&w->mailbox);
    while (t) {
        lpel_task *next = t->mail_next;
        if (t->mail_kind == LPEL_MAIL_NEW) {
            lpel_task_adopt(w, t);
        } else {
            t->state = LPEL_TASK_READY;
            lpel_worker_ready_push(w, t);
            lpel_task_prefetch_frame(t);
        }
        t = next;
    }
}

/* ---- idling ------------------------------------------------------------- */

bool lpel_runtime_all_idle(lpel_runtime *rt)
{
    if (rt->idle_workers != rt->num_workers)
        return false;
    for (unsigned i = 0; i < rt->num_workers; i++)
        if (!lpel_mailbox_is_empty(&rt->workers[i].mailbox))
            return false;
    return true;
}

/* Count w idle; returns true if w finds a deadlock that ends the run. A
 * task waiting for an event may still be woken from outside (event.c).
 * The first deadlock is reported; if the run then unwinds, it goes on (a
 * second one, which unwinding should never meet, just ends it). */
static bool enter_idle(lpel_worker *w)
{
    lpel_runtime *rt = w->rt;
    bool stop = false;
    pthread_mutex_lock(&rt->idle_lock);
    rt->idle_workers++;
    if (!atomic_load(&rt->terminate) && atomic_load(&rt->live_tasks) > 0 &&
        atomic_load(&rt->event_waits) == 0 && lpel_runtime_all_idle(rt)) {
        stop = true;
        if (!rt->deadlocked) {
            rt->deadlocked = true;
            rt->deadlocked_tasks = atomic_load(&rt->live_tasks);
            lpel_deadlock_report(rt, rt->config.report ? rt->config.report : stderr);
            if (rt->config.unwind_on_deadlock) {
                lpel_deadlock_unwind(rt);
                stop = false;
            }
        }
    }
    pthread_mutex_unlock(&rt->idle_lock);
    return stop;
}

static void leave_idle(lpel_worker *w)
{
    pthread_mutex_lock(&w->rt->idle_lock);
    w->rt->idle_workers--;
    pthread_mutex_unlock(&w->rt->idle_lock);
}

static bool has_mail(lpel_worker *w)
{
    return !lpel_mailbox_is_empty(&w->mailbox) || atomic_load(&w->rt->terminate);
}

static long monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* A look that comes this long after the one before lost the core. */
#define IDLE_POLL_PREEMPTED_NS 50000L
/* Polls in a burst, between two yields of the core. Measured with S-Net
 * across 2 ranks on 2 cores (mpi-bench, docs/BENCHMARKS.md): with 10 us
 * bursts a stream between ranks of 2 workers each ran at 3.5e5 records/s,
 * with 1 us at 5.6e5 (6e5 when the communication thread polled instead of
 * a worker); with a yield after every poll
 * a record's latency with 2 workers a rank was 38 us, with 1 us bursts
 * 14 us (1.1-1.5 us with 1 worker either way). */
#define IDLE_POLL_BURST_NS 1000L

/* One burst of polls (lpel_runtime_set_idle_poll) without giving up the
 * core, until *now passes burst_end: true as soon as the worker has
 * something to look at (mail, or a task a poll may have woken), false
 * when the burst has ended, or with *lost set when the core was lost in
 * it. */
static bool poll_burst(lpel_worker *w, long burst_end, long *now, bool *lost)
{
    lpel_runtime *rt = w->rt;
    for (long last = *now;; last = *now) {
        if (has_mail(w) || rt->idle_poll(rt->idle_poll_arg, false))
            return true;
        *now = monotonic_ns();
        if (*now - last > IDLE_POLL_PREEMPTED_NS) {
            *lost = true;
            return false;
        }
        if (*now >= burst_end)
            return false;
        lpel_cpu_relax();
    }
}

/* The idle poll: true when the worker has something to look at, false when
 * the window has passed or the core was lost and the last look found
 * nothing. Bursts of polls alternate with yields of the core, so that a
 * poller does not hold a core another thread is waiting for; before each
 * yield the poll is told that the worker stops polling (last): the yield
 * may give the core away for a whole time slice, and meanwhile whoever
 * has work for this worker must not count on it looking (S-Net's MPI
 * senders then wake the rank's communication thread instead). */
static bool poll_while_idle(lpel_worker *w)
{
    lpel_runtime *rt = w->rt;
    long start = monotonic_ns(), now = start;
    for (;;) {
        bool lost = false;
        if (poll_burst(w, now + IDLE_POLL_BURST_NS, &now, &lost)) {
            rt->idle_poll(rt->idle_poll_arg, true);
            return true;
        }
        bool found = rt->idle_poll(rt->idle_poll_arg, true) || has_mail(w);
        if (found || lost || now - start > rt->idle_poll_ns)
            return found;
        sched_yield();
        long before = now;
        now = monotonic_ns();
        if (now - before > IDLE_POLL_PREEMPTED_NS)
            return has_mail(w);
    }
}

/* One idle worker of the runtime polls at a time: every poller spins, and
 * on a machine without spare cores each one takes time from the threads
 * that have work (S-Net's MPI transport had one poller a rank, its
 * communication thread, before idle workers polled). */
static bool poll_if_nobody_does(lpel_worker *w, bool *found)
{
    lpel_runtime *rt = w->rt;
    int none = 0;
    if (!rt->idle_poll || !atomic_compare_exchange_strong(&rt->idle_polling, &none, 1))
        return false;
    *found = poll_while_idle(w);
    atomic_store(&rt->idle_polling, 0);
    return true;
}

/* Without the poll, a few looks at the mailbox first: a wake-up that comes
 * now costs the waker no system call, and this worker no sleep. */
static bool mail_soon(lpel_worker *w)
{
    for (unsigned i = 0; i < w->rt->config.idle_spin; i++) {
        if (has_mail(w))
            return true;
        lpel_cpu_relax();
    }
    return false;
}

static void sleep_until_mail(lpel_worker *w)
{
    lpel_runtime *rt = w->rt;
    bool found = false;
    bool polled = poll_if_nobody_does(w, &found);
    if (polled ? found : mail_soon(w)) {
        /* A task the poll woke is ready from now on, after the period
         * before it, as a posted one is (the mailbox's own hook comes
         * when the loop drains it). */
        if (polled)
            LPEL_HOOK0(w, worker_mail);
        return;
    }
    LPEL_HOOK0(w, worker_wait);
    if (enter_idle(w))
        lpel_runtime_terminate(rt);
    for (;;) {
        atomic_store(&w->sleeping, 1); /* seq_cst: ordered before the looks below */
        if (!lpel_mailbox_is_empty(&w->mailbox) || atomic_load(&rt->terminate))
            break;
        while (sem_wait(&w->wakeup) != 0) /* EINTR: wait again */
            ;
    }
    atomic_store_explicit(&w->sleeping, 0, memory_order_relaxed);
    leave_idle(w);
    LPEL_HOOK0(w, worker_resume);
}

/* ---- the loop ----------------------------------------------------------- */

/* A task has switched back to the scheduler: if it ended, free it. A
 * task that yielded has queued itself; a blocked one waits for a wake-up. */
static void after_run(lpel_worker *w)
{
    lpel_task *t = w->current;
    w->current = NULL;
    if (t->state == LPEL_TASK_ZOMBIE)
        lpel_task_destroy(w, t);
}

static void schedule(lpel_worker *w)
{
    lpel_runtime *rt = w->rt;
    for (;;) {
        if (!lpel_mailbox_is_empty(&w->mailbox))
            drain_mailbox(w);
        lpel_task *t = lpel_worker_ready_pop(w);
        if (t) {
            lpel_task_run(w, t);
            after_run(w);
            continue;
        }
        if (atomic_load_explicit(&rt->terminate, memory_order_acquire))
            return;
        sleep_until_mail(w);
    }
}

static void pin_to_core(lpel_worker *w)
{
    lpel_runtime *rt = w->rt;
    if (!rt->config.pin_workers || rt->num_cores == 0)
        return;
    hwloc_obj_t core = hwloc_get_obj_by_type(rt->topology, HWLOC_OBJ_CORE,
                                             w->id % rt->num_cores);
    if (!core)
        core = hwloc_get_obj_by_type(rt->topology, HWLOC_OBJ_PU, w->id % rt->num_cores);
    if (core && hwloc_set_cpubind(rt->topology, core->cpuset, HWLOC_CPUBIND_THREAD) != 0)
        fprintf(stderr, "lpel: warning: could not pin worker %u to a core; running unpinned\n",
                w->id);
}

static void note_scheduler_stack(lpel_worker *w)
{
#if LPEL_ASAN
    pthread_attr_t attr;
    void *addr = NULL;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        pthread_attr_getstack(&attr, &addr, &size);
        pthread_attr_destroy(&attr);
    }
    w->sched_stack_bottom = addr;
    w->sched_stack_size = size;
#endif
#if LPEL_TSAN
    w->tsan_sched_fiber = __tsan_get_current_fiber();
#endif
    (void)w;
}

void *lpel_worker_main(void *arg)
{
    lpel_worker *w = arg;
    lpel_this_worker = w;
    pin_to_core(w);
    note_scheduler_stack(w);
    if (lpel_stack_overflow_guard_start(w) != LPEL_OK)
        fprintf(stderr, "lpel: warning: worker %u has no alternate signal stack; "
                        "stack overflows will not be named\n", w->id);
#if LPEL_HOOKS_ENABLED
    if (w->hooks.worker_start)
        w->hook_ctx = w->hooks.worker_start(w->hooks.ctx, w->id, w->rt->num_workers);
#endif
    schedule(w);
    LPEL_HOOK0(w, worker_end);
    lpel_stack_overflow_guard_stop(w);
    lpel_this_worker = NULL;
    return NULL;
}
