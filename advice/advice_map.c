/*
 * advice_map.c - writes an advised mapping as a mapping file
 * (docs/MAPPING.md): short, readable, and exact for every task of the
 * trace.
 *
 * The task names form a tree of net-path components. A subtree whose tasks
 * all go to one worker becomes one line "PATH:** W"; a family of replicas
 * (R0, R1, ... or I0, I1, ...) whose subtrees all go to one worker becomes
 * "PATH:R*:** W", after the lines of the family members that go elsewhere
 * (the first matching line wins); any other task gets its exact name. So
 * the first line that matches a task of the trace always gives the worker
 * the advice chose for it, which the tests check through the runtime's own
 * matcher (tests/advise).
 */
#include "advice_internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

enum { MIXED = -1, EMPTY = -2 };

typedef struct node {
    char *comp;          /* the component, as written in a pattern */
    struct node **kids;
    size_t n_kids, cap_kids;
    int is_task;         /* a name ends here */
    uint32_t worker;     /* its advised worker */
    long uniform;        /* the one worker of every task below, MIXED or EMPTY */
} node;

typedef struct writer {
    FILE *out;
    char *path;          /* the current prefix */
    size_t cap;
    size_t lines;
    int failed;
} writer;

static void node_free(node *n)
{
    for (size_t i = 0; i < n->n_kids; i++)
        node_free(n->kids[i]);
    free(n->kids);
    free(n->comp);
    free(n);
}

/* A component as a pattern: characters the format refuses or reads as
 * syntax become '?', which matches any one character. */
static char *pattern_comp(const char *s, size_t len)
{
    char *c = malloc(len + 1);
    if (!c)
        return NULL;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        c[i] = strchr("[]{}\\#", ch) || isspace(ch) || !ch ? '?' : (char)ch;
    }
    c[len] = '\0';
    if (!strcmp(c, "**"))
        c[1] = '?';
    return c;
}

static node *child(node *n, const char *s, size_t len)
{
    char *comp = pattern_comp(s, len);
    if (!comp)
        return NULL;
    for (size_t i = 0; i < n->n_kids; i++)
        if (!strcmp(n->kids[i]->comp, comp)) {
            free(comp);
            return n->kids[i];
        }
    node *k = calloc(1, sizeof *k);
    if (!k || KIT_GROW(n->kids, n->cap_kids, n->n_kids + 1)) {
        free(k);
        free(comp);
        return NULL;
    }
    k->comp = comp;
    k->uniform = EMPTY;
    n->kids[n->n_kids++] = k;
    return k;
}

/* Adds a name; 1 when it cannot be a pattern (an empty component), -1 out
 * of memory. */
static int add_name(node *root, const char *name, uint32_t worker)
{
    size_t len = strlen(name);
    if (!len || name[0] == ':' || name[len - 1] == ':' || strstr(name, "::"))
        return 1;
    node *n = root;
    for (const char *p = name; n && *p;) {
        const char *end = strchr(p, ':');
        size_t l = end ? (size_t)(end - p) : strlen(p);
        n = child(n, p, l);
        p += l + (end ? 1 : 0);
    }
    if (!n)
        return -1;
    n->is_task = 1;
    n->worker = worker;
    return 0;
}

/* The letters before a trailing index ("R" of "R12", "I" of "I-3"); 0
 * when the component has no index. */
static size_t family_len(const char *comp)
{
    size_t n = strlen(comp), i = n;
    while (i > 0 && isdigit((unsigned char)comp[i - 1]))
        i--;
    if (i == n || i == 0)
        return 0;
    if (comp[i - 1] == '-')
        i--;
    return i;
}

/* Natural order: family letters, then the index as a number. */
static int by_component(const void *x, const void *y)
{
    const node *a = *(node *const *)x, *b = *(node *const *)y;
    size_t fa = family_len(a->comp), fb = family_len(b->comp);
    if (fa && fb && fa == fb && !strncmp(a->comp, b->comp, fa)) {
        long ia = strtol(a->comp + fa, NULL, 10), ib = strtol(b->comp + fb, NULL, 10);
        if (ia != ib)
            return (ia > ib) - (ia < ib);
    }
    return strcmp(a->comp, b->comp);
}

static long settle(node *n)
{
    long u = n->is_task ? (long)n->worker : EMPTY;
    if (n->n_kids > 1)
        qsort(n->kids, n->n_kids, sizeof *n->kids, by_component);
    for (size_t i = 0; i < n->n_kids; i++) {
        long k = settle(n->kids[i]);
        if (k == EMPTY)
            continue;
        u = u == EMPTY ? k : u == k ? u : MIXED;
    }
    return n->uniform = u;
}

/* ---- writing ---- */

static void line(writer *w, const char *suffix, uint32_t worker)
{
    char pat[4096];
    int n = snprintf(pat, sizeof pat, "%s%s%s", w->path, *w->path && *suffix ? ":" : "", suffix);
    if (n < 0 || (size_t)n >= sizeof pat || fprintf(w->out, "%-40s %u\n", pat, worker) < 0)
        w->failed = 1;
    w->lines++;
}

static int push(writer *w, const char *comp, size_t *saved)
{
    size_t have = strlen(w->path), need = have + strlen(comp) + 2;
    if (KIT_GROW(w->path, w->cap, need))
        return -1;
    *saved = have;
    if (have)
        strcat(w->path, ":");
    strcat(w->path, comp);
    return 0;
}

static void emit(writer *w, const node *n);

/* A family of n's children: the members whose subtree all goes to the
 * family's most common worker share one "KEY*:**" line, after the lines of
 * the members that go elsewhere. Returns whether it wrote the family. */
static int emit_family(writer *w, const node *n, size_t key_len, const char *key,
                       char *covered)
{
    size_t count[64] = {0}, best = 0;
    long best_w = -1;
    for (size_t i = 0; i < n->n_kids; i++) {
        const node *k = n->kids[i];
        if (covered[i] || strncmp(k->comp, key, key_len) || k->uniform < 0 || k->uniform >= 64)
            continue;
        if (++count[k->uniform] > best) {
            best = count[k->uniform];
            best_w = k->uniform;
        }
    }
    if (best < 2)
        return 0;
    for (size_t i = 0; i < n->n_kids; i++) {
        const node *k = n->kids[i];
        if (covered[i] || strncmp(k->comp, key, key_len))
            continue;
        if (k->uniform != best_w)
            emit(w, k);
        covered[i] = 1;
    }
    char glob[4096];
    snprintf(glob, sizeof glob, "%.*s*:**", (int)key_len, key);
    line(w, glob, (uint32_t)best_w);
    return 1;
}

static void emit_kids(writer *w, const node *n)
{
    char *covered = calloc(n->n_kids ? n->n_kids : 1, 1);
    if (!covered) {
        w->failed = 1;
        return;
    }
    for (size_t i = 0; i < n->n_kids; i++) {
        size_t fl = family_len(n->kids[i]->comp);
        if (!covered[i] && fl) {
            char key[4096];
            snprintf(key, sizeof key, "%.*s", (int)fl, n->kids[i]->comp);
            emit_family(w, n, fl, key, covered);
        }
    }
    for (size_t i = 0; i < n->n_kids; i++)
        if (!covered[i])
            emit(w, n->kids[i]);
    free(covered);
}

static void emit(writer *w, const node *n)
{
    size_t saved = 0;
    if (n->comp && push(w, n->comp, &saved)) {
        w->failed = 1;
        return;
    }
    if (n->uniform >= 0) {
        line(w, "**", (uint32_t)n->uniform);
    } else if (n->uniform == MIXED) {
        if (n->is_task)
            line(w, "", n->worker);
        emit_kids(w, n);
    }
    if (n->comp)
        w->path[saved] = '\0';
}

static void header(const advice_result *a, const char *source, FILE *out, size_t skipped)
{
    fprintf(out,
            "# Mapping advised by `snetmon advise` from the trace %s (run %u, %u workers).\n"
            "# The model of docs/METRICS.md (\"Mapping advice\") predicts a span of %.6g s\n"
            "# with this mapping, %.6g s with the trace's. Format: docs/MAPPING.md; run the same\n"
            "# program with -w %u --map FILE. Tasks the trace did not have keep their\n"
            "# default placement unless a line with a wildcard matches them.\n"
            "workers %u      # the workers it is for: a run with another number warns\n",
            source ? source : "(unnamed)", (unsigned)a->run, a->workers,
            a->change ? advice_span_advised(a) : advice_span_now(a),
            advice_span_now(a),
            a->workers, a->workers);
    if (skipped)
        fprintf(out, "# %zu task name(s) with an empty path component cannot be written as a\n"
                     "# pattern; those tasks keep their default placement.\n",
                skipped);
}

int advice_write_mapping(const advice_result *a, const char *source, FILE *out, size_t *lines)
{
    node *root = calloc(1, sizeof *root);
    writer w = {out, calloc(1, 64), 64, 0, 0};
    size_t skipped = 0;
    int rc = root && w.path ? 0 : -1;
    if (root)
        root->uniform = EMPTY;
    for (size_t i = 0; i < a->n_groups && rc == 0; i++) {
        int r = add_name(root, a->groups[i].name, a->groups[i].worker_advised);
        if (r < 0)
            rc = -1;
        skipped += r == 1;
    }
    if (rc == 0) {
        settle(root);
        header(a, source, out, skipped);
        emit(&w, root);
        rc = w.failed || ferror(out) ? -1 : 0;
    }
    if (lines)
        *lines = w.lines;
    if (root)
        node_free(root);
    free(w.path);
    return rc;
}
