/*
 * ant_app.c - the ant application: ant-colony optimisation of a stream of
 * weighted tardiness scheduling instances (aco.h), each on the paper's S-Net
 * network in a split by the instance's tag:
 *
 *   ( spawn
 *     .. ((ant ! <ant>) | [])
 *     .. ([| {col, <pending>}, {sol} |] .. (merge | [])) * {<next>} | {<done>}
 *   ) * {<done>}   ! <inst>
 *
 * Each input record {col, <it>=0, <inst>} is one instance to solve (its
 * jobs differ in number, 0.75 to 1.25 times --jobs, so instances differ in
 * cost). Each outer star replica is one iteration: spawn takes the colony
 * {col} and emits one request per ant (tag <ant>, with a shared read-only
 * snapshot of the pheromone matrix) plus the colony tagged <pending>=ants;
 * the ants run in parallel in a split; in the inner star each replica's
 * synchro-cell joins the colony with one solution and merge keeps the
 * iteration's best, applying the pheromone update when the last solution is
 * in. The identity branches let records pass the boxes they are not for.
 * Ties between ants are broken by ant index, so the result equals
 * aco_run_sequential's.
 *
 * Why the split by <inst>: a synchro-cell fires once, so the stars serve one
 * instance; instances sharing them would pass through every replica the
 * earlier ones used and could join a solution with another instance's
 * colony. Every instance and iteration creates its own replicas (as in the
 * paper), and they live until the stream ends: about 7 tasks per ant and
 * iteration per instance, which is what bounds --paper below.
 *
 * The same network is apps/ant/ant.snet; ant_main.c runs this file's
 * network as a C program, ant_boxlib.c makes it the box library snetrun
 * loads for the .snet file (the boxes below are exported for it by name).
 */
#include "ant_app.h"
#include "aco.h"

#include <errno.h>
#include <limits.h>
#include <snet.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What every box shares: the instances and the parameters (read-only). */
struct ant_app {
    long jobs, instances;
    aco_params prm;
    aco_instance *inst; /* per instance */
    long next;          /* the next instance the input generator makes */
    long got, bad;      /* results taken; unexpected outputs */
    struct colony_state **result; /* per instance */
};

/* The instance a record belongs to (its <inst> tag). */
static const aco_instance *instance_of(const ant_app *app, const snet_record *r)
{
    return &app->inst[snet_record_tag(r, "inst")];
}

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
int ant_spawn(snet_handle *h, snet_record *in)
{
    const ant_app *job = snet_handle_user(h);
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
int ant_ant(snet_handle *h, snet_record *in)
{
    const ant_app *job = snet_handle_user(h);
    const aco_instance *inst = instance_of(job, in);
    const tau_snapshot *snap = snet_record_field(in, "tau");
    aco_solution *s = malloc(sizeof *s);
    unsigned *buf = malloc((inst->jobs + 1) * sizeof *buf);
    if (!s || !buf) {
        free(s);
        free(buf);
        return -1;
    }
    buf[0] = inst->jobs; /* the length, for solution_copy */
    unsigned *order = buf + 1;
    s->ant = (unsigned)snet_record_tag(in, "ant");
    s->order = order;
    s->objective = aco_construct(inst, snap->tau, &job->prm,
                                 (unsigned)snet_record_tag(in, "it"), s->ant, order);
    snet_record *out = snet_record_new();
    snet_record_set_field(out, "sol", &SOLUTION_TYPE, s);
    return snet_out(h, out);
}

/* merge ({col, sol, <pending>, <it>} -> {col, <pending>, <it>} | {col, <it>, <next>} | {col, <done>}) */
int ant_merge(snet_handle *h, snet_record *in)
{
    const ant_app *job = snet_handle_user(h);
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
        aco_update(&cs->col, instance_of(job, in), &job->prm, &cs->ib);
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

static snet_net *ant_build(void *arg)
{
    ant_app *job = arg;
    snet_net *ants = snet_split(snet_box("ant.ant", "{tau, <ant>, <it>} -> {sol}", ant_ant, job),
                                "<ant>");
    snet_net *merge_step = snet_serial(
        snet_sync("[| {col, <pending>}, {sol} |]"),
        snet_parallel(snet_box("ant.merge",
                               "{col, sol, <pending>, <it>} -> {col, <pending>, <it>} | "
                               "{col, <it>, <next>} | {col, <done>}",
                               ant_merge, job),
                      snet_filter("[]")));
    snet_net *iteration = snet_serial(
        snet_box("ant.spawn",
                 "{col, <it>} | {col, <it>, <next>} -> {tau, <ant>, <it>} | {col, <it>, <pending>}",
                 ant_spawn, job),
        snet_serial(snet_parallel(ants, snet_filter("[]")),
                    snet_star(merge_step, "{<next>} | {<done>}")));
    return snet_split(snet_star(iteration, "{<done>}"), "<inst>");
}

/* ---- input and output ------------------------------------------------------------ */

static snet_record *next_instance(void *arg)
{
    ant_app *app = arg;
    if (app->next >= app->instances)
        return NULL;
    long k = app->next++;
    aco_colony start;
    if (aco_colony_init(&start, &app->inst[k]) != 0)
        return NULL;
    colony_state *cs = colony_new(&start);
    aco_colony_free(&start);
    if (!cs)
        return NULL;
    snet_record *r = snet_record_new();
    snet_record_set_field(r, "col", &COLONY_TYPE, cs);
    snet_record_set_tag(r, "it", 0);
    snet_record_set_tag(r, "inst", k);
    return r;
}

static void take_result(void *arg, snet_record *o)
{
    ant_app *app = arg;
    long k = snet_record_tag(o, "inst");
    if (snet_record_has_tag(o, "done") && snet_record_has_field(o, "col") && k >= 0 &&
        k < app->instances && !app->result[k]) {
        app->result[k] = snet_record_take_field(o, "col");
        app->got++;
    } else {
        app->bad++;
    }
    snet_record_free(o);
}

/* ---- command line ---------------------------------------------------------- */

static int ant_option(void *arg, const char *flag, const char *value)
{
    ant_app *app = arg;
    long n;
    if (!strcmp(flag, "--iterations")) /* until --iterations means snapshots only (top) */
        fprintf(stderr, "ant: warning: --iterations I is deprecated, use --rounds I\n");
    else if (strcmp(flag, "--jobs") && strcmp(flag, "--ants") && strcmp(flag, "--rounds"))
        return 0;
    if (app_parse_long("ant", flag, value, flag[2] == 'j' ? 2 : 1, 100000, &n) != 0)
        return -1;
    if (flag[2] == 'j')
        app->jobs = n;
    else if (flag[2] == 'a')
        app->prm.ants = (unsigned)n;
    else
        app->prm.iterations = (unsigned)n;
    return 2;
}

/* Instance k: 0.75 to 1.25 times --jobs jobs, its own random instance. */
static int ant_finish(void *arg, const app_ctx *ctx)
{
    ant_app *app = arg;
    app->instances = ctx->inputs ? ctx->inputs : ctx->paper ? 2 : 8;
    if (!app->jobs)
        app->jobs = ctx->paper ? 1000 : 40;
    if (!app->prm.ants)
        app->prm.ants = ctx->paper ? 45 : 4;
    if (!app->prm.iterations)
        app->prm.iterations = ctx->paper ? 10 : 5;
    app->prm.candidates = app_scale_of(ctx, "ant");
    app->inst = calloc((size_t)app->instances, sizeof *app->inst);
    app->result = calloc((size_t)app->instances, sizeof *app->result);
    if (!app->inst || !app->result)
        goto oom;
    for (long k = 0; k < app->instances; k++) {
        uint64_t h = app_mix64((uint64_t)k);
        unsigned jobs = (unsigned)(app->jobs * 3 / 4 + (long)(h % (uint64_t)(app->jobs / 2 + 1)));
        if (aco_instance_generate(&app->inst[k], jobs < 2 ? 2 : jobs, 2011 + (uint64_t)k) != 0)
            goto oom;
    }
    return 0;
oom:
    fprintf(stderr, "ant: out of memory for %ld instances of about %ld jobs\n", app->instances,
            app->jobs);
    return -1;
}

/* The --check verdict on instance k's colony; 0 = passed. */
static int check_result(const ant_app *app, long k)
{
    const aco_instance *inst = &app->inst[k];
    const aco_colony *c = &app->result[k]->col;
    uint64_t random = aco_random_objective(inst, app->prm.seed);
    aco_colony ref;
    if (aco_run_sequential(inst, &app->prm, &ref) != 0) {
        fprintf(stderr, "ant: check failed: out of memory for the sequential reference\n");
        return 1;
    }
    const char *why = NULL;
    if (!aco_is_permutation(c->best, c->jobs))
        why = "the schedule is not a permutation of the jobs";
    else if (aco_objective(inst, c->best) != c->best_objective)
        why = "the reported objective differs from its recomputation";
    else if (c->best_objective >= random)
        why = "the schedule does not beat a random schedule";
    else if (c->best_objective != ref.best_objective)
        why = "the objective differs from the sequential reference";
    aco_colony_free(&ref);
    if (why) {
        fprintf(stderr, "ant: check failed: instance %ld: %s\n", k, why);
        return 1;
    }
    return 0;
}

static int ant_report(void *arg, const app_ctx *ctx, int run)
{
    ant_app *app = arg;
    int status = 1;
    if (run != 0)
        goto out;
    if (app->got != app->instances || app->bad) {
        fprintf(stderr, "ant: expected one {col, <done>} record per instance (%ld), got %ld "
                        "(and %ld others)\n", app->instances, app->got, app->bad);
        goto out;
    }
    unsigned long long total = 0;
    for (long k = 0; k < app->instances; k++)
        total += app->result[k]->col.best_objective;
    printf("ant: %ld instances of about %ld jobs, %u ants, %u iterations: total weighted "
           "tardiness %llu (instance 0: %llu)\n", app->instances, app->jobs, app->prm.ants,
           app->prm.iterations, total, (unsigned long long)app->result[0]->col.best_objective);
    status = 0;
    for (long k = 0; ctx->check && k < app->instances && !status; k++)
        status = check_result(app, k);
    if (ctx->check && !status)
        printf("ant: check passed (for every instance: permutation, objective recomputed, "
               "beats a random schedule, equals the sequential reference)\n");
out:
    for (long k = 0; k < app->instances; k++) {
        if (app->result)
            colony_free(app->result[k]);
        if (app->inst)
            aco_instance_free(&app->inst[k]);
    }
    free(app->result);
    free(app->inst);
    return status;
}

/* The defaults before the options: ants and iterations 0 = settled by
 * ant_finish from --paper. */
static void ant_init(void *arg)
{
    ant_app *app = arg;
    app->prm = aco_params_default();
    app->prm.ants = 0;
    app->prm.iterations = 0;
}

const app_spec ant_app_spec = {
    .name = "ant",
    .about = ANT_ABOUT,
    .options = ANT_OPTIONS_HELP,
    .value_options = (const char *const[]){"jobs", "ants", "rounds", "iterations", NULL},
    .size = sizeof(ant_app),
    .init = ant_init,
    .option = ant_option,
    .finish = ant_finish,
    .build = ant_build,
    .input = next_instance,
    .output = take_result,
    .report = ant_report,
    .scalable = (const char *const[]){"ant", NULL},
};
