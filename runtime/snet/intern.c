/*
 * intern.c - one copy of each label name per network, so that labels are
 * compared by pointer almost always (a strcmp per label lookup was the
 * biggest cost of a record's trip through an entity).
 *
 * The first run of a net canonicalises it: every label name in its types,
 * patterns, filters and split tags is replaced by the copy in the root's
 * table (which then owns all of them), and records from outside and from
 * boxes get the same pointers on entry (snet_run_intern_record, snet_out).
 * Names then live as long as the net, so records that left a run stay
 * valid after the run is destroyed.
 */
#include "snet_internal.h"

#include <stdlib.h>
#include <string.h>

/* The table's copy of name (added if new); NULL if out of memory.
 * Called with net->intern_lock held. */
static char *intern_locked(snet_net *net, const char *name)
{
    for (size_t i = 0; i < net->ninterned; i++)
        if (!strcmp(net->interned[i], name))
            return net->interned[i];
    if (KIT_GROW(net->interned, net->capinterned, net->ninterned + 1) != 0)
        return NULL;
    char *copy = strdup(name);
    if (copy)
        net->interned[net->ninterned++] = copy;
    return copy;
}

const char *snet_run_intern_name(snet_run *run, const char *name, size_t len)
{
    char *copy = strndup(name, len);
    if (!copy)
        return NULL;
    snet_net *net = (snet_net *)run->net;
    pthread_mutex_lock(&net->intern_lock);
    const char *interned = intern_locked(net, copy);
    pthread_mutex_unlock(&net->intern_lock);
    free(copy);
    return interned;
}

/* Inline: once per label of every record entering the network. */
static inline __attribute__((always_inline)) const char *cached_name(const snet_intern_cache *c,
                                                                     const char *name)
{
    for (unsigned i = 0; i < SNET_INTERN_CACHE_NAMES && c->names[i]; i++)
        if (snet_same_name(c->names[i], name))
            return c->names[i];
    return NULL;
}

static void cache_name(snet_intern_cache *c, const char *interned)
{
    c->names[c->next] = interned;
    c->next = (c->next + 1) % SNET_INTERN_CACHE_NAMES;
}

/* The names of r not in the cache, interned under the table's lock. */
static int intern_uncached(snet_run *run, snet_intern_cache *cache, snet_record *r)
{
    /* The net is shared read-only by the run, except for this table. */
    snet_net *net = (snet_net *)run->net;
    int rc = SNET_OK;
    pthread_mutex_lock(&net->intern_lock);
    for (size_t i = 0; i < r->count && rc == SNET_OK; i++) {
        const char *name = cache ? cached_name(cache, r->entries[i].name) : NULL;
        if (!name) {
            name = intern_locked(net, r->entries[i].name);
            if (name && cache)
                cache_name(cache, name);
        }
        if (name)
            r->entries[i].name = name;
        else
            rc = SNET_ENOMEM;
    }
    pthread_mutex_unlock(&net->intern_lock);
    return rc;
}

int snet_run_intern_record(snet_run *run, snet_intern_cache *cache, snet_record *r)
{
    size_t i = 0;
    if (cache) {
        for (; i < r->count; i++) {
            const char *name = cached_name(cache, r->entries[i].name);
            if (!name)
                break;
            r->entries[i].name = name;
        }
    }
    if (i < r->count) {
        int rc = intern_uncached(run, cache, r);
        if (rc != SNET_OK)
            return rc;
    }
    if (r->name_blob) {
        free(r->name_blob);
        r->name_blob = NULL;
        r->blob_len = 0;
    }
    return SNET_OK;
}

/* ---- walking every label name of a net -------------------------------------------- */

typedef void (*name_fn)(char **slot, void *ctx);

static void visit_type(snet_type *t, name_fn fn, void *ctx)
{
    snet_type_visit_names(t, fn, ctx);
}

static void visit_filter(snet_filter_spec *f, name_fn fn, void *ctx)
{
    snet_type pattern = {&f->pattern, 1};
    visit_type(&pattern, fn, ctx);
    for (size_t b = 0; b < f->count; b++) {
        snet_filter_branch *br = &f->branches[b];
        snet_expr_visit_names(br->guard, fn, ctx);
        for (size_t o = 0; o < br->count; o++) {
            for (size_t i = 0; i < br->outputs[o].count; i++) {
                snet_filter_op *op = &br->outputs[o].ops[i];
                fn(&op->name, ctx);
                if (op->source)
                    fn(&op->source, ctx);
                if (op->expr)
                    snet_expr_visit_names(op->expr, fn, ctx);
            }
        }
    }
}

static void visit_net(snet_net *n, name_fn fn, void *ctx)
{
    visit_type(&n->in_type, fn, ctx);
    visit_type(&n->box_in, fn, ctx);
    visit_type(&n->box_out, fn, ctx);
    visit_type(&n->exit, fn, ctx);
    visit_type(&n->patterns, fn, ctx);
    visit_filter(&n->filter, fn, ctx);
    if (n->tag)
        fn(&n->tag, ctx);
    for (size_t i = 0; i < n->nchildren; i++)
        visit_net(n->children[i], fn, ctx);
}

typedef struct canon_ctx {
    snet_net *root;
    bool failed;
} canon_ctx;

static void canonicalise_name(char **slot, void *arg)
{
    canon_ctx *c = arg;
    char *canonical = intern_locked(c->root, *slot);
    if (!canonical) {
        c->failed = true;
        return;
    }
    if (canonical != *slot) {
        free(*slot);
        *slot = canonical;
    }
}

int snet_net_canonicalise(snet_net *root)
{
    pthread_mutex_lock(&root->intern_lock);
    canon_ctx c = {root, false};
    if (!root->canonical) {
        /* The table owns the names from now on; a failure half way leaves
         * some names owned by the tree, so the flag is set only on success. */
        visit_net(root, canonicalise_name, &c);
        root->canonical = !c.failed;
    }
    pthread_mutex_unlock(&root->intern_lock);
    return c.failed ? SNET_ENOMEM : SNET_OK;
}

static void forget_name(char **slot, void *ctx)
{
    (void)ctx;
    *slot = NULL; /* owned by the table, freed with it */
}

void snet_net_release_names(snet_net *root)
{
    if (root->canonical)
        visit_net(root, forget_name, NULL);
}
