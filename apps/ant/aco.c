/*
 * aco.c - the ant-colony kernel of the ant application (see aco.h): instance
 * generation, objective, schedule construction by one ant, and the
 * MAX-MIN-style pheromone update that merges an iteration's solutions.
 *
 * Why this variant: construction reads the pheromone matrix only, so the
 * ants of one iteration are independent and can run as parallel boxes;
 * all writes happen in the single update step, which the network places
 * after the merge of the ants' results.
 */
#include "aco.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- deterministic random numbers ---------------------------------------- */

typedef struct rng {
    uint64_t state;
} rng;

static uint64_t rng_next(rng *r)
{
    uint64_t z = (r->state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static double rng_uniform(rng *r)
{
    return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

static unsigned rng_below(rng *r, unsigned n)
{
    return (unsigned)(rng_next(r) % n);
}

static rng rng_for(uint64_t seed, uint64_t a, uint64_t b)
{
    rng r = {seed ^ (a * 0xd1b54a32d192ed03u) ^ (b * 0xabc98388fb8fac03u)};
    rng_next(&r);
    return r;
}

/* ---- instances ------------------------------------------------------------- */

int aco_instance_generate(aco_instance *inst, unsigned jobs, uint64_t seed)
{
    inst->jobs = jobs;
    inst->p = calloc(jobs, sizeof *inst->p);
    inst->w = calloc(jobs, sizeof *inst->w);
    inst->d = calloc(jobs, sizeof *inst->d);
    if (!inst->p || !inst->w || !inst->d) {
        aco_instance_free(inst);
        return -1;
    }
    rng r = rng_for(seed, 1, 0);
    uint64_t total = 0;
    for (unsigned j = 0; j < jobs; j++) {
        inst->p[j] = 1 + rng_below(&r, 100);
        inst->w[j] = 1 + rng_below(&r, 10);
        total += inst->p[j];
    }
    /* Tardiness factor 0.6, range of due dates 0.6: a hard mix where most
     * jobs can be late, as in the harder OR-Library classes. */
    double lo = (double)total * (1.0 - 0.6 - 0.3), span = (double)total * 0.6;
    for (unsigned j = 0; j < jobs; j++)
        inst->d[j] = (unsigned)(lo + span * rng_uniform(&r));
    return 0;
}

void aco_instance_free(aco_instance *inst)
{
    free(inst->p);
    free(inst->w);
    free(inst->d);
    inst->p = inst->w = inst->d = NULL;
}

uint64_t aco_objective(const aco_instance *inst, const unsigned *order)
{
    uint64_t t = 0, sum = 0;
    for (unsigned i = 0; i < inst->jobs; i++) {
        unsigned j = order[i];
        t += inst->p[j];
        if (t > inst->d[j])
            sum += (uint64_t)inst->w[j] * (t - inst->d[j]);
    }
    return sum;
}

bool aco_is_permutation(const unsigned *order, unsigned jobs)
{
    unsigned char *seen = calloc(jobs ? jobs : 1, 1);
    if (!seen)
        return false;
    bool ok = true;
    for (unsigned i = 0; i < jobs && ok; i++) {
        ok = order[i] < jobs && !seen[order[i]];
        if (ok)
            seen[order[i]] = 1;
    }
    free(seen);
    return ok;
}

uint64_t aco_random_objective(const aco_instance *inst, uint64_t seed)
{
    unsigned *order = malloc((inst->jobs ? inst->jobs : 1) * sizeof *order);
    if (!order)
        return UINT64_MAX;
    for (unsigned i = 0; i < inst->jobs; i++)
        order[i] = i;
    rng r = rng_for(seed, 2, 0);
    for (unsigned i = inst->jobs; i > 1; i--) { /* Fisher-Yates */
        unsigned k = rng_below(&r, i), tmp = order[i - 1];
        order[i - 1] = order[k];
        order[k] = tmp;
    }
    uint64_t obj = aco_objective(inst, order);
    free(order);
    return obj;
}

/* ---- colony ---------------------------------------------------------------- */

aco_params aco_params_default(void)
{
    return (aco_params){.ants = 8, .iterations = 40, .alpha = 1.0, .beta = 2.0,
                        .rho = 0.1, .q0 = 0.9, .seed = 0xac0u, .candidates = 1.0};
}

/* Bounds of tau (MAX-MIN ant system): keep every choice possible. */
static const double TAU_MAX = 1.0, TAU_MIN = 0.002;

int aco_colony_init(aco_colony *c, const aco_instance *inst)
{
    size_t n = inst->jobs;
    c->jobs = inst->jobs;
    c->tau = malloc((n ? n * n : 1) * sizeof *c->tau);
    c->best = calloc(n ? n : 1, sizeof *c->best);
    if (!c->tau || !c->best) {
        aco_colony_free(c);
        return -1;
    }
    for (size_t i = 0; i < n * n; i++)
        c->tau[i] = TAU_MAX;
    c->best_objective = UINT64_MAX;
    c->iterations_done = 0;
    return 0;
}

void aco_colony_free(aco_colony *c)
{
    free(c->tau);
    free(c->best);
    c->tau = NULL;
    c->best = NULL;
}

int aco_colony_copy(aco_colony *dst, const aco_colony *src)
{
    size_t n = src->jobs;
    aco_instance shape = {.jobs = src->jobs};
    if (aco_colony_init(dst, &shape) != 0)
        return -1;
    memcpy(dst->tau, src->tau, n * n * sizeof *dst->tau);
    memcpy(dst->best, src->best, n * sizeof *dst->best);
    dst->best_objective = src->best_objective;
    dst->iterations_done = src->iterations_done;
    return 0;
}

/* Heuristic desirability of job j at time t: modified due date rule. */
static double heuristic(const aco_instance *inst, unsigned j, uint64_t t)
{
    uint64_t due = inst->d[j], finish = t + inst->p[j];
    double mdd = (double)(finish > due ? finish : due);
    return (double)inst->w[j] / mdd;
}

/* The job placed at position pos: greedy with probability q0, otherwise
 * roulette over tau^alpha * eta^beta among unscheduled jobs. */
static unsigned choose_job(const aco_instance *inst, const double *tau_row, const aco_params *prm,
                           const unsigned char *used, unsigned left, uint64_t t, double *score,
                           rng *r)
{
    unsigned n = inst->jobs, best = n;
    /* the first `weigh` of the jobs left (all unless prm->candidates < 1) */
    unsigned weigh = prm->candidates < 1 ? (unsigned)ceil(prm->candidates * left) : left;
    double total = 0;
    for (unsigned j = 0; j < n; j++) {
        score[j] = 0;
        if (used[j] || !weigh)
            continue;
        weigh--;
        score[j] = pow(tau_row[j], prm->alpha) * pow(heuristic(inst, j, t), prm->beta);
        total += score[j];
        if (best == n || score[j] > score[best])
            best = j;
    }
    if (rng_uniform(r) < prm->q0 || total <= 0)
        return best;
    double x = rng_uniform(r) * total;
    for (unsigned j = 0; j < n; j++) {
        if (used[j])
            continue;
        if (x < score[j])
            return j;
        x -= score[j];
    }
    return best; /* rounding left x just above the last score */
}

uint64_t aco_construct(const aco_instance *inst, const double *tau, const aco_params *prm,
                       unsigned iteration, unsigned ant, unsigned *order)
{
    unsigned n = inst->jobs;
    unsigned char *used = calloc(n ? n : 1, 1);
    double *score = malloc((n ? n : 1) * sizeof *score);
    if (!used || !score) {
        free(used);
        free(score);
        return UINT64_MAX;
    }
    rng r = rng_for(prm->seed, iteration + 1, ant + 1);
    uint64_t t = 0;
    for (unsigned pos = 0; pos < n; pos++) {
        unsigned j = choose_job(inst, tau + (size_t)pos * n, prm, used, n - pos, t, score, &r);
        used[j] = 1;
        order[pos] = j;
        t += inst->p[j];
    }
    free(used);
    free(score);
    return aco_objective(inst, order);
}

bool aco_solution_better(const aco_solution *a, const aco_solution *b)
{
    return a->objective < b->objective || (a->objective == b->objective && a->ant < b->ant);
}

void aco_update(aco_colony *c, const aco_instance *inst, const aco_params *prm,
                const aco_solution *iteration_best)
{
    size_t n = c->jobs;
    (void)inst;
    if (iteration_best->objective < c->best_objective) {
        c->best_objective = iteration_best->objective;
        memcpy(c->best, iteration_best->order, n * sizeof *c->best);
    }
    for (size_t i = 0; i < n * n; i++)
        c->tau[i] *= 1.0 - prm->rho;
    /* Deposit rho * TAU_MAX on the best-so-far schedule's (position, job)
     * pairs: those entries converge to TAU_MAX, the others decay to TAU_MIN. */
    for (size_t pos = 0; pos < n; pos++)
        c->tau[pos * n + c->best[pos]] += prm->rho * TAU_MAX;
    for (size_t i = 0; i < n * n; i++) {
        if (c->tau[i] < TAU_MIN)
            c->tau[i] = TAU_MIN;
        if (c->tau[i] > TAU_MAX)
            c->tau[i] = TAU_MAX;
    }
    c->iterations_done++;
}

int aco_run_sequential(const aco_instance *inst, const aco_params *prm, aco_colony *out)
{
    if (aco_colony_init(out, inst) != 0)
        return -1;
    unsigned n = inst->jobs;
    unsigned *order = malloc((n ? n : 1) * sizeof *order);
    unsigned *best_order = malloc((n ? n : 1) * sizeof *best_order);
    if (!order || !best_order) {
        free(order);
        free(best_order);
        aco_colony_free(out);
        return -1;
    }
    for (unsigned it = 0; it < prm->iterations; it++) {
        aco_solution best = {.ant = 0, .objective = UINT64_MAX, .order = best_order};
        for (unsigned a = 0; a < prm->ants; a++) {
            aco_solution s = {.ant = a, .order = order};
            s.objective = aco_construct(inst, out->tau, prm, it, a, order);
            if (a == 0 || aco_solution_better(&s, &best)) {
                best.ant = a;
                best.objective = s.objective;
                memcpy(best_order, order, n * sizeof *order);
            }
        }
        aco_update(out, inst, prm, &best);
    }
    free(order);
    free(best_order);
    return 0;
}
