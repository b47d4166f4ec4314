/*
 * infer.c - record types along the network. Starting from the record types
 * the main net takes, every entity is asked what it makes of each record
 * type that can reach it, with the runtime's own rules: a record matches a
 * variant when it has all its labels (and the variant names every binding
 * tag it carries); the best match (most labels) wins; labels an entity does
 * not consume are flow-inherited into its outputs. A record type no branch,
 * box input or filter pattern accepts is a type error at that entity - the
 * error the runtime would otherwise report for the first such record.
 *
 * Record types are sets of labels; the sets a network can produce are
 * finite (no entity invents labels), so the loops of star and feedback
 * reach a fixpoint. Guards cannot be decided statically: a guarded pattern
 * may or may not match, and both outcomes are followed. A budget on the
 * number of record types keeps pathological networks from taking long; if
 * it runs out the check stops with a note rather than an error.
 *
 * Instances matter for synchro-cells, which merge what they store: each
 * replica of a star is its own instance (analysed stage by stage), while a
 * feedback loop feeds one instance of its operand (analysed with all the
 * types that ever reach it).
 */
#include "lang_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define TYPE_BUDGET 20000 /* record types the inference may create */
#define MAX_STAGES 64     /* star stages followed before assuming a fixpoint */
#define MAX_MERGES 64     /* synchro-cell merge combinations enumerated */

struct memo_entry {
    tset in, out;
};

typedef enum match { NO_MATCH, MAY_MATCH, MATCHES } match;

/* ---- labels and record types -------------------------------------------------- */

static int label_id(snet_lang_program *p, const char *name, snet_ast_label_kind kind)
{
    for (size_t i = 0; i < p->nlabels; i++)
        if (p->label_kinds[i] == kind && !strcmp(p->label_names[i], name))
            return (int)i;
    size_t n = p->nlabels;
    if (!lang_push(p, (void **)&p->label_names, &n, sizeof name, &name))
        return -1;
    n = p->nlabels;
    if (!lang_push(p, (void **)&p->label_kinds, &n, sizeof kind, &kind))
        return -1;
    return (int)p->nlabels++;
}

static int compare_ids(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* A record type from ids (sorted and deduplicated here); NULL when the
 * budget or memory runs out. */
static rtype *rt_make(snet_lang_program *p, int *ids, size_t n)
{
    if (p->budget == 0) {
        p->gave_up = true;
        return NULL;
    }
    p->budget--;
    qsort(ids, n, sizeof *ids, compare_ids);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (ids[i] >= 0 && (k == 0 || ids[k - 1] != ids[i]))
            ids[k++] = ids[i];
    rtype *t = lang_alloc(p, sizeof *t + k * sizeof(int));
    if (!t)
        return NULL;
    t->n = k;
    memcpy(t->ids, ids, k * sizeof(int));
    return t;
}

static bool rt_has(const rtype *t, int id)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (t->ids[mid] == id)
            return true;
        if (t->ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

static bool rt_equal(const rtype *a, const rtype *b)
{
    return a->n == b->n && !memcmp(a->ids, b->ids, a->n * sizeof(int));
}

static bool rt_subset(const rtype *a, const rtype *b)
{
    for (size_t i = 0; i < a->n; i++)
        if (!rt_has(b, a->ids[i]))
            return false;
    return true;
}

/* (a \ minus) + plus: an output plus what it inherits. */
static rtype *rt_inherit(snet_lang_program *p, const rtype *plus, const rtype *a,
                         const rtype *minus)
{
    int *ids = malloc((plus->n + a->n + 1) * sizeof *ids);
    if (!ids) {
        p->nomem = true;
        return NULL;
    }
    size_t n = 0;
    for (size_t i = 0; i < plus->n; i++)
        ids[n++] = plus->ids[i];
    for (size_t i = 0; i < a->n; i++)
        if (!minus || !rt_has(minus, a->ids[i]))
            ids[n++] = a->ids[i];
    rtype *t = rt_make(p, ids, n);
    free(ids);
    return t;
}

static bool is_btag(const snet_lang_program *p, int id) { return p->label_kinds[id] == SNET_AST_BTAG; }

/* Score of variant v against record type r, -1 when it does not match. */
static long rt_match(const snet_lang_program *p, const rtype *v, const rtype *r)
{
    if (!rt_subset(v, r))
        return -1;
    for (size_t i = 0; i < r->n; i++)
        if (is_btag(p, r->ids[i]) && !rt_has(v, r->ids[i]))
            return -1;
    return (long)v->n;
}

/* ---- sets ------------------------------------------------------------------------ */

static bool ts_contains(const tset *s, const rtype *t)
{
    for (size_t i = 0; i < s->n; i++)
        if (rt_equal(s->items[i], t))
            return true;
    return false;
}

/* true if t was new */
static bool ts_add(snet_lang_program *p, tset *s, rtype *t)
{
    if (!t || ts_contains(s, t))
        return false;
    return lang_push(p, (void **)&s->items, &s->n, sizeof t, &t);
}

static void ts_add_all(snet_lang_program *p, tset *dst, const tset *src)
{
    for (size_t i = 0; i < src->n; i++)
        ts_add(p, dst, src->items[i]);
}

static bool ts_same(const tset *a, const tset *b)
{
    if (a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n; i++)
        if (!ts_contains(b, a->items[i]))
            return false;
    return true;
}

/* ---- printing ------------------------------------------------------------------------ */

static void print_rtype(const snet_lang_program *p, const rtype *t, FILE *out)
{
    fputc('{', out);
    for (size_t i = 0; i < t->n; i++) {
        int id = t->ids[i];
        snet_ast_label_kind k = p->label_kinds[id];
        fprintf(out, "%s%s%s%s", i ? ", " : "", k == SNET_AST_FIELD ? "" : k == SNET_AST_TAG ? "<" : "<#",
                p->label_names[id], k == SNET_AST_FIELD ? "" : ">");
    }
    fputc('}', out);
}

void lang_print_tset(const snet_lang_program *p, const tset *t, FILE *out)
{
    if (t->n == 0)
        fputs("(none)", out);
    for (size_t i = 0; i < t->n; i++) {
        if (i)
            fputs(" | ", out);
        print_rtype(p, t->items[i], out);
    }
}

/* Record types and types as text for messages (a static buffer per call site
 * would not do: messages print two). */
static char *tset_text(const snet_lang_program *p, const tset *t)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    lang_print_tset(p, t, f);
    fclose(f);
    return buf;
}

static char *rtype_text(const snet_lang_program *p, const rtype *r)
{
    tset one = {(rtype **)&r, 1};
    return tset_text(p, &one);
}

static char *type_text(const snet_ast_type *t)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    snet_ast_print_type(f, t, " | ");
    fclose(f);
    return buf;
}

/* ---- variants --------------------------------------------------------------------------- */

struct variant_slot {
    const snet_ast_variant *v;
    rtype *t;
};

static uint64_t variant_hash(const snet_ast_variant *v) { return (uint64_t)(uintptr_t)v >> 4; }

typedef struct variant_probe {
    const snet_lang_program *p;
    const snet_ast_variant *v;
} variant_probe;

static bool same_variant(const void *ctx, uint32_t i)
{
    const variant_probe *probe = ctx;
    return probe->p->vcache[i].v == probe->v;
}

static uint64_t stored_variant_hash(const void *ctx, uint32_t i)
{
    const snet_lang_program *p = ctx;
    return variant_hash(p->vcache[i].v);
}

static void cache_put(snet_lang_program *p, const snet_ast_variant *v, rtype *t)
{
    if (kit_index_map_reserve(&p->vcache_map, stored_variant_hash, p) != 0) {
        p->nomem = true;
        return;
    }
    if (!lang_push(p, (void **)&p->vcache, &p->vcache_used, sizeof *p->vcache,
                   &(struct variant_slot){v, t}))
        return;
    /* Cannot fail: reserved above. */
    kit_index_map_insert(&p->vcache_map, variant_hash(v), (uint32_t)(p->vcache_used - 1),
                          stored_variant_hash, p);
}

static rtype *make_variant_rtype(snet_lang_program *p, const snet_ast_variant *v);

/* The record type of a declared variant (cached: variants do not move). */
static rtype *variant_rtype(snet_lang_program *p, const snet_ast_variant *v)
{
    variant_probe probe = {p, v};
    uint32_t i = kit_index_map_find(&p->vcache_map, variant_hash(v), same_variant, &probe);
    if (i != UINT32_MAX)
        return p->vcache[i].t;
    rtype *t = make_variant_rtype(p, v);
    if (t)
        cache_put(p, v, t);
    return t;
}

static rtype *make_variant_rtype(snet_lang_program *p, const snet_ast_variant *v)
{
    int stack[16];
    int *ids = v->count <= 16 ? stack : malloc(v->count * sizeof *ids);
    if (!ids) {
        p->nomem = true;
        return NULL;
    }
    for (size_t i = 0; i < v->count; i++)
        ids[i] = label_id(p, v->labels[i].name, v->labels[i].kind);
    size_t budget = p->budget;
    p->budget = 1; /* declared types do not count against the budget */
    rtype *t = rt_make(p, ids, v->count);
    p->budget = budget;
    if (ids != stack)
        free(ids);
    return t;
}

/* How r matches a list of patterns: surely, perhaps (guards), or not. */
static match patterns_match(snet_lang_program *p, const snet_ast_type *pats, const rtype *r)
{
    match m = NO_MATCH;
    for (size_t i = 0; i < pats->count; i++) {
        rtype *v = variant_rtype(p, &pats->variants[i]);
        if (!v || rt_match(p, v, r) < 0)
            continue;
        if (!pats->variants[i].guard)
            return MATCHES;
        m = MAY_MATCH;
    }
    return m;
}

/* The best variant of t for r (first of equals), -1 if none. */
static long best_variant(snet_lang_program *p, const snet_ast_type *t, const rtype *r, long *score)
{
    long best = -1, best_score = -1;
    for (size_t i = 0; i < t->count; i++) {
        rtype *v = variant_rtype(p, &t->variants[i]);
        long s = v ? rt_match(p, v, r) : -1;
        if (s > best_score) {
            best = (long)i;
            best_score = s;
        }
    }
    if (score)
        *score = best_score;
    return best;
}

/* ---- what a net accepts (the runtime's input types, net.c) ---------------------------------- */

static void append_type(snet_lang_program *p, vlist *out, const snet_ast_type *t)
{
    for (size_t i = 0; i < t->count; i++) {
        const snet_ast_variant *v = &t->variants[i];
        lang_push(p, (void **)&out->v, &out->n, sizeof v, &v);
    }
}

void lang_accepts(snet_lang_program *p, const snet_ast_net *n, vlist *out)
{
    lang_accepts_ex(p, n, out, true);
}

void lang_accepts_ex(snet_lang_program *p, const snet_ast_net *n, vlist *out, bool exits)
{
    static const snet_ast_variant anything = {0}; /* [] takes every record */
    switch (n->kind) {
    case SNET_N_REF: {
        const node_info *ni = n->info;
        if (!ni || !ni->def)
            return;
        def_info *d = lang_def(ni->def);
        if (ni->def->kind == SNET_D_BOX)
            append_type(p, out, &d->box_in);
        else if (d->has_sig)
            for (size_t i = 0; i < d->sig.count; i++)
                append_type(p, out, &d->sig.maps[i].in);
        else if (ni->def->body && !d->visiting)
            lang_accepts_ex(p, ni->def->body, out, exits);
        return;
    }
    case SNET_N_FILTER: {
        const snet_ast_variant *v = n->filter.identity ? &anything : &n->filter.pattern;
        lang_push(p, (void **)&out->v, &out->n, sizeof v, &v);
        return;
    }
    case SNET_N_SYNC: append_type(p, out, &n->patterns); return;
    case SNET_N_PARALLEL:
        lang_accepts_ex(p, n->a, out, exits);
        lang_accepts_ex(p, n->b, out, exits);
        return;
    case SNET_N_STAR:
        lang_accepts_ex(p, n->a, out, exits);
        if (exits)
            append_type(p, out, &n->patterns);
        return;
    default: lang_accepts_ex(p, n->a, out, exits); return;
    }
}

/* The best of the variants for r (first of equals), -1 if none. */
static long best_of(snet_lang_program *p, const vlist *l, const rtype *r, long *score)
{
    long best = -1, best_score = -1;
    for (size_t i = 0; i < l->n; i++) {
        rtype *v = variant_rtype(p, l->v[i]);
        long s = v ? rt_match(p, v, r) : -1;
        if (s > best_score) {
            best = (long)i;
            best_score = s;
        }
    }
    if (score)
        *score = best_score;
    return best;
}

static char *vlist_text(const vlist *l)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    for (size_t i = 0; i < l->n; i++) {
        if (i)
            fputs(" | ", f);
        snet_ast_print_variant(f, l->v[i]);
    }
    fclose(f);
    return buf;
}

/* In a trial run: note the labels r lacks for the closest of vs. */
static void suggest(snet_lang_program *p, const vlist *vs, const rtype *r)
{
    if (p->missing)
        return;
    /* The closest variant: the most labels in common, then the fewest missing. */
    size_t best_n = (size_t)-1, best_common = 0;
    const rtype *best = NULL;
    for (size_t i = 0; i < vs->n; i++) {
        rtype *v = variant_rtype(p, vs->v[i]);
        size_t lacking = 0;
        for (size_t k = 0; v && k < v->n; k++)
            lacking += !rt_has(r, v->ids[k]);
        size_t common = v ? v->n - lacking : 0;
        if (v && lacking > 0 &&
            (!best || common > best_common || (common == best_common && lacking < best_n))) {
            best_n = lacking;
            best_common = common;
            best = v;
        }
    }
    if (!best)
        return;
    int *ids = malloc(best->n * sizeof *ids);
    size_t n = 0;
    if (!ids) {
        p->nomem = true;
        return;
    }
    for (size_t k = 0; k < best->n; k++)
        if (!rt_has(r, best->ids[k]))
            ids[n++] = best->ids[k];
    p->missing = rt_make(p, ids, n);
    free(ids);
}

static vlist type_list(snet_lang_program *p, const snet_ast_type *t)
{
    vlist l = {0};
    append_type(p, &l, t);
    return l;
}

/* ---- inference ------------------------------------------------------------------------------ */

static tset infer(snet_lang_program *p, snet_ast_net *n, const tset *in);

static bool first_error(snet_lang_program *p, snet_ast_net *n)
{
    node_info *ni = lang_node(p, n);
    if (!ni || ni->reported || p->gave_up || p->quiet)
        return false;
    ni->reported = true;
    return true;
}

static void infer_box(snet_lang_program *p, snet_ast_net *n, const snet_ast_def *box,
                      const rtype *r, tset *out)
{
    def_info *d = lang_def(box);
    long v = best_variant(p, &d->box_in, r, NULL);
    if (v < 0) {
        if (p->quiet) {
            vlist l = type_list(p, &d->box_in);
            suggest(p, &l, r);
        }
        if (first_error(p, n)) {
            char *rt = rtype_text(p, r), *tt = type_text(&d->box_in);
            lang_error(p, n->at, "records %s reach box '%s', which takes %s", rt ? rt : "?",
                       box->name, tt ? tt : "?");
            free(rt);
            free(tt);
        }
        return;
    }
    rtype *consumed = variant_rtype(p, &d->box_in.variants[v]);
    for (size_t j = 0; j < d->box_out.count && consumed; j++) {
        rtype *o = variant_rtype(p, &d->box_out.variants[j]);
        if (o)
            ts_add(p, out, rt_inherit(p, o, r, consumed));
    }
}

/* A net used through its signature. */
static void infer_signature(snet_lang_program *p, snet_ast_net *n, const snet_ast_def *net,
                            const rtype *r, tset *out)
{
    def_info *d = lang_def(net);
    long best_score = -1;
    const snet_ast_mapping *best = NULL;
    const snet_ast_variant *best_in = NULL;
    for (size_t i = 0; i < d->sig.count; i++) {
        long score;
        long v = best_variant(p, &d->sig.maps[i].in, r, &score);
        if (v >= 0 && score > best_score) {
            best_score = score;
            best = &d->sig.maps[i];
            best_in = &best->in.variants[v];
        }
    }
    if (!best) {
        if (p->quiet) {
            vlist accepts = {0};
            for (size_t i = 0; i < d->sig.count; i++)
                append_type(p, &accepts, &d->sig.maps[i].in);
            suggest(p, &accepts, r);
        }
        if (first_error(p, n)) {
            vlist accepts = {0};
            for (size_t i = 0; i < d->sig.count; i++)
                append_type(p, &accepts, &d->sig.maps[i].in);
            char *rt = rtype_text(p, r), *tt = vlist_text(&accepts);
            lang_error(p, n->at, "records %s reach net '%s', whose signature takes %s",
                       rt ? rt : "?", net->name, tt ? tt : "?");
            free(rt);
            free(tt);
        }
        return;
    }
    rtype *consumed = variant_rtype(p, best_in);
    for (size_t j = 0; j < best->out.count && consumed; j++) {
        rtype *o = variant_rtype(p, &best->out.variants[j]);
        if (o)
            ts_add(p, out, rt_inherit(p, o, r, consumed));
    }
}

static tset infer_net_body(snet_lang_program *p, snet_ast_def *net, const tset *in)
{
    def_info *d = lang_def(net);
    tset out = {0};
    for (size_t i = 0; i < d->nmemo; i++)
        if (ts_same(&d->memo[i].in, in))
            return d->memo[i].out;
    if (d->visiting || !net->body)
        return out; /* a cycle (reported by check.c) or only declared */
    d->visiting = 1;
    out = infer(p, net->body, in);
    d->visiting = 0;
    struct memo_entry m = {{0}, out};
    ts_add_all(p, &m.in, in);
    lang_push(p, (void **)&d->memo, &d->nmemo, sizeof m, &m);
    return out;
}

static tset infer_ref(snet_lang_program *p, snet_ast_net *n, const tset *in)
{
    tset out = {0};
    const node_info *ni = n->info;
    if (!ni || !ni->def)
        return out;
    snet_ast_def *def = ni->def;
    def_info *d = lang_def(def);
    if (def->kind == SNET_D_BOX) {
        for (size_t i = 0; i < in->n; i++)
            infer_box(p, n, def, in->items[i], &out);
        return out;
    }
    ts_add_all(p, &d->in, in);
    if (d->has_sig) {
        for (size_t i = 0; i < in->n; i++)
            infer_signature(p, n, def, in->items[i], &out);
    } else {
        out = infer_net_body(p, def, in);
    }
    ts_add_all(p, &d->out, &out);
    return out;
}

static void infer_filter(snet_lang_program *p, snet_ast_net *n, const rtype *r, tset *out)
{
    const snet_ast_filter *f = &n->filter;
    if (f->identity) {
        ts_add(p, out, (rtype *)r);
        return;
    }
    rtype *pat = variant_rtype(p, &f->pattern);
    if (!pat)
        return;
    if (rt_match(p, pat, r) < 0) {
        if (p->quiet) {
            const snet_ast_variant *v = &f->pattern;
            vlist l = {&v, 1};
            suggest(p, &l, r);
        }
        if (first_error(p, n)) {
            snet_ast_type t = {(snet_ast_variant *)&f->pattern, 1, f->at};
            char *rt = rtype_text(p, r), *tt = type_text(&t);
            lang_error(p, n->at, "records %s reach a filter whose pattern is %s", rt ? rt : "?",
                       tt ? tt : "?");
            free(rt);
            free(tt);
        }
        return;
    }
    for (size_t b = 0; b < f->count; b++)
        for (size_t o = 0; o < f->branches[b].count; o++) {
            const snet_ast_output *op = &f->branches[b].outputs[o];
            int stack[16];
            int *ids = op->count <= 16 ? stack : malloc(op->count * sizeof *ids);
            if (!ids) {
                p->nomem = true;
                return;
            }
            for (size_t i = 0; i < op->count; i++)
                ids[i] = label_id(p, op->items[i].name, op->items[i].kind);
            rtype *made = rt_make(p, ids, op->count);
            if (ids != stack)
                free(ids);
            if (made)
                ts_add(p, out, rt_inherit(p, made, r, pat));
        }
}

/* The merged record types of a synchro-cell: one record per pattern. */
static void infer_merges(snet_lang_program *p, snet_ast_net *n, const tset *matching,
                         size_t npat, tset *out)
{
    size_t combos = 1;
    for (size_t i = 0; i < npat && combos <= MAX_MERGES; i++)
        combos *= matching[i].n;
    if (combos > MAX_MERGES) {
        /* Too many combinations: what every record of each pattern has. */
        rtype *merged = NULL;
        for (size_t i = 0; i < npat; i++) {
            rtype *common = matching[i].items[0];
            for (size_t k = 1; k < matching[i].n && common; k++) {
                int *ids = malloc((common->n + 1) * sizeof *ids);
                size_t m = 0;
                if (!ids) {
                    p->nomem = true;
                    return;
                }
                for (size_t j = 0; j < common->n; j++)
                    if (rt_has(matching[i].items[k], common->ids[j]))
                        ids[m++] = common->ids[j];
                common = rt_make(p, ids, m);
                free(ids);
            }
            if (common)
                merged = merged ? rt_inherit(p, merged, common, NULL) : common;
        }
        ts_add(p, out, merged);
        return;
    }
    size_t *pick = calloc(npat, sizeof *pick);
    if (!pick) {
        p->nomem = true;
        return;
    }
    for (size_t c = 0; c < combos; c++) {
        rtype *merged = matching[0].items[pick[0]];
        for (size_t i = 1; i < npat && merged; i++)
            merged = rt_inherit(p, merged, matching[i].items[pick[i]], NULL);
        ts_add(p, out, merged);
        for (size_t i = 0; i < npat; i++) { /* next combination */
            if (++pick[i] < matching[i].n)
                break;
            pick[i] = 0;
        }
    }
    free(pick);
    (void)n;
}

static tset infer_sync(snet_lang_program *p, snet_ast_net *n, const tset *in)
{
    tset out = {0};
    ts_add_all(p, &out, in); /* records pass through before a match or after firing */
    size_t npat = n->patterns.count;
    tset *matching = calloc(npat, sizeof *matching);
    if (!matching) {
        p->nomem = true;
        return out;
    }
    bool fires = true;
    for (size_t i = 0; i < npat; i++) {
        rtype *v = variant_rtype(p, &n->patterns.variants[i]);
        for (size_t k = 0; k < in->n && v; k++)
            if (rt_match(p, v, in->items[k]) >= 0)
                ts_add(p, &matching[i], in->items[k]);
        if (matching[i].n == 0 && fires) {
            fires = false;
            node_info *ni = lang_node(p, n);
            if (ni && !ni->reported && !p->gave_up) {
                ni->reported = true;
                snet_ast_type one = {&n->patterns.variants[i], 1, n->at};
                char *tt = type_text(&one), *rt = tset_text(p, in);
                lang_note(p, n->patterns.variants[i].at,
                          "no record reaching this synchro-cell matches its pattern %s (%s reach "
                          "it): it never fires", tt ? tt : "?", rt ? rt : "?");
                free(tt);
                free(rt);
            }
        }
    }
    if (fires && npat > 0)
        infer_merges(p, n, matching, npat, &out);
    free(matching);
    return out;
}

/* The branches of a parallel composition, nested ones of the same kind
 * flattened as the runtime does. */
static void branches(snet_lang_program *p, snet_ast_net *n, bool det, snet_ast_net ***list,
                     size_t *count)
{
    if (n->kind == SNET_N_PARALLEL && n->det == det) {
        branches(p, n->a, det, list, count);
        branches(p, n->b, det, list, count);
        return;
    }
    lang_push(p, (void **)list, count, sizeof n, &n);
}

static tset infer_parallel(snet_lang_program *p, snet_ast_net *n, const tset *in)
{
    tset out = {0};
    snet_ast_net **list = NULL;
    size_t count = 0;
    branches(p, n->a, n->det, &list, &count);
    branches(p, n->b, n->det, &list, &count);
    vlist *accepts = lang_alloc(p, count * sizeof *accepts);
    tset *routed = lang_alloc(p, count * sizeof *routed);
    if (!accepts || !routed)
        return out;
    for (size_t b = 0; b < count; b++)
        lang_accepts(p, list[b], &accepts[b]);
    for (size_t i = 0; i < in->n; i++) {
        long scores[count > 0 ? count : 1], best = -1;
        for (size_t b = 0; b < count; b++) {
            best_of(p, &accepts[b], in->items[i], &scores[b]);
            if (scores[b] > best)
                best = scores[b];
        }
        if (best < 0) {
            if (p->quiet) {
                vlist all = {0};
                for (size_t b = 0; b < count; b++)
                    for (size_t k = 0; k < accepts[b].n; k++)
                        lang_push(p, (void **)&all.v, &all.n, sizeof all.v[0], &accepts[b].v[k]);
                suggest(p, &all, in->items[i]);
            }
            if (first_error(p, n)) {
                vlist all = {0};
                for (size_t b = 0; b < count; b++)
                    for (size_t k = 0; k < accepts[b].n; k++)
                        lang_push(p, (void **)&all.v, &all.n, sizeof all.v[0], &accepts[b].v[k]);
                char *rt = rtype_text(p, in->items[i]), *tt = vlist_text(&all);
                lang_error(p, n->at, "records %s match no branch of this parallel composition "
                           "(the branches take %s)", rt ? rt : "?", tt ? tt : "?");
                free(rt);
                free(tt);
            }
            continue;
        }
        for (size_t b = 0; b < count; b++) /* every branch of the best score: ties are random */
            if (scores[b] == best)
                ts_add(p, &routed[b], in->items[i]);
    }
    for (size_t b = 0; b < count; b++) {
        if (routed[b].n == 0)
            continue;
        tset o = infer(p, list[b], &routed[b]);
        ts_add_all(p, &out, &o);
    }
    return out;
}

static tset infer_star(snet_lang_program *p, snet_ast_net *n, const tset *in)
{
    tset out = {0}, seen = {0}, stage = {0};
    ts_add_all(p, &stage, in);
    for (int k = 0; k < MAX_STAGES && !p->gave_up; k++) {
        tset body_in = {0};
        for (size_t i = 0; i < stage.n; i++) {
            match m = patterns_match(p, &n->patterns, stage.items[i]);
            if (m != NO_MATCH)
                ts_add(p, &out, stage.items[i]);
            if (m != MATCHES)
                ts_add(p, &body_in, stage.items[i]);
        }
        ts_add_all(p, &seen, &stage);
        if (body_in.n == 0)
            break;
        tset next = infer(p, n->a, &body_in); /* replica k */
        bool grew = false;
        for (size_t i = 0; i < next.n && !grew; i++)
            grew = !ts_contains(&seen, next.items[i]);
        if (!grew && ts_same(&next, &stage))
            break; /* the next stage sees what this one saw */
        if (!grew) {
            /* Types seen before: their exits are known; one more stage
             * settles the replicas' own merges. */
            stage = next;
            continue;
        }
        stage = next;
    }
    return out;
}

static tset infer_feedback(snet_lang_program *p, snet_ast_net *n, const tset *in)
{
    tset out = {0}, loop = {0};
    ts_add_all(p, &loop, in);
    for (;;) {
        tset body_out = infer(p, n->a, &loop);
        bool grew = false;
        for (size_t i = 0; i < body_out.n; i++) {
            match m = patterns_match(p, &n->patterns, body_out.items[i]);
            if (m != MATCHES)
                ts_add(p, &out, body_out.items[i]);
            if (m != NO_MATCH && ts_add(p, &loop, body_out.items[i]))
                grew = true;
        }
        if (!grew || p->gave_up || p->nomem)
            return out;
    }
}

static tset infer_split(snet_lang_program *p, snet_ast_net *n, const tset *in)
{
    int tag = label_id(p, n->tag, SNET_AST_TAG);
    tset with = {0};
    for (size_t i = 0; i < in->n; i++) {
        if (tag >= 0 && rt_has(in->items[i], tag)) {
            ts_add(p, &with, in->items[i]);
        } else if (p->quiet) {
            if (!p->missing && tag >= 0)
                p->missing = rt_make(p, &tag, 1);
        } else if (first_error(p, n)) {
            char *rt = rtype_text(p, in->items[i]);
            lang_error(p, n->at, "records %s reach a split on <%s> without that tag",
                       rt ? rt : "?", n->tag);
            free(rt);
        }
    }
    return infer(p, n->a, &with);
}

static tset infer(snet_lang_program *p, snet_ast_net *n, const tset *in)
{
    tset out = {0};
    node_info *ni = lang_node(p, n);
    if (!ni || p->nomem)
        return out;
    ts_add_all(p, &ni->in, in);
    switch (n->kind) {
    case SNET_N_REF: out = infer_ref(p, n, in); break;
    case SNET_N_FILTER:
        for (size_t i = 0; i < in->n; i++)
            infer_filter(p, n, in->items[i], &out);
        break;
    case SNET_N_SYNC: out = infer_sync(p, n, in); break;
    case SNET_N_SERIAL: {
        tset mid = infer(p, n->a, in);
        out = infer(p, n->b, &mid);
        break;
    }
    case SNET_N_PARALLEL: out = infer_parallel(p, n, in); break;
    case SNET_N_STAR: out = infer_star(p, n, in); break;
    case SNET_N_FEEDBACK: out = infer_feedback(p, n, in); break;
    case SNET_N_SPLIT: out = infer_split(p, n, in); break;
    case SNET_N_AT: out = infer(p, n->a, in); break;
    }
    ts_add_all(p, &ni->out, &out);
    return out;
}

/* ---- signatures ------------------------------------------------------------------------------ */

/* A net with a signature and a body: each declared input variant, run
 * through the body, must give only records some declared output accepts. */
static void check_signature(snet_lang_program *p, snet_ast_def *net)
{
    def_info *d = lang_def(net);
    for (size_t m = 0; m < d->sig.count; m++) {
        const snet_ast_mapping *map = &d->sig.maps[m];
        for (size_t v = 0; v < map->in.count; v++) {
            tset in = {0};
            ts_add(p, &in, variant_rtype(p, &map->in.variants[v]));
            ts_add_all(p, &d->in, &in);
            d->visiting = 1;
            tset out = infer(p, net->body, &in);
            d->visiting = 0;
            ts_add_all(p, &d->out, &out);
            for (size_t i = 0; i < out.n; i++) {
                if (best_variant(p, &map->out, out.items[i], NULL) >= 0 || p->gave_up)
                    continue;
                snet_ast_type one = {(snet_ast_variant *)&map->in.variants[v], 1, map->at};
                char *it = type_text(&one), *ot = type_text(&map->out),
                     *rt = rtype_text(p, out.items[i]);
                lang_error(p, map->at, "net '%s' declares %s -> %s, but its network can turn %s "
                           "into %s", net->name, it ? it : "?", ot ? ot : "?", it ? it : "?",
                           rt ? rt : "?");
                free(it);
                free(ot);
                free(rt);
            }
        }
    }
}

static void check_signatures(snet_lang_program *p, scope *s)
{
    for (size_t i = 0; i < s->ndefs; i++) {
        snet_ast_def *d = s->defs[i];
        if (d->kind != SNET_D_NET)
            continue;
        if (d->body && lang_def(d)->has_sig)
            check_signature(p, d);
        check_signatures(p, lang_def(d)->body);
    }
}

/* Forget what a previous run of the inference found. */
static void reset_net(snet_ast_net *n)
{
    node_info *ni = n->info;
    if (ni)
        *ni = (node_info){.def = ni->def};
    if (n->a)
        reset_net(n->a);
    if (n->b)
        reset_net(n->b);
}

static void reset_scope(scope *s)
{
    for (size_t i = 0; i < s->ndefs; i++) {
        snet_ast_def *d = s->defs[i];
        if (d->kind != SNET_D_NET)
            continue;
        def_info *info = lang_def(d);
        info->in = info->out = (tset){0};
        info->memo = NULL;
        info->nmemo = 0;
        if (d->body)
            reset_net(d->body);
        reset_scope(info->body);
    }
}

static tset main_run(snet_lang_program *p, const tset *in)
{
    snet_ast_def *main = p->main;
    def_info *d = lang_def(main);
    p->budget = TYPE_BUDGET;
    ts_add_all(p, &d->in, in);
    d->visiting = 1;
    tset out = infer(p, main->body, in);
    d->visiting = 0;
    ts_add_all(p, &d->out, &out);
    return out;
}

/* The input types of a main net without a signature: what its first
 * entity takes, plus the labels trial runs find missing further on. */
static tset main_inputs(snet_lang_program *p)
{
    vlist accepts = {0};
    lang_accepts_ex(p, p->main->body, &accepts, false);
    tset in = {0};
    for (size_t i = 0; i < accepts.n; i++)
        ts_add(p, &in, variant_rtype(p, accepts.v[i]));
    p->quiet = true;
    for (int round = 0; round < 16 && !p->nomem; round++) {
        p->missing = NULL;
        main_run(p, &in);
        reset_scope(p->top);
        if (!p->missing)
            break;
        tset more = {0};
        bool grew = false;
        for (size_t i = 0; i < in.n; i++) {
            rtype *t = rt_inherit(p, p->missing, in.items[i], NULL);
            grew |= t && !rt_equal(t, in.items[i]);
            ts_add(p, &more, t);
        }
        if (!grew)
            break;
        in = more;
    }
    p->quiet = false;
    p->missing = NULL;
    p->gave_up = false;
    return in;
}

void lang_infer(snet_lang_program *p)
{
    snet_ast_def *main = p->main;
    tset in = {0};
    bool trial = main->body && !lang_def(main)->has_sig;
    if (trial)
        in = main_inputs(p);
    p->budget = TYPE_BUDGET;
    check_signatures(p, p->top);
    if (trial)
        main_run(p, &in);
    if (p->gave_up)
        lang_note(p, main->at, "the type check stopped after %d record types; the network is "
                  "only partly checked", TYPE_BUDGET);
}
