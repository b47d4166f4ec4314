/*
 * ant_main.c - the ant application: ant-colony optimisation of a weighted
 * tardiness schedule (aco.h) as an S-Net network:
 *
 *   ( spawn
 *     .. ((ant !! <ant>) | [])
 *     .. ([| {col, <pending>}, {sol} |] .. (merge | [])) ** {<next>} | {<done>}
 *   ) ** {<done>}
 *
 * Each outer star replica is one iteration: spawn takes the colony {col} and
 * emits one request per ant (tag <ant>, with a shared read-only snapshot of
 * the pheromone matrix) plus the colony tagged <pending>=ants; the ants run
 * in parallel in a split; in the inner star each replica's synchro-cell
 * joins the colony with one solution and merge keeps the iteration's best,
 * applying the pheromone update when the last solution is in. The identity
 * branches let records pass the boxes they are not for. Ties between ants
 * are broken by ant index, so the result equals aco_run_sequential's.
 */
#include "app_main.h"

#include <limits.h>
#include "aco.h"

#include <mon.h>
#include <snet.h>

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ant_app {
    long jobs;
    aco_params prm;
    unsigned workers;
    int ant_worker; /* 1: ant v on worker v mod workers (!@ <ant>) */
    int check;
} ant_app;

/* What every box shares: the instance and the parameters (read-only). */
typedef struct ant_job {
    aco_instance inst;
    aco_params prm;
} ant_job;

/* ---- field types ------------------------------------------------------------ */

/* col: the colony plus the best solution of the current iteration. */
typedef struct colony_state {
    aco_colony col;
    aco_solution ib; /* ib.order has jobs slots; ib.objective UINT64_MAX = none yet */
} colony_state;

static void colony_free(void *v)
{
    colony_state *s = v;
    if (!s)
        return;
    aco_colony_free(&s->col);
    free(s->ib.order);
    free(s);
}

static colony_state *colony_new(const aco_colony *from)
{
    colony_state *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->ib.order = calloc(from->jobs ? from->jobs : 1, sizeof *s->ib.order);
    s->ib.objective = UINT64_MAX;
    if (!s->ib.order || aco_colony_copy(&s->col, from) != 0) {
        free(s->ib.order);
        free(s);
        return NULL;
    }
    return s;
}

static void *colony_copy(const void *v)
{
    const colony_state *src = v;
    colony_state *s = colony_new(&src->col);
    if (s) {
        s->ib.ant = src->ib.ant;
        s->ib.objective = src->ib.objective;
        memcpy(s->ib.order, src->ib.order, src->col.jobs * sizeof *s->ib.order);
    }
    return s;
}

/* tau: one iteration's pheromone snapshot shared by all its ants; copying
 * the field takes a reference, so ants never copy n*n doubles. */
typedef struct tau_snapshot {
    atomic_long refs;
    double tau[];
} tau_snapshot;

static void *tau_ref(const void *v)
{
    tau_snapshot *t = (tau_snapshot *)v;
    atomic_fetch_add(&t->refs, 1);
    return t;
}

static void tau_unref(void *v)
{
    tau_snapshot *t = v;
    if (t && atomic_fetch_sub(&t->refs, 1) == 1)
        free(t);
}

/* sol: one ant's schedule; the order's length is in front of it, so a copy
 * (the synchro-cell's merge makes one) knows how much to copy. */
static void *solution_copy(const void *v)
{
    const aco_solution *src = v;
    const unsigned *len = src->order - 1;
    aco_solution *s = malloc(sizeof *s);
    unsigned *buf = malloc((*len + 1) * sizeof *buf);
    if (!s || !buf) {
        free(s);
        free(buf);
        return NULL;
    }
    memcpy(buf, len, (*len + 1) * sizeof *buf);
    *s = *src;
    s->order = buf + 1;
    return s;
}

static void solution_free(void *v)
{
    aco_solution *s = v;
    if (s)
        free(s->order - 1);
    free(s);
}

static int opaque_print(FILE *out, const void *v)
{
    (void)v;
    return fprintf(out, "\"(opaque)\"") < 0 ? -1 : 0;
}

static int opaque_parse(const char *text, size_t len, void **value)
{
    (void)text, (void)len, (void)value;
    return -1; /* these fields never come from text input */
}

static const snet_field_type COLONY_TYPE = {"antcolony", colony_copy, colony_free, opaque_print,
                                            opaque_parse};
static const snet_field_type TAU_TYPE = {"anttau", tau_ref, tau_unref, opaque_print, opaque_parse};
static const snet_field_type SOLUTION_TYPE = {"antsol", solution_copy, solution_free, opaque_print,
                                              opaque_parse};

/* ---- boxes ----------------------------------------------------------------- */

/* spawn ({col, <it>} | {col, <it>, <next>} -> {tau, <ant>, <it>} | {col, <it>, <pending>}) */
static int spawn_box(snet_handle *h, snet_record *in)
{
    const ant_job *job = snet_handle_user(h);
    colony_state *cs = snet_record_take_field(in, "col");
    long it = snet_record_tag(in, "it");
    size_t cells = (size_t)cs->col.jobs * cs->col.jobs;
    tau_snapshot *snap = malloc(sizeof *snap + (cells ? cells : 1) * sizeof snap->tau[0]);
    if (!snap) {
        colony_free(cs);
        return -1;
    }
    atomic_init(&snap->refs, 1);
    memcpy(snap->tau, cs->col.tau, cells * sizeof snap->tau[0]);
    for (unsigned a = 0; a < job->prm.ants; a++) {
        snet_record *r = snet_record_new();
        snet_record_set_field(r, "tau", &TAU_TYPE, tau_ref(snap));
        snet_record_set_tag(r, "ant", (long)a);
        snet_record_set_tag(r, "it", it);
        if (snet_out(h, r) != SNET_OK) {
            tau_unref(snap);
            colony_free(cs);
            return -1;
        }
    }
    tau_unref(snap);
    cs->ib.objective = UINT64_MAX;
    snet_record *c = snet_record_new();
    snet_record_set_field(c, "col", &COLONY_TYPE, cs);
    snet_record_set_tag(c, "it", it);
    snet_record_set_tag(c, "pending", (long)job->prm.ants);
    return snet_out(h, c);
}

/* ant ({tau, <ant>, <it>} -> {sol}) */
static int ant_box(snet_handle *h, snet_record *in)
{
    const ant_job *job = snet_handle_user(h);
    const tau_snapshot *snap = snet_record_field(in, "tau");
    aco_solution *s = malloc(sizeof *s);
    unsigned *buf = malloc((job->inst.jobs + 1) * sizeof *buf);
    if (!s || !buf) {
        free(s);
        free(buf);
        return -1;
    }
    buf[0] = job->inst.jobs; /* the length, for solution_copy */
    unsigned *order = buf + 1;
    s->ant = (unsigned)snet_record_tag(in, "ant");
    s->order = order;
    s->objective = aco_construct(&job->inst, snap->tau, &job->prm,
                                 (unsigned)snet_record_tag(in, "it"), s->ant, order);
    snet_record *out = snet_record_new();
    snet_record_set_field(out, "sol", &SOLUTION_TYPE, s);
    return snet_out(h, out);
}

/* merge ({col, sol, <pending>, <it>} -> {col, <pending>, <it>} | {col, <it>, <next>} | {col, <done>}) */
static int merge_box(snet_handle *h, snet_record *in)
{
    const ant_job *job = snet_handle_user(h);
    colony_state *cs = snet_record_take_field(in, "col");
    const aco_solution *s = snet_record_field(in, "sol");
    if (cs->ib.objective == UINT64_MAX || aco_solution_better(s, &cs->ib)) {
        cs->ib.ant = s->ant;
        cs->ib.objective = s->objective;
        memcpy(cs->ib.order, s->order, cs->col.jobs * sizeof *s->order);
    }
    long pending = snet_record_tag(in, "pending") - 1, it = snet_record_tag(in, "it");
    snet_record *out = snet_record_new();
    if (pending > 0) {
        snet_record_set_tag(out, "pending", pending);
        snet_record_set_tag(out, "it", it);
    } else {
        aco_update(&cs->col, &job->inst, &job->prm, &cs->ib);
        if (it + 1 >= (long)job->prm.iterations) {
            snet_record_set_tag(out, "done", 1);
        } else {
            snet_record_set_tag(out, "it", it + 1);
            snet_record_set_tag(out, "next", 1);
        }
    }
    snet_record_set_field(out, "col", &COLONY_TYPE, cs);
    return snet_out(h, out);
}

static snet_net *build_net(ant_job *job, int ant_worker)
{
    snet_net *ant = snet_box("ant.ant", "{tau, <ant>, <it>} -> {sol}", ant_box, job);
    snet_net *ants = ant_worker ? snet_split_at(ant, "<ant>") : snet_split(ant, "<ant>");
    snet_net *merge_step = snet_serial(
        snet_sync("[| {col, <pending>}, {sol} |]"),
        snet_parallel(snet_box("ant.merge",
                               "{col, sol, <pending>, <it>} -> {col, <pending>, <it>} | "
                               "{col, <it>, <next>} | {col, <done>}",
                               merge_box, job),
                      snet_filter("[]")));
    snet_net *iteration = snet_serial(
        snet_box("ant.spawn",
                 "{col, <it>} | {col, <it>, <next>} -> {tau, <ant>, <it>} | {col, <it>, <pending>}",
                 spawn_box, job),
        snet_serial(snet_parallel(ants, snet_filter("[]")),
                    snet_star(merge_step, "{<next>} | {<done>}")));
    return snet_star(iteration, "{<done>}");
}

/* Run the network; the final colony into *out (caller frees). */
static int run_network(ant_job *job, const ant_app *app, const lpel_hooks *hooks,
                       colony_state **out)
{
    aco_colony start;
    if (aco_colony_init(&start, &job->inst) != 0)
        return -1;
    colony_state *cs = colony_new(&start);
    aco_colony_free(&start);
    if (!cs)
        return -1;
    snet_net *net = build_net(job, app->ant_worker);
    snet_config cfg = snet_config_default();
    cfg.lpel.num_workers = app->workers;
    cfg.lpel.hooks = hooks;
    snet_run *run;
    char err[512];
    if (snet_run_create(&run, net, &cfg, err, sizeof err) != SNET_OK) {
        fprintf(stderr, "ant: %s\n", err);
        colony_free(cs);
        snet_net_free(net);
        return -1;
    }
    snet_record *r = snet_record_new();
    snet_record_set_field(r, "col", &COLONY_TYPE, cs);
    snet_record_set_tag(r, "it", 0);
    snet_run_put(run, r);
    int rc = snet_run_execute(run), found = 0;
    if (rc != SNET_OK)
        fprintf(stderr, "ant: run failed: %s\n", snet_run_error(run));
    for (snet_record *o; (o = snet_run_take_output(run)) != NULL; snet_record_free(o)) {
        if (snet_record_has_tag(o, "done") && snet_record_has_field(o, "col") && !found++)
            *out = snet_record_take_field(o, "col");
    }
    snet_run_destroy(run);
    snet_net_free(net);
    if (rc == SNET_OK && found != 1) {
        fprintf(stderr, "ant: expected one {col, <done>} record, got %d\n", found);
        return -1;
    }
    return rc == SNET_OK ? 0 : -1;
}

/* ---- command line ---------------------------------------------------------- */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: ant [options]\n"
            "Ant-colony optimisation of a single-machine weighted tardiness schedule on\n"
            "the S-Net network\n"
            "  (spawn .. ((ant !! <ant>) | []) .. ([| {col,<pending>},{sol} |] ..\n"
            "   (merge | [])) ** {<next>}|{<done>}) ** {<done>}\n"
            "\n"
            "  -w N             workers (default: one per core)\n"
            "  --jobs J         jobs to schedule (default 60; --paper: 1000)\n"
            "  --ants A         ants per iteration (default 8; --paper: 45)\n"
            "  --iterations I   iterations (default 40; --paper: 1000)\n"
            "  --paper          the paper's size (very long on 2 cores)\n"
            "  --map @ants      run ant v on worker v mod workers (!@ <ant>)\n"
            "  --check          the schedule is a permutation, its objective equals a\n"
            "                   recomputation, beats a random schedule, and equals the\n"
            "                   sequential reference\n"
            MON_OPTIONS_HELP
            "  --help           this text\n");
}

/* 0 ok, 1 help shown, -1 usage error (message printed). */
static int parse(int argc, char **argv, ant_app *app)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long n;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 1;
        } else if (!strcmp(a, "--check")) {
            app->check = 1;
        } else if (!strcmp(a, "--paper")) {
            app->jobs = 1000;
            app->prm.ants = 45;
            app->prm.iterations = 1000;
        } else if (!strcmp(a, "--map")) {
            if (!v || strcmp(v, "@ants")) {
                fprintf(stderr, "ant: --map expects @ants (map files are not supported), got '%s'\n",
                        v ? v : "(nothing)");
                return -1;
            }
            app->ant_worker = 1;
            i++;
        } else if (!strcmp(a, "-w") || !strcmp(a, "--jobs") || !strcmp(a, "--ants") ||
                   !strcmp(a, "--iterations")) {
            if (app_parse_long("ant", a, v, 1, LONG_MAX, &n) != 0)
                return -1;
            i++;
            if (!strcmp(a, "-w"))
                app->workers = (unsigned)n;
            else if (!strcmp(a, "--jobs"))
                app->jobs = n;
            else if (!strcmp(a, "--ants"))
                app->prm.ants = (unsigned)n;
            else
                app->prm.iterations = (unsigned)n;
        } else {
            fprintf(stderr, "ant: unknown option '%s' (see ant --help)\n", a);
            return -1;
        }
    }
    return 0;
}

/* The --check verdict on the network's colony; 0 = passed. */
static int check_result(const ant_job *job, const colony_state *cs)
{
    const aco_colony *c = &cs->col;
    uint64_t random = aco_random_objective(&job->inst, job->prm.seed);
    aco_colony ref;
    if (aco_run_sequential(&job->inst, &job->prm, &ref) != 0) {
        fprintf(stderr, "ant: check failed: out of memory for the sequential reference\n");
        return 1;
    }
    const char *why = NULL;
    if (!aco_is_permutation(c->best, c->jobs))
        why = "the schedule is not a permutation of the jobs";
    else if (aco_objective(&job->inst, c->best) != c->best_objective)
        why = "the reported objective differs from its recomputation";
    else if (c->best_objective >= random)
        why = "the schedule does not beat a random schedule";
    else if (c->best_objective != ref.best_objective)
        why = "the objective differs from the sequential reference";
    aco_colony_free(&ref);
    if (why) {
        fprintf(stderr, "ant: check failed: %s\n", why);
        return 1;
    }
    printf("ant: check passed (permutation, objective recomputed, random schedule %llu, "
           "sequential reference equal)\n", (unsigned long long)random);
    return 0;
}

static int parse_ant(int argc, char **argv, void *app) { return parse(argc, argv, app); }

static int run_ant(void *arg, const lpel_hooks *hooks)
{
    ant_app *app = arg;
    ant_job job = {.prm = app->prm};
    if (aco_instance_generate(&job.inst, (unsigned)app->jobs, 2011) != 0) {
        fprintf(stderr, "ant: out of memory for %ld jobs\n", app->jobs);
        return 1;
    }
    colony_state *result = NULL;
    int status = 1;
    if (run_network(&job, app, hooks, &result) == 0) {
        printf("ant: %ld jobs, %u ants, %u iterations: total weighted tardiness %llu\n", app->jobs,
               app->prm.ants, app->prm.iterations, (unsigned long long)result->col.best_objective);
        status = app->check ? check_result(&job, result) : 0;
    }
    colony_free(result);
    aco_instance_free(&job.inst);
    return status;
}

int main(int argc, char **argv)
{
    ant_app app = {.jobs = 60, .prm = aco_params_default(), .workers = 0, .ant_worker = 0,
                   .check = 0};
    return app_main("ant", argc, argv, &app, parse_ant, run_ant);
}
