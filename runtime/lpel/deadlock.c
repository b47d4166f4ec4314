/*
 * deadlock.c - the report printed when every live task is blocked.
 *
 * It runs while every worker is counted idle (see worker.c), so no task
 * moves while we read the tasks' states. For each blocked task it names
 * the stream it waits on, whether that stream is empty or full, and the
 * task at the other end: the waiting relation W(A,B) of ARCHITECTURE.md.
 *
 * Then, if the configuration asks for it, the run unwinds: every worker is
 * marked, and every blocked task is woken; the stream operations see the
 * mark and return at once (stream.c), so each task runs to its end.
 */
#include "lpel_internal.h"

/* The live task with this id, or NULL if it has ended (or never bound). */
static lpel_task *find_live_task(lpel_runtime *rt, uint64_t id)
{
    if (id == 0)
        return NULL;
    for (unsigned i = 0; i < rt->num_workers; i++)
        for (lpel_task *t = rt->workers[i].live_tasks; t; t = t->live_next)
            if (t->id == id)
                return t;
    return NULL;
}

static void print_peer(lpel_runtime *rt, FILE *out, uint64_t peer_id, const char *role)
{
    if (peer_id == 0) {
        fprintf(out, "no %s has opened it", role);
        return;
    }
    lpel_task *peer = find_live_task(rt, peer_id);
    if (peer)
        fprintf(out, "its %s is task %llu '%s' (worker %u)", role, (unsigned long long)peer_id,
                peer->name, peer->worker->id);
    else
        fprintf(out, "its %s was task %llu, which has ended", role, (unsigned long long)peer_id);
}

static void print_one_wait(lpel_runtime *rt, FILE *out, lpel_task *t, lpel_stream *s,
                           bool reading)
{
    fprintf(out, "  task %llu '%s' (worker %u) waits to %s stream %llu (%s, %zu/%zu items); ",
            (unsigned long long)t->id, t->name, t->worker->id, reading ? "read" : "write",
            (unsigned long long)lpel_stream_id(s),
            lpel_stream_is_empty_now(s) ? "empty" : "full", lpel_stream_count(s),
            lpel_stream_capacity(s));
    if (reading)
        print_peer(rt, out, lpel_stream_writer_id(s), "writer");
    else
        print_peer(rt, out, lpel_stream_reader_id(s), "reader");
    fputc('\n', out);
}

static void print_task_wait(lpel_runtime *rt, FILE *out, lpel_task *t)
{
    if (t->blocked_event) {
        fprintf(out, "  task %llu '%s' (worker %u) waits for %s\n", (unsigned long long)t->id,
                t->name, t->worker->id, lpel_event_what(t->blocked_event));
        return;
    }
    switch (t->block_cause) {
    case LPEL_BLOCK_INPUT:
        print_one_wait(rt, out, t, t->blocked_on, true);
        break;
    case LPEL_BLOCK_OUTPUT:
        print_one_wait(rt, out, t, t->blocked_on, false);
        break;
    case LPEL_BLOCK_ANY:
        fprintf(out, "  task %llu '%s' (worker %u) polls %zu streams, all empty:\n",
                (unsigned long long)t->id, t->name, t->worker->id, t->poll_count);
        for (size_t i = 0; i < t->poll_count; i++)
            print_one_wait(rt, out, t, t->poll_set[i], true);
        break;
    }
}

void lpel_deadlock_report(lpel_runtime *rt, FILE *out)
{
    fprintf(out, "lpel: deadlock: all %ld live tasks are blocked and no worker can make "
                 "progress. Who waits for whom:\n",
            (long)atomic_load(&rt->live_tasks));
    for (unsigned i = 0; i < rt->num_workers; i++)
        for (lpel_task *t = rt->workers[i].live_tasks; t; t = t->live_next)
            if (t->state == LPEL_TASK_BLOCKED)
                print_task_wait(rt, out, t);
    fflush(out);
#if LPEL_HOOKS_ENABLED
    /* A monitor may keep what led here (a flight recorder's window). */
    if (rt->hooks.deadlock)
        rt->hooks.deadlock(rt->hooks.ctx);
#endif
}

void lpel_deadlock_unwind(lpel_runtime *rt)
{
    for (unsigned i = 0; i < rt->num_workers; i++)
        atomic_store(&rt->workers[i].unwinding, true);
    for (unsigned i = 0; i < rt->num_workers; i++)
        for (lpel_task *t = rt->workers[i].live_tasks; t; t = t->live_next)
            if (t->state == LPEL_TASK_BLOCKED && atomic_exchange(&t->wake_token, 0) == 1)
                lpel_worker_post(t->worker, t, LPEL_MAIL_WAKE);
}
