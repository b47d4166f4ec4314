/*
 * dag_text.c - reader for a small DAG text format, so that a critical-path
 * graph can be drawn from a file (tests, hand-made examples, other tools)
 * that is not a workflow-bridge graph:
 *
 *   vertex ID DURATION LABEL...   DURATION in ns, or '-' if unknown
 *   edge FROM TO
 *   path ID ID ...                the critical path, first to last
 *
 * '#' starts a comment line; blank lines are ignored.
 */
#include "viz_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool next_u64(char **cursor, uint64_t *out)
{
    char *s = *cursor + strspn(*cursor, " \t\r\n"), *end;
    if (!*s || *s == '-')
        return false;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || (*end && !strchr(" \t\r\n", *end)))
        return false;
    *out = v;
    *cursor = end;
    return true;
}

static int read_vertex(viz_dag *dag, char *rest, char *err, size_t errlen, const char *where)
{
    uint64_t id;
    viz_time duration = -1;
    if (!next_u64(&rest, &id)) {
        viz_set_error(err, errlen, "%s: expected 'vertex ID DURATION LABEL'", where);
        return VIZ_EFORMAT;
    }
    rest += strspn(rest, " \t");
    if (*rest == '-' && (rest[1] == ' ' || rest[1] == '\t')) {
        rest += 1;
    } else {
        uint64_t d;
        if (!next_u64(&rest, &d)) {
            viz_set_error(err, errlen, "%s: bad duration (ns or '-')", where);
            return VIZ_EFORMAT;
        }
        duration = (viz_time)d;
    }
    rest += strspn(rest, " \t");
    rest[strcspn(rest, "\r\n")] = '\0';
    if (viz_dag_add_vertex(dag, id, rest, duration) != VIZ_OK) {
        viz_set_error(err, errlen, "%s: %s", where, viz_dag_error(dag));
        return VIZ_EFORMAT;
    }
    return VIZ_OK;
}

static int read_edge(viz_dag *dag, char *rest, char *err, size_t errlen, const char *where)
{
    uint64_t from, to;
    if (!next_u64(&rest, &from) || !next_u64(&rest, &to)) {
        viz_set_error(err, errlen, "%s: expected 'edge FROM TO'", where);
        return VIZ_EFORMAT;
    }
    if (viz_dag_add_edge(dag, from, to) != VIZ_OK) {
        viz_set_error(err, errlen, "%s: %s", where, viz_dag_error(dag));
        return VIZ_EFORMAT;
    }
    return VIZ_OK;
}

static int read_path(viz_dag *dag, char *rest, char *err, size_t errlen, const char *where)
{
    uint64_t *ids = NULL, id;
    size_t len = 0, cap = 0;
    int rc = VIZ_OK;
    while (rc == VIZ_OK && next_u64(&rest, &id)) {
        if (KIT_GROW_ZEROED(ids, cap, len + 1) != 0)
            rc = VIZ_ENOMEM;
        else
            ids[len++] = id;
    }
    if (rc == VIZ_OK && rest[strspn(rest, " \t\r\n")]) {
        viz_set_error(err, errlen, "%s: bad vertex id in path", where);
        rc = VIZ_EFORMAT;
    } else if (rc == VIZ_OK && viz_dag_set_critical_path(dag, ids, len) != VIZ_OK) {
        viz_set_error(err, errlen, "%s: %s", where, viz_dag_error(dag));
        rc = VIZ_EFORMAT;
    } else if (rc == VIZ_ENOMEM) {
        viz_set_error(err, errlen, "%s: out of memory", where);
    }
    free(ids);
    return rc;
}

int viz_read_dag_text(FILE *in, const char *name, viz_dag *dag, char *err, size_t errlen)
{
    char *line = NULL, where[300];
    size_t cap = 0;
    unsigned long number = 0;
    int rc = VIZ_OK;
    while (rc == VIZ_OK && getline(&line, &cap, in) > 0) {
        number++;
        snprintf(where, sizeof where, "%s:%lu", name ? name : "input", number);
        char *p = line + strspn(line, " \t");
        size_t word = strcspn(p, " \t\r\n");
        if (!word || *p == '#')
            continue;
        if (word == 6 && !strncmp(p, "vertex", 6))
            rc = read_vertex(dag, p + 6, err, errlen, where);
        else if (word == 4 && !strncmp(p, "edge", 4))
            rc = read_edge(dag, p + 4, err, errlen, where);
        else if (word == 4 && !strncmp(p, "path", 4))
            rc = read_path(dag, p + 4, err, errlen, where);
        else {
            p[word] = '\0';
            viz_set_error(err, errlen, "%s: unknown record '%s' (vertex|edge|path)", where, p);
            rc = VIZ_EFORMAT;
        }
    }
    free(line);
    return rc;
}
