/*
 * util.c - small helpers the visualiser's files share: error messages into
 * fixed buffers, string copies, growing arrays, output format from a file
 * name, readable durations. Kept apart so each picture's file stays about
 * its picture.
 */
#include "viz_internal.h"

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

bool viz_grow(void **items, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return true;
    size_t new_cap = *cap ? *cap : 8;
    while (new_cap < need)
        new_cap *= 2;
    void *grown = realloc(*items, new_cap * size);
    if (!grown)
        return false;
    memset((char *)grown + *cap * size, 0, (new_cap - *cap) * size);
    *items = grown;
    *cap = new_cap;
    return true;
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

/* ---- id -> index map (open addressing, linear probing) ---- */

static size_t id_slot(uint64_t id, size_t cap)
{
    id ^= id >> 33;
    id *= 0xff51afd7ed558ccdULL;
    id ^= id >> 33;
    return (size_t)(id & (cap - 1));
}

bool viz_id_map_get(const viz_id_map *m, uint64_t id, size_t *index)
{
    if (!m->cap)
        return false;
    for (size_t s = id_slot(id, m->cap);; s = (s + 1) & (m->cap - 1)) {
        if (!m->values[s])
            return false;
        if (m->keys[s] == id) {
            *index = m->values[s] - 1;
            return true;
        }
    }
}

static bool id_map_resize(viz_id_map *m, size_t cap)
{
    uint64_t *keys = calloc(cap, sizeof *keys);
    size_t *values = calloc(cap, sizeof *values);
    if (!keys || !values) {
        free(keys);
        free(values);
        return false;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->values[i])
            continue;
        size_t s = id_slot(m->keys[i], cap);
        while (values[s])
            s = (s + 1) & (cap - 1);
        keys[s] = m->keys[i];
        values[s] = m->values[i];
    }
    free(m->keys);
    free(m->values);
    m->keys = keys;
    m->values = values;
    m->cap = cap;
    return true;
}

bool viz_id_map_put(viz_id_map *m, uint64_t id, size_t index)
{
    if ((m->len + 1) * 2 > m->cap && !id_map_resize(m, m->cap ? m->cap * 2 : 64))
        return false;
    size_t s = id_slot(id, m->cap);
    while (m->values[s] && m->keys[s] != id)
        s = (s + 1) & (m->cap - 1);
    if (!m->values[s])
        m->len++;
    m->keys[s] = id;
    m->values[s] = index + 1;
    return true;
}

void viz_id_map_free(viz_id_map *m)
{
    free(m->keys);
    free(m->values);
    memset(m, 0, sizeof *m);
}
