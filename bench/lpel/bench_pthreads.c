/*
 * bench_pthreads.c - the baselines of lpel-bench: the same three programs
 * (ctx, ring, pipe) and task creation written with one kernel thread per
 * task and mutex/condition-variable hand-offs, as the original LPEL's
 * comp_pthreads tests did. Each returns the elapsed nanoseconds of the
 * measured part.
 */
#include "bench.h"

#include <pthread.h>
#include <stdlib.h>

/* ---- a bounded buffer between two threads -------------------------------- */

typedef struct pt_buffer {
    pthread_mutex_t lock;
    pthread_cond_t not_empty, not_full;
    long *slots;
    size_t capacity, head, count;
} pt_buffer;

static void buffer_init(pt_buffer *b, size_t capacity)
{
    pthread_mutex_init(&b->lock, NULL);
    pthread_cond_init(&b->not_empty, NULL);
    pthread_cond_init(&b->not_full, NULL);
    b->slots = calloc(capacity, sizeof *b->slots);
    b->capacity = capacity;
    b->head = b->count = 0;
}

static void buffer_free(pt_buffer *b)
{
    pthread_mutex_destroy(&b->lock);
    pthread_cond_destroy(&b->not_empty);
    pthread_cond_destroy(&b->not_full);
    free(b->slots);
}

static void buffer_put(pt_buffer *b, long v)
{
    pthread_mutex_lock(&b->lock);
    while (b->count == b->capacity)
        pthread_cond_wait(&b->not_full, &b->lock);
    b->slots[(b->head + b->count) % b->capacity] = v;
    b->count++;
    pthread_cond_signal(&b->not_empty);
    pthread_mutex_unlock(&b->lock);
}

static long buffer_get(pt_buffer *b)
{
    pthread_mutex_lock(&b->lock);
    while (b->count == 0)
        pthread_cond_wait(&b->not_empty, &b->lock);
    long v = b->slots[b->head];
    b->head = (b->head + 1) % b->capacity;
    b->count--;
    pthread_cond_signal(&b->not_full);
    pthread_mutex_unlock(&b->lock);
    return v;
}

/* ---- ctx: two threads taking turns --------------------------------------- */

typedef struct pt_turns {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int turn;
    long switches;
} pt_turns;

typedef struct pt_turn_arg {
    pt_turns *turns;
    int me;
} pt_turn_arg;

static void *turn_taker(void *arg)
{
    pt_turn_arg *a = arg;
    pt_turns *t = a->turns;
    for (long i = 0; i < t->switches / 2; i++) {
        pthread_mutex_lock(&t->lock);
        while (t->turn != a->me)
            pthread_cond_wait(&t->changed, &t->lock);
        t->turn = 1 - a->me;
        pthread_cond_signal(&t->changed);
        pthread_mutex_unlock(&t->lock);
    }
    return NULL;
}

double bench_pthreads_ctx(long switches)
{
    pt_turns t = {.turn = 0, .switches = switches};
    pthread_mutex_init(&t.lock, NULL);
    pthread_cond_init(&t.changed, NULL);
    pt_turn_arg args[2] = {{&t, 0}, {&t, 1}};
    pthread_t th[2];
    double start = bench_now_ns();
    for (int i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, turn_taker, &args[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    double elapsed = bench_now_ns() - start;
    pthread_mutex_destroy(&t.lock);
    pthread_cond_destroy(&t.changed);
    return elapsed;
}

/* ---- ring and pipe: threads joined by bounded buffers -------------------- */

typedef struct pt_stage {
    pt_buffer *in, *out;
    long count;     /* items to move */
    bool injects;   /* the ring's first stage starts the token */
} pt_stage;

static void *stage_main(void *arg)
{
    pt_stage *s = arg;
    if (s->injects)
        buffer_put(s->out, 1);
    for (long i = 0; i < s->count; i++) {
        long v = s->in ? buffer_get(s->in) : i;
        if (s->out && !(s->injects && i == s->count - 1))
            buffer_put(s->out, v);
    }
    return NULL;
}

static double run_stages(pt_stage *stages, size_t n)
{
    pthread_t *th = calloc(n, sizeof *th);
    double start = bench_now_ns();
    for (size_t i = 0; i < n; i++)
        pthread_create(&th[i], NULL, stage_main, &stages[i]);
    for (size_t i = 0; i < n; i++)
        pthread_join(th[i], NULL);
    double elapsed = bench_now_ns() - start;
    free(th);
    return elapsed;
}

double bench_pthreads_ring(long tasks, long rounds)
{
    pt_buffer *links = calloc((size_t)tasks, sizeof *links);
    pt_stage *stages = calloc((size_t)tasks, sizeof *stages);
    for (long i = 0; i < tasks; i++)
        buffer_init(&links[i], 1);
    for (long i = 0; i < tasks; i++)
        stages[i] = (pt_stage){.in = &links[i], .out = &links[(i + 1) % tasks],
                               .count = rounds, .injects = i == 0};
    double elapsed = run_stages(stages, (size_t)tasks);
    for (long i = 0; i < tasks; i++)
        buffer_free(&links[i]);
    free(links);
    free(stages);
    return elapsed;
}

double bench_pthreads_pipe(long depth, long messages, size_t capacity)
{
    pt_buffer *links = calloc((size_t)depth - 1, sizeof *links);
    pt_stage *stages = calloc((size_t)depth, sizeof *stages);
    for (long i = 0; i < depth - 1; i++)
        buffer_init(&links[i], capacity);
    for (long i = 0; i < depth; i++)
        stages[i] = (pt_stage){.in = i > 0 ? &links[i - 1] : NULL,
                               .out = i < depth - 1 ? &links[i] : NULL,
                               .count = messages, .injects = false};
    double elapsed = run_stages(stages, (size_t)depth);
    for (long i = 0; i < depth - 1; i++)
        buffer_free(&links[i]);
    free(links);
    free(stages);
    return elapsed;
}

static void *empty_thread(void *arg) { return arg; }

double bench_pthreads_create(long count)
{
    double start = bench_now_ns();
    for (long i = 0; i < count; i++) {
        pthread_t th;
        pthread_create(&th, NULL, empty_thread, NULL);
        pthread_join(th, NULL);
    }
    return bench_now_ns() - start;
}
