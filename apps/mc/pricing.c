/*
 * pricing.c - the Monte-Carlo kernel of the mc application: counter-based
 * normal variates, path simulation with exact GBM steps, fixed-point
 * accumulation, and the Black-Scholes formula used by --check.
 *
 * Why counter-based: the S-Net network computes paths in whatever task and
 * order the runtime chooses; deriving each variate from (seed, path, index)
 * by a hash makes the price a function of the inputs only.
 */
#include "pricing.h"

#include <math.h>

mc_option mc_option_default(void)
{
    return (mc_option){.spot = 100.0, .strike = 105.0, .rate = 0.05, .sigma = 0.2,
                       .maturity = 1.0, .steps = 64, .seed = 0x5eed2011u};
}

/* SplitMix64 finaliser: a bijective 64-bit mixer with good avalanche. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

uint64_t mc_path_key(uint64_t seed, uint64_t path)
{
    return mix64(seed ^ mix64(path + 0x9e3779b97f4a7c15u));
}

/* Uniform in (0, 1): 53 random bits, offset by half a unit so never 0. */
static double uniform_open(uint64_t bits)
{
    return ((double)(bits >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

double mc_normal(uint64_t key, uint64_t n)
{
    /* Box-Muller on two uniforms drawn for index n; the cosine branch only,
     * so variate n depends on nothing but (key, n). */
    double u1 = uniform_open(mix64(key + 2 * n * 0x9e3779b97f4a7c15u + 1));
    double u2 = uniform_open(mix64(key + (2 * n + 1) * 0x9e3779b97f4a7c15u + 2));
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586476925 * u2);
}

double mc_path_value(const mc_option *o, uint64_t path)
{
    unsigned steps = o->steps ? o->steps : 1;
    double dt = o->maturity / steps;
    double drift = (o->rate - 0.5 * o->sigma * o->sigma) * dt;
    double vol = o->sigma * sqrt(dt);
    uint64_t key = mc_path_key(o->seed, path);
    double log_s = log(o->spot);
    for (unsigned i = 0; i < steps; i++)
        log_s += drift + vol * mc_normal(key, i);
    double payoff = exp(log_s) - o->strike;
    return payoff > 0 ? payoff * exp(-o->rate * o->maturity) : 0.0;
}

static uint64_t to_fixed(double v, int bits)
{
    return (uint64_t)llround(ldexp(v, bits));
}

void mc_sum_add_value(mc_sum *s, double value)
{
    s->count++;
    s->sum += to_fixed(value, MC_FIX_BITS);
    s->sum_sq += to_fixed(value * value, MC_FIX_SQ_BITS);
}

void mc_sum_merge(mc_sum *into, const mc_sum *from)
{
    into->count += from->count;
    into->sum += from->sum;
    into->sum_sq += from->sum_sq;
}

mc_sum mc_batch(const mc_option *o, uint64_t first, uint64_t count)
{
    mc_sum s = {0, 0, 0};
    for (uint64_t p = first; p < first + count; p++)
        mc_sum_add_value(&s, mc_path_value(o, p));
    return s;
}

double mc_sum_mean(const mc_sum *s)
{
    return s->count ? ldexp((double)s->sum, -MC_FIX_BITS) / (double)s->count : 0.0;
}

double mc_sum_stderr(const mc_sum *s)
{
    if (s->count < 2)
        return 0.0;
    double n = (double)s->count, mean = mc_sum_mean(s);
    double var = (ldexp((double)s->sum_sq, -MC_FIX_SQ_BITS) - n * mean * mean) / (n - 1);
    return var > 0 ? sqrt(var / n) : 0.0;
}

static double normal_cdf(double x)
{
    return 0.5 * erfc(-x / sqrt(2.0));
}

double black_scholes_call(const mc_option *o)
{
    double sq = o->sigma * sqrt(o->maturity);
    double d1 = (log(o->spot / o->strike) + (o->rate + 0.5 * o->sigma * o->sigma) * o->maturity) / sq;
    double d2 = d1 - sq;
    return o->spot * normal_cdf(d1) - o->strike * exp(-o->rate * o->maturity) * normal_cdf(d2);
}

bool mc_price_plausible(const mc_option *o, const mc_sum *s)
{
    double se = mc_sum_stderr(s);
    return s->count > 1 && fabs(mc_sum_mean(s) - black_scholes_call(o)) <= 3.0 * se;
}
