/*
 * util.c - small helpers the visualiser's files share: error messages into
 * fixed buffers, string copies, output format from a file
 * name, readable durations. Kept apart so each picture's file stays about
 * its picture.
 */
#include "viz_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void viz_set_error(char *buf, size_t len, const char *fmt, ...)
{
    if (!buf || len == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

char *viz_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *copy = malloc(n);
    if (copy)
        memcpy(copy, s, n);
    return copy;
}

cairo_status_t viz_cairo_write_file(void *closure, const unsigned char *data, unsigned int length)
{
    return fwrite(data, 1, length, closure) == length ? CAIRO_STATUS_SUCCESS
                                                      : CAIRO_STATUS_WRITE_ERROR;
}

viz_format viz_format_from_path(const char *path)
{
    const char *dot = path ? strrchr(path, '.') : NULL;
    if (!dot)
        return VIZ_FMT_UNKNOWN;
    if (!strcasecmp(dot, ".png"))
        return VIZ_FMT_PNG;
    if (!strcasecmp(dot, ".svg"))
        return VIZ_FMT_SVG;
    if (!strcasecmp(dot, ".dot") || !strcasecmp(dot, ".gv"))
        return VIZ_FMT_DOT;
    return VIZ_FMT_UNKNOWN;
}

void viz_format_duration(viz_time ns, char *buf, size_t len)
{
    static const struct {
        const char *name;
        double ns;
    } units[] = {{"s", 1e9}, {"ms", 1e6}, {"µs", 1e3}};
    if (ns == 0) {
        snprintf(buf, len, "0");
        return;
    }
    double value = (double)ns;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (value >= units[i].ns || value <= -units[i].ns) {
            double v = value / units[i].ns;
            /* three significant digits: 1.25 ms, 12.5 ms, 125 ms */
            int decimals = (v >= 100 || v <= -100) ? 0 : (v >= 10 || v <= -10) ? 1 : 2;
            snprintf(buf, len, "%.*f %s", decimals, v, units[i].name);
            return;
        }
    }
    snprintf(buf, len, "%lld ns", (long long)ns);
}

bool viz_parse_duration(const char *text, viz_time *out)
{
    if (!text || !*text)
        return false;
    char *end;
    double value = strtod(text, &end);
    if (end == text)
        return false;
    static const struct {
        const char *suffix;
        double ns;
    } units[] = {{"", 1}, {"ns", 1}, {"us", 1e3}, {"µs", 1e3}, {"ms", 1e6}, {"s", 1e9}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (!strcmp(end, units[i].suffix)) {
            double ns = value * units[i].ns;
            if (ns > 9.2e18 || ns < -9.2e18)
                return false;
            *out = (viz_time)(ns + (ns >= 0 ? 0.5 : -0.5));
            return true;
        }
    }
    return false;
}

static const char *const end_labels[VIZ_END_COUNT] = {
    "blocked in", "blocked out", "blocked any", "yielded", "destroyed", "open"};
static const char *const end_tokens[VIZ_END_COUNT] = {"input", "output", "any",
                                                      "yield", "destroy", "open"};

const char *viz_period_end_label(viz_period_end how)
{
    return (unsigned)how < VIZ_END_COUNT ? end_labels[how] : "?";
}

const char *viz_period_end_token(viz_period_end how)
{
    return (unsigned)how < VIZ_END_COUNT ? end_tokens[how] : "?";
}

bool viz_period_end_parse(const char *token, viz_period_end *how)
{
    for (int i = 0; i < VIZ_END_COUNT; i++) {
        if (!strcmp(token, end_tokens[i])) {
            *how = (viz_period_end)i;
            return true;
        }
    }
    return false;
}

