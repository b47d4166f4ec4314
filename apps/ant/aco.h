/*
 * aco.h - ant-colony optimisation for single-machine total weighted
 * tardiness scheduling (SMTWTP): order J jobs (processing time p, weight w,
 * due date d) on one machine to minimise sum w_j * max(0, C_j - d_j).
 *
 * The ant application splits one iteration into the steps it runs as boxes:
 * each ant builds a schedule from the pheromone matrix (aco_construct), and
 * one update merges all the ants' schedules into the pheromone matrix
 * (aco_update). Every random choice of ant a in iteration i comes from a
 * generator seeded by (seed, i, a), and the update picks the best schedule
 * with ties broken by ant index, so the result does not depend on the order
 * in which ants finish.
 */
#ifndef APPS_ANT_ACO_H
#define APPS_ANT_ACO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct aco_instance {
    unsigned jobs;
    unsigned *p, *w, *d; /* processing time, weight, due date */
} aco_instance;

/* A random instance in the style of the OR-Library generator (p in 1..100,
 * w in 1..10, due dates spread around the total processing time). Returns
 * 0, or -1 if out of memory. */
int aco_instance_generate(aco_instance *inst, unsigned jobs, uint64_t seed);
void aco_instance_free(aco_instance *inst);

/* Total weighted tardiness of a schedule (a permutation of 0..jobs-1). */
uint64_t aco_objective(const aco_instance *inst, const unsigned *order);
/* Whether order is a permutation of 0..jobs-1. */
bool aco_is_permutation(const unsigned *order, unsigned jobs);
/* The objective of a uniformly random schedule (the baseline to beat). */
uint64_t aco_random_objective(const aco_instance *inst, uint64_t seed);

typedef struct aco_params {
    unsigned ants, iterations;
    double alpha, beta; /* weights of pheromone and heuristic */
    double rho;         /* evaporation */
    double q0;          /* probability of the greedy choice */
    uint64_t seed;
    double candidates;  /* the share (0, 1] of the jobs left an ant weighs at each
                           step, the first ones by index (1: all; less: less work
                           per ant, as ant --scale ant=F asks) */
} aco_params;

aco_params aco_params_default(void);

/* Pheromone tau[position * jobs + job] and the best schedule so far. */
typedef struct aco_colony {
    unsigned jobs;
    double *tau;
    unsigned *best;
    uint64_t best_objective; /* UINT64_MAX before the first update */
    unsigned iterations_done;
} aco_colony;

int aco_colony_init(aco_colony *c, const aco_instance *inst);
void aco_colony_free(aco_colony *c);
int aco_colony_copy(aco_colony *dst, const aco_colony *src);

/* One ant's schedule for this iteration into order; returns its objective. */
uint64_t aco_construct(const aco_instance *inst, const double *tau, const aco_params *prm,
                       unsigned iteration, unsigned ant, unsigned *order);

/* One ant's result, as carried between boxes. */
typedef struct aco_solution {
    unsigned ant;
    uint64_t objective;
    unsigned *order;
} aco_solution;

/* Whether a is preferred to b (lower objective, then lower ant index). */
bool aco_solution_better(const aco_solution *a, const aco_solution *b);

/* Merge the iteration's best solution into the colony: evaporate, deposit
 * on the best-so-far schedule, bound tau (MAX-MIN style). */
void aco_update(aco_colony *c, const aco_instance *inst, const aco_params *prm,
                const aco_solution *iteration_best);

/* The whole optimisation, sequentially: the reference the network's result
 * must equal. Returns 0, or -1 if out of memory. */
int aco_run_sequential(const aco_instance *inst, const aco_params *prm, aco_colony *out);

#endif /* APPS_ANT_ACO_H */
