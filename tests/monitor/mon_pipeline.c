/*
 * mon_pipeline.c - a small monitored program for the command-line tests
 * and the overhead benchmark: producer -> relay -> consumer over bounded
 * streams, the relay recording a message trace for each item.
 *
 *     mon_pipeline [-m FLAGS] [--mon-dir DIR] [--mon-tasks RE] [--mon-flush MS]
 *                  [--pace US] [--hold S] [ITEMS [WORKERS]]
 *
 * --pace US: the producer sleeps US microseconds before each item, so a run
 * lasts as long as a live-view test needs. --hold S: once the consumer has
 * every item, it prints the number of events recorded so far (exact with
 * one worker: nothing else runs) and keeps its worker busy for S seconds
 * before the run ends, for a test that kills the process in that time.
 *
 * It parses the monitoring options with mon_parse_args exactly like every
 * program compiled against the runtime can, and the rest itself.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lpel.h"
#include "mon.h"

typedef struct stage {
    lpel_stream *in, *out;
    unsigned long items;
    unsigned long pace_us;
    unsigned long hold_s;
    mon *m;
} stage;

static void sleep_us(unsigned long us)
{
    struct timespec ts = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static void producer(void *arg)
{
    stage *s = arg;
    for (uintptr_t i = 1; i <= s->items; i++) {
        if (s->pace_us)
            sleep_us(s->pace_us);
        lpel_stream_write(s->out, (void *)i);
    }
    lpel_stream_close(s->out, LPEL_STREAM_WRITE);
}

static void relay(void *arg)
{
    stage *s = arg;
    lpel_task *self = lpel_task_self();
    void *item;
    while ((item = lpel_stream_read(s->in)) != NULL) {
        uint64_t seq = (uint64_t)(uintptr_t)item;
        mon_component_begin(self);
        mon_message_read(self, mon_msg_id_make(0, seq));
        mon_message_written(self, mon_msg_id_make(1, seq));
        mon_component_end(self);
        lpel_stream_write(s->out, item);
    }
    lpel_stream_close(s->in, LPEL_STREAM_READ);
    lpel_stream_close(s->out, LPEL_STREAM_WRITE);
}

static void consumer(void *arg)
{
    stage *s = arg;
    while (lpel_stream_read(s->in) != NULL)
        ;
    if (s->hold_s) {
        printf("recorded %llu\n", (unsigned long long)mon_events_recorded(s->m));
        fflush(stdout);
        sleep_us(s->hold_s * 1000000);
    }
    lpel_stream_close(s->in, LPEL_STREAM_READ);
}

/* Take "--NAME N" out of argv (0 if absent). */
static unsigned long take_number(int *argc, char **argv, const char *name)
{
    for (int i = 1; i + 1 < *argc; i++) {
        if (strcmp(argv[i], name) != 0)
            continue;
        unsigned long v = strtoul(argv[i + 1], NULL, 10);
        for (int j = i; j + 2 <= *argc; j++)
            argv[j] = argv[j + 2];
        *argc -= 2;
        return v;
    }
    return 0;
}

int main(int argc, char **argv)
{
    mon_options mo;
    char err[512];
    if (mon_parse_args(&argc, argv, &mo, err, sizeof err) != 0) {
        fprintf(stderr, "mon_pipeline: %s\n", err);
        return 2;
    }
    unsigned long pace = take_number(&argc, argv, "--pace");
    unsigned long hold = take_number(&argc, argv, "--hold");
    unsigned long items = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
    unsigned workers = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 2;
    mon *m;
    lpel_hooks hooks;
    if (mon_open(&m, &mo, argc, argv, &hooks, err, sizeof err) != 0) {
        fprintf(stderr, "mon_pipeline: %s\n", err);
        return 1;
    }
    lpel_config cfg = lpel_config_default();
    cfg.num_workers = workers;
    cfg.default_stream_capacity = 4;
    cfg.hooks = mon_lpel_hooks(m);
    lpel_runtime *rt;
    if (lpel_runtime_create(&rt, &cfg, err, sizeof err) != LPEL_OK) {
        fprintf(stderr, "mon_pipeline: %s\n", err);
        mon_close(m);
        return 1;
    }
    lpel_stream *s1 = lpel_stream_create(rt, 0), *s2 = lpel_stream_create(rt, 0);
    stage a = {NULL, s1, items, pace, 0, m}, b = {s1, s2, items, 0, 0, m},
          c = {s2, NULL, items, 0, hold, m};
    lpel_task_attr pa = {"S1:prod", 0, LPEL_ANY_WORKER};
    lpel_task_attr ra = {"S2:relay", 0, LPEL_ANY_WORKER};
    lpel_task_attr ca = {"S3:cons", 0, LPEL_ANY_WORKER};
    lpel_task_create(rt, &pa, producer, &a);
    lpel_task_create(rt, &ra, relay, &b);
    lpel_task_create(rt, &ca, consumer, &c);
    int rc = lpel_run(rt);
    lpel_runtime_destroy(rt);
    if (mon_close(m) != 0 || rc != LPEL_OK)
        return 1;
    return 0;
}
