/*
 * pricing.h - Monte-Carlo pricing of a European call under geometric
 * Brownian motion, and the Black-Scholes closed form it is checked against.
 *
 * Paths are numbered; path i draws its normals from a counter-based
 * generator keyed by (seed, i), so the value of a path never depends on
 * which task or worker computes it. Sums are kept in fixed point so that
 * adding batches in any order gives bit-identical results.
 */
#ifndef APPS_MC_PRICING_H
#define APPS_MC_PRICING_H

#include <stdbool.h>
#include <stdint.h>

typedef struct mc_option {
    double spot;     /* S0 */
    double strike;   /* K */
    double rate;     /* risk-free rate r (continuous) */
    double sigma;    /* volatility */
    double maturity; /* T in years */
    unsigned steps;  /* time steps per path (exact GBM steps) */
    uint64_t seed;
} mc_option;

/* The option used by the application unless told otherwise. */
mc_option mc_option_default(void);

/* The n-th standard normal variate of stream `key` (counter-based). */
double mc_normal(uint64_t key, uint64_t n);
/* The stream key of path `path` under `seed`. */
uint64_t mc_path_key(uint64_t seed, uint64_t path);

/* Discounted payoff of one path. */
double mc_path_value(const mc_option *o, uint64_t path);

/* Fixed-point sums: value in units of 2^-MC_FIX_BITS, squares in units of
 * 2^-MC_FIX_SQ_BITS. uint64 holds 10^6 paths of payoffs up to ~2000. */
#define MC_FIX_BITS 20
#define MC_FIX_SQ_BITS 8

typedef struct mc_sum {
    uint64_t count;
    uint64_t sum;    /* sum of values, fixed point */
    uint64_t sum_sq; /* sum of squared values, fixed point */
} mc_sum;

void mc_sum_add_value(mc_sum *s, double value);
void mc_sum_merge(mc_sum *into, const mc_sum *from);
/* Paths [first, first+count) added into a fresh sum. */
mc_sum mc_batch(const mc_option *o, uint64_t first, uint64_t count);

/* Mean and its standard error from a sum. */
double mc_sum_mean(const mc_sum *s);
double mc_sum_stderr(const mc_sum *s);

double black_scholes_call(const mc_option *o);

/* Whether |price - Black-Scholes| <= 3 standard errors. */
bool mc_price_plausible(const mc_option *o, const mc_sum *s);

#endif /* APPS_MC_PRICING_H */
