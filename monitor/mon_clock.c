/*
 * mon_clock.c - choosing and calibrating the trace clock (see
 * mon_clock_internal.h for why there is a choice).
 *
 * The TSC is used only when every one of these holds, since a wrong clock
 * silently corrupts every time in the trace while the fallback only costs
 * speed: x86, CPUID says the TSC is invariant, the kernel still lists tsc
 * among its clocksources (it drops it when it finds the TSCs of its CPUs
 * out of step), MON_CLOCK does not ask for CLOCK_MONOTONIC, and the
 * calibrated frequency is plausible.
 */
#include "mon_clock_internal.h"

#include "mon_format_internal.h"
#include "mon.h" /* MON_CLOCK_SKEW_ENV */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#if MON_HAVE_TSC
#include <cpuid.h>
#endif

bool mon_cpu_has_invariant_tsc(void)
{
#if MON_HAVE_TSC
    unsigned a, b, c, d;
    /* __get_cpuid checks the highest extended leaf first. */
    if (!__get_cpuid(0x80000007u, &a, &b, &c, &d))
        return false;
    return (d >> 8) & 1u;
#else
    return false;
#endif
}

void mon_clock_set_offset(mon_clock *c, uint64_t wall_ns, uint64_t start_ticks)
{
    /* offset_s + offset_ticks / freq = wall - start_ticks / freq, computed
     * as whole seconds and ticks so nothing overflows for any freq the
     * format allows. */
    uint64_t ws = wall_ns / MON_NS_PER_S, wn = wall_ns % MON_NS_PER_S;
    uint64_t ts = start_ticks / c->freq, tr = start_ticks % c->freq;
    uint64_t wn_ticks = wn * c->freq / MON_NS_PER_S; /* wn < 10^9: fits */
    c->wall_start_ns = wall_ns;
    c->start_ticks = start_ticks;
    c->offset_s = ws - ts;
    if (wn_ticks >= tr) {
        c->offset_ticks = wn_ticks - tr;
    } else {
        c->offset_s--;
        c->offset_ticks = wn_ticks + c->freq - tr;
    }
    c->offset_ns = c->offset_s * MON_NS_PER_S + mon_ticks_to_ns(c->offset_ticks, c->freq);
}

void mon_clock_init_monotonic(mon_clock *c, const char *why)
{
    memset(c, 0, sizeof *c);
    struct timespec res;
    clock_getres(CLOCK_MONOTONIC, &res);
    c->resolution_ns = (uint64_t)res.tv_sec * MON_NS_PER_S + (uint64_t)res.tv_nsec;
    c->precision_ticks = c->resolution_ns;
    c->freq = MON_NS_PER_S;
    c->mono_start_ns = mon_clock_ns(CLOCK_MONOTONIC);
    mon_clock_set_offset(c, mon_clock_ns(CLOCK_REALTIME), c->mono_start_ns);
    snprintf(c->why, sizeof c->why, "%s", why);
}

#if MON_HAVE_TSC
/* The TSC and a reference clock at the same moment: the reference is read
 * on both sides of the TSC and the narrowest of a few tries is kept, its
 * midpoint standing for the TSC's moment (error at most half the width).
 * False when no try saw the reference clock move forward (outputs zeroed). */
static bool tsc_pair(clockid_t ref, uint64_t *tsc, uint64_t *ref_ns, uint64_t *width)
{
    uint64_t best = UINT64_MAX;
    *tsc = 0;
    *ref_ns = 0;
    for (int i = 0; i < 9; i++) {
        uint64_t r0 = mon_clock_ns(ref);
        uint64_t t = mon_tsc_read();
        uint64_t r1 = mon_clock_ns(ref);
        if (r1 >= r0 && r1 - r0 < best) {
            best = r1 - r0;
            *tsc = t;
            *ref_ns = r0 + (r1 - r0) / 2;
        }
    }
    *width = best;
    return best != UINT64_MAX;
}

/* The kernel unregisters tsc as a clocksource when it finds it unstable;
 * a system without that sysfs file (a container hiding /sys) is trusted
 * on CPUID alone. */
static bool kernel_distrusts_tsc(void)
{
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/available_clocksource", "r");
    if (!f)
        return false;
    char line[512];
    bool listed = false;
    if (fgets(line, sizeof line, f)) {
        for (char *tok = strtok(line, " \n"); tok; tok = strtok(NULL, " \n"))
            if (strcmp(tok, "tsc") == 0)
                listed = true;
    }
    fclose(f);
    return !listed;
}

/* Calibrate c->freq against CLOCK_MONOTONIC; false if it looks broken. */
static bool tsc_calibrate(mon_clock *c)
{
    uint64_t t0, m0, w0, t1, m1, w1;
    if (!tsc_pair(CLOCK_MONOTONIC, &t0, &m0, &w0))
        return false;
    do {
        struct timespec d = {0, (long)(MON_CLOCK_CALIBRATION_NS - (mon_clock_ns(CLOCK_MONOTONIC) - m0) +
                                       1000)};
        if (d.tv_nsec > 0 && d.tv_nsec < 1000000000L)
            while (nanosleep(&d, &d) != 0 && errno == EINTR) {
            }
        if (!tsc_pair(CLOCK_MONOTONIC, &t1, &m1, &w1))
            return false;
    } while (m1 - m0 < MON_CLOCK_CALIBRATION_NS);
    if (t1 <= t0)
        return false;
    uint64_t dt = t1 - t0, dm = m1 - m0;
    if (dt > UINT64_MAX / MON_NS_PER_S)
        return false; /* an interval of minutes: the process was stopped */
    c->freq = (dt * MON_NS_PER_S + dm / 2) / dm;
    c->cal_interval_ns = dm;
    c->cal_ticks = dt;
    c->cal_uncertainty_ns = (w0 + w1 + 1) / 2;
    c->cal_first_ticks = t0;
    c->cal_first_ns = m0;
    c->cal_first_width_ns = w0;
    return c->freq >= MON_TSC_FREQ_MIN && c->freq <= MON_TSC_FREQ_MAX;
}
#endif

bool mon_clock_refine(mon_clock *c)
{
#if MON_HAVE_TSC && defined(__SIZEOF_INT128__)
    if (!c->tsc)
        return false;
    uint64_t t1, m1, w1;
    if (!tsc_pair(CLOCK_MONOTONIC, &t1, &m1, &w1) || m1 <= c->cal_first_ns || t1 <= c->cal_first_ticks ||
        m1 - c->cal_first_ns < MON_CLOCK_REFINE_NS)
        return false;
    uint64_t dt = t1 - c->cal_first_ticks, dm = m1 - c->cal_first_ns;
    /* dt * 10^9 overflows 64 bits after ~6 s at 3 GHz. */
    unsigned __int128 f = ((unsigned __int128)dt * MON_NS_PER_S + dm / 2) / dm;
    /* The TSC is invariant: a rate far from the one measured at open
     * means the process was frozen across a suspend or migrated; keep
     * the open calibration then (1000 ppm is beyond any NTP slew). */
    uint64_t tol = c->freq / 1000;
    if (f < c->freq - tol || f > c->freq + tol)
        return false;
    c->freq = (uint64_t)f;
    c->cal_interval_ns = dm;
    c->cal_ticks = dt;
    c->cal_uncertainty_ns = (c->cal_first_width_ns + w1 + 1) / 2;
    c->refined = true;
    mon_clock_set_offset(c, c->wall_start_ns, c->start_ticks);
    return true;
#else
    (void)c;
    return false;
#endif
}

void mon_clock_init(mon_clock *c, const char *env)
{
    if (env && *env && strcmp(env, "tsc") != 0) {
        char why[160];
        snprintf(why, sizeof why, "%s=%.100s", MON_CLOCK_ENV, env);
        mon_clock_init_monotonic(c, why);
        return;
    }
#if MON_HAVE_TSC
    if (!mon_cpu_has_invariant_tsc()) {
        mon_clock_init_monotonic(c, "no invariant TSC (CPUID 0x80000007 EDX bit 8 clear)");
        return;
    }
    if (kernel_distrusts_tsc()) {
        mon_clock_init_monotonic(c, "the kernel does not list tsc among its clocksources");
        return;
    }
    memset(c, 0, sizeof *c);
    if (!tsc_calibrate(c)) {
        mon_clock_init_monotonic(c, "TSC calibration against CLOCK_MONOTONIC implausible");
        return;
    }
    c->tsc = true;
    c->resolution_ns = 1;
    uint64_t t, wall, width;
    if (!tsc_pair(CLOCK_REALTIME, &t, &wall, &width) || width > MON_CLOCK_CALIBRATION_NS) {
        mon_clock_init_monotonic(c, "CLOCK_REALTIME unsteady while reading the TSC");
        return;
    }
    c->mono_start_ns = mon_clock_ns(CLOCK_MONOTONIC);
    mon_clock_set_offset(c, wall, t);
    /* The offset is uncertain by half the bracketing window, plus one tick
     * of rounding. */
    c->precision_ticks = (width / 2 + 1) * c->freq / MON_NS_PER_S + 1;
    snprintf(c->why, sizeof c->why,
             "invariant TSC (CPUID 0x80000007 EDX bit 8), listed as a kernel clocksource");
#else
    mon_clock_init_monotonic(c, "no TSC on this architecture");
#endif
}

/* ---- the clock-skew test hook ---- */

int mon_skew_parse(const char *env, int rank, const mon_clock *c, uint64_t now, mon_skew *s,
                   char *err, size_t errlen)
{
    if (!env || !*env)
        return 0;
    long r;
    long long offset_ns;
    double ppm = 0.0;
    int used = 0;
    int n = sscanf(env, "%ld:%lld%n:%lf%n", &r, &offset_ns, &used, &ppm, &used);
    if (n < 2 || env[used] != '\0' || r < 0 || ppm <= -1e6 || ppm >= 1e6 ||
        offset_ns < -(1LL << 50) || offset_ns > (1LL << 50)) {
        snprintf(err, errlen,
                 "%s='%s': expected RANK:OFFSET_NS or RANK:OFFSET_NS:DRIFT_PPM (a rank >= 0, "
                 "an offset within 2^50 ns, a drift within +-10^6 ppm)",
                 MON_CLOCK_SKEW_ENV, env);
        return -1;
    }
    if (r != rank)
        return 0;
    /* ns to ticks of this clock, with the sign kept. */
    double ticks = (double)offset_ns * (double)c->freq / 1e9;
    *s = (mon_skew){(int64_t)ticks, ppm * 1e-6, now};
    return 1;
}
