/*
 * axis.c - the time axis: tick steps of 1, 2 or 5 times a power of ten, the
 * unit a step reads best in, and tick labels with just enough decimals, so
 * the axis says "0 ms, 2 ms, 4 ms" rather than "0, 2000000, 4000000".
 */
#include "viz_internal.h"

#include <math.h>

viz_time viz_axis_step(viz_time span, int max_ticks)
{
    if (span <= 0 || max_ticks < 1)
        return 1;
    double raw = (double)span / max_ticks;
    double power = pow(10.0, floor(log10(raw)));
    static const double multiples[] = {1, 2, 5, 10};
    for (size_t i = 0; i < sizeof multiples / sizeof multiples[0]; i++) {
        double step = multiples[i] * power;
        if (step >= raw)
            return step < 1 ? 1 : (viz_time)llround(step);
    }
    return (viz_time)llround(10 * power);
}

viz_axis_unit viz_axis_unit_for(viz_time magnitude)
{
    if (magnitude >= 1000000000)
        return (viz_axis_unit){"s", 1e9};
    if (magnitude >= 1000000)
        return (viz_axis_unit){"ms", 1e6};
    if (magnitude >= 1000)
        return (viz_axis_unit){"µs", 1e3};
    return (viz_axis_unit){"ns", 1};
}

void viz_axis_label(viz_time value, viz_time step, viz_axis_unit unit, char *buf, size_t len)
{
    /* decimals needed to tell ticks apart: step 500 µs in ms -> 1 decimal */
    if (value == 0) {
        snprintf(buf, len, "0");
        return;
    }
    double step_in_unit = (double)step / unit.ns;
    int decimals = 0;
    while (decimals < 6) {
        double scaled = step_in_unit * pow(10, decimals);
        if (fabs(scaled - llround(scaled)) < 1e-6)
            break;
        decimals++;
    }
    snprintf(buf, len, "%.*f %s", decimals, (double)value / unit.ns, unit.name);
}
