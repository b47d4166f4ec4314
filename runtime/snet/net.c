/*
 * net.c - the network builder: the calls a compiled S-Net network makes to
 * describe itself as a tree of entities (box, filter, serial, parallel,
 * star, split, sync, feedback, placement). The tree is data; run.c
 * instantiates it. The strings (signatures, filters, patterns, tags) are
 * read with the S-Net grammar of runtime/snet/lang, the same that reads
 * .snet programs.
 *
 * Builders never return NULL, so that calls can nest: an error (bad syntax,
 * a NULL argument) is stored in the node and travels up to the root, where
 * snet_net_check and snet_run_create report it.
 */
#include "snet_internal.h"

#include <stdlib.h>
#include <string.h>

/* Returned only when even a node cannot be allocated. */
static snet_net out_of_memory_net = {.kind = SNET_NODE_BOX, .error = "out of memory"};

static snet_net *node_new(snet_node_kind kind)
{
    snet_net *n = calloc(1, sizeof *n);
    if (!n)
        return &out_of_memory_net;
    n->kind = kind;
    pthread_mutex_init(&n->intern_lock, NULL);
    return n;
}

static void node_error(snet_net *n, const char *fmt, const char *detail)
{
    if (n == &out_of_memory_net || n->error)
        return;
    size_t len = strlen(fmt) + (detail ? strlen(detail) : 0) + 1;
    n->error = malloc(len);
    if (n->error)
        snprintf(n->error, len, fmt, detail ? detail : "");
}

/* The first error among the children becomes the parent's. */
static void adopt_errors(snet_net *n)
{
    for (size_t i = 0; i < n->nchildren && !n->error; i++) {
        if (!n->children[i])
            node_error(n, "a builder was given a NULL network%s", "");
        else if (n->children[i]->canonical)
            node_error(n, "a network that has been run cannot become part of another%s", "");
        else if (n->children[i]->error)
            node_error(n, "%s", n->children[i]->error);
    }
}

static int add_child(snet_net *n, snet_net *child)
{
    snet_net **grown = realloc(n->children, (n->nchildren + 1) * sizeof *grown);
    if (!grown)
        return -1;
    n->children = grown;
    n->children[n->nchildren++] = child;
    return 0;
}

static void net_free(snet_net *n);

void snet_net_free(snet_net *n)
{
    net_free(n);
}

static void net_free(snet_net *n)
{
    if (!n || n == &out_of_memory_net)
        return;
    snet_net_release_names(n); /* a net that has run: its table owns the names */
    for (size_t i = 0; i < n->nchildren; i++)
        net_free(n->children[i]);
    free(n->children);
    free(n->error);
    free(n->name);
    free(n->tag);
    snet_type_free(&n->in_type);
    snet_type_free(&n->box_in);
    snet_type_free(&n->box_out);
    snet_type_free(&n->exit);
    snet_type_free(&n->patterns);
    snet_filter_spec_free(&n->filter);
    for (size_t i = 0; i < n->ninterned; i++)
        free(n->interned[i]);
    free(n->interned);
    pthread_mutex_destroy(&n->intern_lock);
    free(n);
}

/* ---- leaves ---------------------------------------------------------------- */

snet_net *snet_box(const char *name, const char *signature, snet_box_fn fn, void *user)
{
    snet_net *n = node_new(SNET_NODE_BOX);
    if (n == &out_of_memory_net)
        return n;
    char err[512];
    n->name = strdup(name ? name : "box");
    n->fn = fn;
    n->user = user;
    if (!fn) {
        node_error(n, "box '%s' has no function", n->name);
        return n;
    }
    snet_fragment sig;
    if (snet_parse_fragment(SNET_FRAG_BOXSIG, signature, "box signature", &sig, err,
                            sizeof err) != 0) {
        node_error(n, "%s", err);
        return n;
    }
    if (snet_type_from_ast(&sig.in, false, &n->box_in, err, sizeof err) != 0 ||
        snet_type_from_ast(&sig.out, false, &n->box_out, err, sizeof err) != 0)
        node_error(n, "box signature: %s", err);
    else if (snet_type_append(&n->in_type, &n->box_in) != SNET_OK)
        node_error(n, "out of memory%s", "");
    snet_fragment_free(&sig);
    return n;
}

snet_net *snet_filter(const char *spec)
{
    snet_net *n = node_new(SNET_NODE_FILTER);
    if (n == &out_of_memory_net)
        return n;
    char err[512];
    if (snet_filter_spec_parse(spec, &n->filter, err, sizeof err) != 0) {
        node_error(n, "%s", err);
        return n;
    }
    snet_type pattern = {&n->filter.pattern, 1};
    if (!n->filter.identity && snet_type_append(&n->in_type, &pattern) != SNET_OK)
        node_error(n, "out of memory%s", "");
    if (n->filter.identity) {
        snet_variant empty = {NULL, 0, NULL};
        snet_type any = {&empty, 1};
        if (snet_type_append(&n->in_type, &any) != SNET_OK)
            node_error(n, "out of memory%s", "");
    }
    return n;
}

/* Patterns (possibly guarded) of a synchro-cell, star or feedback loop. */
static int patterns(snet_net *n, const char *text, const char *what, snet_type *out)
{
    char err[512];
    snet_fragment f;
    if (snet_parse_fragment(SNET_FRAG_PATTERNS, text, what, &f, err, sizeof err) != 0) {
        node_error(n, "%s", err);
        return -1;
    }
    int rc = snet_type_from_ast(&f.patterns, true, out, err, sizeof err);
    snet_fragment_free(&f);
    if (rc != 0) {
        size_t len = strlen(what) + strlen(err) + 3;
        char *msg = malloc(len);
        if (msg)
            snprintf(msg, len, "%s: %s", what, err);
        node_error(n, "%s", msg ? msg : err);
        free(msg);
    }
    return rc;
}

snet_net *snet_sync(const char *text)
{
    snet_net *n = node_new(SNET_NODE_SYNC);
    if (n == &out_of_memory_net)
        return n;
    if (patterns(n, text, "synchro-cell", &n->patterns) == 0 &&
        snet_type_append(&n->in_type, &n->patterns) != SNET_OK)
        node_error(n, "out of memory%s", "");
    return n;
}

/* ---- combinators ---------------------------------------------------------------- */

/* Children of the same kind (and determinism) are spliced in. */
static void add_flattened(snet_net *n, snet_net *child)
{
    if (child && child != &out_of_memory_net && child->kind == n->kind && child->det == n->det &&
        !child->error && !child->canonical && !child->routed) {
        for (size_t i = 0; i < child->nchildren; i++)
            if (add_child(n, child->children[i]) != 0)
                node_error(n, "out of memory%s", "");
        child->nchildren = 0;
        snet_net_free(child);
        return;
    }
    if (child == &out_of_memory_net)
        child = NULL;
    if (add_child(n, child) != 0) {
        snet_net_free(child);
        node_error(n, "out of memory%s", "");
    }
}

static snet_net *binary(snet_node_kind kind, bool det, snet_net *a, snet_net *b)
{
    snet_net *n = node_new(kind);
    if (n == &out_of_memory_net) {
        snet_net_free(a);
        snet_net_free(b);
        return n;
    }
    n->det = det;
    add_flattened(n, a);
    add_flattened(n, b);
    adopt_errors(n);
    if (n->error)
        return n;
    if (kind == SNET_NODE_SERIAL) {
        if (snet_type_append(&n->in_type, &n->children[0]->in_type) != SNET_OK)
            node_error(n, "out of memory%s", "");
    } else {
        for (size_t i = 0; i < n->nchildren; i++)
            if (snet_type_append(&n->in_type, &n->children[i]->in_type) != SNET_OK)
                node_error(n, "out of memory%s", "");
    }
    return n;
}

snet_net *snet_serial(snet_net *a, snet_net *b) { return binary(SNET_NODE_SERIAL, false, a, b); }
snet_net *snet_parallel(snet_net *a, snet_net *b) { return binary(SNET_NODE_PARALLEL, false, a, b); }
snet_net *snet_parallel_det(snet_net *a, snet_net *b)
{
    return binary(SNET_NODE_PARALLEL, true, a, b);
}

/* A node with one child (star, split, at). */
static snet_net *unary(snet_node_kind kind, snet_net *a)
{
    snet_net *n = node_new(kind);
    if (n == &out_of_memory_net) {
        snet_net_free(a);
        return n;
    }
    if (add_child(n, a == &out_of_memory_net ? NULL : a) != 0) {
        snet_net_free(a);
        node_error(n, "out of memory%s", "");
        return n;
    }
    adopt_errors(n);
    if (!n->error && snet_type_append(&n->in_type, &a->in_type) != SNET_OK)
        node_error(n, "out of memory%s", "");
    return n;
}

static snet_net *star(snet_net *a, const char *exit_pattern, bool det)
{
    snet_net *n = unary(SNET_NODE_STAR, a);
    if (n == &out_of_memory_net || n->error)
        return n;
    n->det = det;
    if (patterns(n, exit_pattern, "star exit pattern", &n->exit) == 0 &&
        snet_type_append(&n->in_type, &n->exit) != SNET_OK)
        node_error(n, "out of memory%s", "");
    return n;
}

snet_net *snet_star(snet_net *a, const char *exit_pattern) { return star(a, exit_pattern, false); }
snet_net *snet_star_det(snet_net *a, const char *exit_pattern)
{
    return star(a, exit_pattern, true);
}

static snet_net *split(snet_net *a, const char *tag, bool det, bool placed)
{
    snet_net *n = unary(SNET_NODE_SPLIT, a);
    if (n == &out_of_memory_net || n->error)
        return n;
    n->det = det;
    n->placed = placed;
    char err[512];
    snet_fragment f;
    if (snet_parse_fragment(SNET_FRAG_TAG, tag, "split tag", &f, err, sizeof err) != 0) {
        node_error(n, "%s", err);
        return n;
    }
    n->tag = strdup(f.tag);
    snet_fragment_free(&f);
    if (!n->tag)
        node_error(n, "out of memory%s", "");
    return n;
}

snet_net *snet_split(snet_net *a, const char *tag) { return split(a, tag, false, false); }
snet_net *snet_split_det(snet_net *a, const char *tag) { return split(a, tag, true, false); }
snet_net *snet_split_at(snet_net *a, const char *tag) { return split(a, tag, false, true); }
snet_net *snet_split_det_at(snet_net *a, const char *tag) { return split(a, tag, true, true); }

static snet_net *feedback(snet_net *a, const char *back, bool det)
{
    snet_net *n = unary(SNET_NODE_FEEDBACK, a);
    if (n == &out_of_memory_net || n->error)
        return n;
    n->det = det;
    patterns(n, back, "feedback pattern", &n->exit);
    return n;
}

snet_net *snet_feedback(snet_net *a, const char *back) { return feedback(a, back, false); }
snet_net *snet_feedback_det(snet_net *a, const char *back) { return feedback(a, back, true); }

snet_net *snet_at(snet_net *a, int worker)
{
    snet_net *n = unary(SNET_NODE_AT, a);
    if (n == &out_of_memory_net || n->error)
        return n;
    if (worker < 0)
        node_error(n, "placement @N needs N >= 0%s", "");
    n->worker = worker;
    return n;
}

snet_net *snet_at_rank(snet_net *a, int rank)
{
    snet_net *n = unary(SNET_NODE_AT, a);
    if (n == &out_of_memory_net || n->error)
        return n;
    if (rank < 0)
        node_error(n, "rank placement @N needs N >= 0%s", "");
    n->worker = rank;
    n->at_rank = true;
    return n;
}

/* The routing type replaces what the net's first entity takes: it is the
 * type the parallel dispatcher (parallel.c) and messages use, the one
 * mechanism by which records choose branches. */
snet_net *snet_routed(snet_net *a, const char *type)
{
    if (!a) {
        snet_net *n = node_new(SNET_NODE_BOX);
        node_error(n, "snet_routed was given a NULL network%s", "");
        return n;
    }
    if (a == &out_of_memory_net || a->error)
        return a;
    if (a->canonical || !type) {
        node_error(a, "%s", a->canonical ? "a network that has been run cannot be given a "
                   "routing type" : "snet_routed was given no type (\"\" for none)");
        return a;
    }
    snet_type t = {NULL, 0};
    if (*snet_skip_space(type)) {
        char err[512];
        snet_fragment f;
        if (snet_parse_fragment(SNET_FRAG_PATTERNS, type, "routing type", &f, err, sizeof err)
            != 0) {
            node_error(a, "%s", err);
            return a;
        }
        int rc = snet_type_from_ast(&f.patterns, false, &t, err, sizeof err);
        snet_fragment_free(&f);
        if (rc != 0) {
            node_error(a, "routing type: %s", err);
            return a;
        }
    }
    snet_type_free(&a->in_type);
    a->in_type = t;
    a->routed = true;
    return a;
}

/* ---- inspection ----------------------------------------------------------------- */

const char *snet_net_check(const snet_net *net)
{
    if (!net)
        return "no network (NULL)";
    return net->error;
}

int snet_net_input_type(const snet_net *net, char *buf, size_t len)
{
    if (!net || net->error || !buf || len == 0)
        return SNET_EINVAL;
    snet_type_text(&net->in_type, buf, len);
    return SNET_OK;
}
