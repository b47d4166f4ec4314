/*
 * instantiate.c - turning a network description into tasks and streams.
 *
 * Every entity constructor takes its input stream and returns its output
 * stream, so serial composition is "instantiate A on the input, B on A's
 * output". The place (snet_place) carries the net path prefix that names
 * the tasks (S<i>: for serial positions, P<i>: for branches, ...) and the
 * worker hint set by a static placement @N.
 *
 * Stream ends: the stream an entity returns is written only by the task
 * created for it, and the input it is given is read only by its task, so
 * every end has exactly one task, as LPEL requires.
 */
#include "snet_internal.h"

#include <stdlib.h>
#include <string.h>

lpel_stream *snet_new_stream(snet_run *run)
{
    lpel_stream *s = lpel_stream_create(run->lpel, run->stream_capacity);
    if (!s)
        snet_run_fail(run, "cannot create a stream (out of memory)");
    return s;
}

char *snet_path_join(const char *prefix, const char *suffix)
{
    size_t a = strlen(prefix), b = strlen(suffix);
    char *p = malloc(a + b + 1);
    if (p) {
        memcpy(p, prefix, a);
        memcpy(p + a, suffix, b + 1);
    }
    return p;
}

/* Every S-Net task runs through this, so that it leaves no spare record
 * cached on its worker (record.c) when it ends. */
typedef struct task_start {
    lpel_task_fn fn;
    void *arg;
    snet_run *run;
} task_start;

static void task_main(void *arg)
{
    task_start start = *(task_start *)arg;
    free(arg);
    snet_record_pool_task_begin(&start.run->records);
    start.fn(start.arg);
    snet_record_pool_task_end();
}

uint64_t snet_spawn(const snet_place *at, const char *path, lpel_task_fn fn, void *arg)
{
    int worker = at->worker;
    if (at->run->mapping) { /* a mapping file decides before any other placement */
        int mapped = snet_mapping_lookup(at->run->mapping, path);
        if (mapped >= 0)
            worker = mapped;
    }
    lpel_task_attr attr = {.name = path, .stack_size = 0, .worker = worker};
    task_start *start = malloc(sizeof *start);
    if (!start) {
        snet_run_fail(at->run, "cannot create task '%s': out of memory", path);
        return 0;
    }
    *start = (task_start){fn, arg, at->run};
    int64_t id = lpel_task_create(at->run->lpel, &attr, task_main, start);
    if (id <= 0) {
        free(start);
        snet_run_fail(at->run, "cannot create task '%s': %s", path, lpel_strerror((int)id));
        return 0;
    }
    return (uint64_t)id;
}

static lpel_stream *serial_instantiate(const snet_net *n, lpel_stream *in, const snet_place *at)
{
    lpel_stream *s = in;
    for (size_t i = 0; i < n->nchildren && s; i++) {
        char part[32];
        snprintf(part, sizeof part, "S%zu:", i + 1);
        char *prefix = snet_path_join(at->prefix, part);
        if (!prefix) {
            snet_run_fail(at->run, "out of memory");
            return NULL;
        }
        snet_place child = {at->run, prefix, at->worker};
        s = snet_instantiate(n->children[i], s, &child);
        free(prefix);
    }
    return s;
}

lpel_stream *snet_instantiate(const snet_net *n, lpel_stream *in, const snet_place *at)
{
    switch (n->kind) {
    case SNET_NODE_BOX: return snet_box_instantiate(n, in, at);
    case SNET_NODE_FILTER: return snet_filter_instantiate(n, in, at);
    case SNET_NODE_SERIAL: return serial_instantiate(n, in, at);
    case SNET_NODE_PARALLEL: return snet_parallel_instantiate(n, in, at);
    case SNET_NODE_STAR: return snet_star_instantiate(n, in, at);
    case SNET_NODE_SPLIT: return snet_split_instantiate(n, in, at);
    case SNET_NODE_SYNC: return snet_sync_instantiate(n, in, at);
    case SNET_NODE_FEEDBACK: return snet_feedback_instantiate(n, in, at);
    case SNET_NODE_AT: {
        if (n->at_rank) /* node level: another rank, or here as it is */
            return at->run->dist ? snet_dist_at_rank(n, in, at)
                                 : snet_instantiate(n->children[0], in, at);
        snet_place placed = {at->run, at->prefix, n->worker};
        return snet_instantiate(n->children[0], in, &placed);
    }
    }
    snet_run_fail(at->run, "unknown network node");
    return NULL;
}
