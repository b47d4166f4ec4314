/*
 * lpel_demo.c - lpel-demo: two small programs that show the runtime at work.
 *
 *   pipeline  a source, K filter stages and a sink on all workers: the
 *             source emits 1..M, each stage adds its index, the sink
 *             checks the sum it receives against the closed form, so a
 *             lost, duplicated or reordered message makes it fail
 *   deadlock  two tasks that each wait for the other: the runtime finds
 *             it, prints who waits for whom, and the program exits 1
 *
 * Every program compiled against the runtime takes -m FLAGS / --mon-dir DIR for
 * monitoring (when built with the monitor).
 */
#include <lpel.h>
#include <mon.h>
#include <prog_opt.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct demo_options {
    const char *program;
    unsigned workers;
    long stages, messages;
} demo_options;

/* ---- pipeline ------------------------------------------------------------- */

typedef struct pipeline {
    lpel_stream **links; /* stages + 1 of them */
    long stages, messages;
    long long sum;
    long received;
} pipeline;

typedef struct stage {
    pipeline *p;
    long index; /* 0 = source, 1..stages = filters, stages+1 = sink */
} stage;

static void source_task(void *arg)
{
    stage *st = arg;
    pipeline *p = st->p;
    for (long i = 1; i <= p->messages; i++)
        lpel_stream_write(p->links[0], (void *)(intptr_t)i);
    lpel_stream_close(p->links[0], LPEL_STREAM_WRITE);
}

static void filter_task(void *arg)
{
    stage *st = arg;
    lpel_stream *in = st->p->links[st->index - 1], *out = st->p->links[st->index];
    void *item;
    while ((item = lpel_stream_read(in)) != NULL)
        lpel_stream_write(out, (void *)((intptr_t)item + st->index));
    lpel_stream_close(out, LPEL_STREAM_WRITE);
    lpel_stream_close(in, LPEL_STREAM_READ);
}

static void sink_task(void *arg)
{
    stage *st = arg;
    pipeline *p = st->p;
    lpel_stream *in = p->links[p->stages];
    void *item;
    while ((item = lpel_stream_read(in)) != NULL) {
        p->sum += (intptr_t)item;
        p->received++;
    }
    lpel_stream_close(in, LPEL_STREAM_READ);
}

static int run_pipeline(lpel_runtime *rt, const demo_options *o)
{
    pipeline p = {.stages = o->stages, .messages = o->messages};
    p.links = calloc((size_t)o->stages + 1, sizeof *p.links);
    stage *stages = calloc((size_t)o->stages + 2, sizeof *stages);
    for (long i = 0; i <= o->stages; i++)
        p.links[i] = lpel_stream_create(rt, 0);
    char name[32];
    for (long i = 0; i <= o->stages + 1; i++) {
        stages[i] = (stage){&p, i};
        lpel_task_fn fn = i == 0 ? source_task : i <= o->stages ? filter_task : sink_task;
        snprintf(name, sizeof name, i == 0 ? "source" : i <= o->stages ? "stage%ld" : "sink", i);
        lpel_task_attr attr = {.name = name, .stack_size = 0, .worker = LPEL_ANY_WORKER};
        if (lpel_task_create(rt, &attr, fn, &stages[i]) <= 0) {
            fprintf(stderr, "lpel-demo: cannot create task %s: %s\n", name, lpel_runtime_error(rt));
            return 1;
        }
    }
    int rc = lpel_run(rt);
    long long m = o->messages;
    long long expected = m * (m + 1) / 2 + m * (o->stages * (o->stages + 1) / 2);
    int status = 0;
    if (rc != LPEL_OK) {
        fprintf(stderr, "lpel-demo: run failed: %s\n", lpel_runtime_error(rt));
        status = 1;
    } else if (p.received != o->messages || p.sum != expected) {
        fprintf(stderr, "lpel-demo: pipeline: got %ld messages summing to %lld, expected %ld "
                        "summing to %lld\n", p.received, p.sum, o->messages, expected);
        status = 1;
    } else {
        printf("pipeline: %ld messages through %ld stages on %u workers: sum %lld (correct)\n",
               o->messages, o->stages, lpel_runtime_num_workers(rt), p.sum);
    }
    free(p.links);
    free(stages);
    return status;
}

/* ---- deadlock ------------------------------------------------------------- */

typedef struct cycle {
    lpel_stream *to_consumer, *to_producer;
} cycle;

/* Each waits for a request from the other before it sends anything. */
static void producer_task(void *arg)
{
    cycle *c = arg;
    lpel_stream_open(c->to_consumer, LPEL_STREAM_WRITE);
    void *request = lpel_stream_read(c->to_producer);
    lpel_stream_write(c->to_consumer, request);
}

static void consumer_task(void *arg)
{
    cycle *c = arg;
    lpel_stream_open(c->to_producer, LPEL_STREAM_WRITE);
    void *reply = lpel_stream_read(c->to_consumer);
    lpel_stream_write(c->to_producer, reply);
}

static int run_deadlock(lpel_runtime *rt)
{
    cycle c = {lpel_stream_create(rt, 0), lpel_stream_create(rt, 0)};
    lpel_task_attr pa = {.name = "producer", .stack_size = 0, .worker = LPEL_ANY_WORKER};
    lpel_task_attr ca = {.name = "consumer", .stack_size = 0, .worker = LPEL_ANY_WORKER};
    lpel_task_create(rt, &pa, producer_task, &c);
    lpel_task_create(rt, &ca, consumer_task, &c);
    int rc = lpel_run(rt);
    lpel_stream_destroy(c.to_consumer);
    lpel_stream_destroy(c.to_producer);
    if (rc == LPEL_EDEADLOCK) {
        fprintf(stderr, "lpel-demo: %s\n", lpel_runtime_error(rt));
        return 1;
    }
    fprintf(stderr, "lpel-demo: expected a deadlock, the run returned: %s\n", lpel_strerror(rc));
    return 2;
}

/* ---- command line --------------------------------------------------------- */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: lpel-demo pipeline|deadlock [options]\n"
            "\n"
            "  pipeline   source -> K stages -> sink; the sink checks what it received\n"
            "  deadlock   two tasks waiting for each other: the runtime reports who\n"
            "             waits for whom and the program exits 1\n"
            "\n"
            "options:\n"
            "  -w N             workers (default: one per core)\n"
            "  --stages K       pipeline stages (default 8)\n"
            "  --messages M     pipeline messages (default 100000)\n"
            MON_OPTIONS_HELP
            "  -h, --help       this text\n"
            "  --version        the version and git revision\n");
}

static long number(const char *flag, const char *v, long min)
{
    char *end;
    errno = 0;
    long n = v ? strtol(v, &end, 10) : 0;
    if (!v || errno || *end || n < min) {
        fprintf(stderr, "lpel-demo: %s expects a whole number >= %ld, got '%s'\n", flag, min,
                v ? v : "(nothing)");
        exit(2);
    }
    return n;
}

static void parse(int argc, char **argv, demo_options *o)
{
    enum { OPT_STAGES = PROG_OPT_OWN, OPT_MESSAGES };
    static const struct option longopts[] = {PROG_OPT_STANDARD,
                                              {"workers", required_argument, NULL, 'w'},
                                              {"stages", required_argument, NULL, OPT_STAGES},
                                              {"messages", required_argument, NULL, OPT_MESSAGES},
                                              {NULL, 0, NULL, 0}};
    prog_opt p;
    prog_opt_begin(&p, "lpel-demo", argc, argv);
    for (int c; (c = prog_opt_next(&p, "hw:", longopts)) != -1;) {
        switch (c) {
        case 'h':
            usage(stdout);
            exit(0);
        case PROG_OPT_VERSION:
            exit(prog_opt_version(&p));
        case 'w':
            o->workers = (unsigned)number("-w", optarg, 1);
            break;
        case OPT_STAGES:
            o->stages = number("--stages", optarg, 1);
            break;
        case OPT_MESSAGES:
            o->messages = number("--messages", optarg, 1);
            break;
        default:
            exit(2);
        }
    }
    if (prog_opt_npositional(&p) != 1) {
        usage(stderr);
        exit(2);
    }
    o->program = prog_opt_positional(&p)[0];
    if (strcmp(o->program, "pipeline") && strcmp(o->program, "deadlock")) {
        fprintf(stderr, "lpel-demo: unknown program '%s' (expected pipeline or deadlock)\n",
                o->program);
        exit(2);
    }
}

int main(int argc, char **argv)
{
    demo_options o = {.workers = 0, .stages = 8, .messages = 100000};
    lpel_config cfg = lpel_config_default();
    mon_options mo;
    char err[512];
    if (mon_parse_args(&argc, argv, &mo, err, sizeof err) != 0) {
        fprintf(stderr, "lpel-demo: %s\n", err);
        return 2;
    }
    parse(argc, argv, &o);
    mon *m = NULL;
    lpel_hooks hooks;
    if (mon_open(&m, &mo, argc, argv, &hooks, err, sizeof err) != 0) {
        fprintf(stderr, "lpel-demo: %s\n", err);
        return 1;
    }
    cfg.hooks = mon_lpel_hooks(m);
    cfg.num_workers = o.workers;
    lpel_runtime *rt;
    char rterr[256];
    if (lpel_runtime_create(&rt, &cfg, rterr, sizeof rterr) != LPEL_OK) {
        fprintf(stderr, "lpel-demo: %s\n", rterr);
        return 1;
    }
    int status = !strcmp(o.program, "pipeline") ? run_pipeline(rt, &o) : run_deadlock(rt);
    lpel_runtime_destroy(rt);
    if (mon_close(m) != 0 && status == 0)
        status = 1;
    return status;
}
