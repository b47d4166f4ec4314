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

/* What a net's body made of an input set. Trial runs record nothing along
 * the way, so the real run must not skip a body on a trial's entry. */
struct memo_entry {
    tset in, out;
    bool trial;
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

/* A record type from ids (sorted and deduplicated here), open or not;
 * NULL when the budget or memory runs out. */
static rtype *rt_make_as(snet_lang_program *p, int *ids, size_t n, bool open)
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
    t->open = open;
    memcpy(t->ids, ids, k * sizeof(int));
    return t;
}

static rtype *rt_make(snet_lang_program *p, int *ids, size_t n)
{
    return rt_make_as(p, ids, n, false);
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
    return a->n == b->n && a->open == b->open && !memcmp(a->ids, b->ids, a->n * sizeof(int));
}

static bool rt_subset(const rtype *a, const rtype *b)
{
    for (size_t i = 0; i < a->n; i++)
        if (!rt_has(b, a->ids[i]))
            return false;
    return true;
}

/* (a \ minus) + plus: an output plus what it inherits (open if a or plus
 * is: an open record may carry labels to inherit). */
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
    rtype *t = rt_make_as(p, ids, n, plus->open || a->open);
    free(ids);
    return t;
}

static bool is_btag(const snet_lang_program *p, int id) { return p->label_kinds[id] == SNET_AST_BTAG; }

/* Score of variant v against record type r, -1 when it does not match. An
 * open record may have every label: it matches, as well as it can. */
static long rt_match(const snet_lang_program *p, const rtype *v, const rtype *r)
{
    if (r->open)
        return (long)v->n;
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
    fputs(t->open ? (t->n ? ", ...}" : "...}") : "}", out);
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

/* Record types, types and signatures as text for messages (malloc'ed;
 * NULL when out of memory: a static buffer would not do, messages print
 * two at once). */
typedef enum text_of { TEXT_TSET, TEXT_TYPE, TEXT_SIG } text_of;

static char *text(const snet_lang_program *p, text_of kind, const void *what)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    switch (kind) {
    case TEXT_TSET: lang_print_tset(p, what, f); break;
    case TEXT_TYPE: snet_ast_print_type(f, what, " | "); break;
    case TEXT_SIG: snet_ast_print_sig(f, what); break;
    }
    fclose(f);
    return buf;
}

static char *tset_text(const snet_lang_program *p, const tset *t)
{
    return text(p, TEXT_TSET, t);
}

static char *rtype_text(const snet_lang_program *p, const rtype *r)
{
    tset one = {(rtype **)&r, 1};
    return tset_text(p, &one);
}

static char *type_text(const snet_ast_type *t) { return text(NULL, TEXT_TYPE, t); }

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
        if (!pats->variants[i].guard && (!r->open || rt_subset(v, r)))
            return MATCHES;
        m = MAY_MATCH; /* a guard, or an open record that may lack labels */
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

/* The empty variant: what takes every record ([], an external net of
 * unknown type). */
static const snet_ast_variant anything = {0};

static void append_variant(snet_lang_program *p, vlist *out, const snet_ast_variant *v)
{
    lang_push(p, (void **)&out->v, &out->n, sizeof v, &v);
}

void lang_accepts_ex(snet_lang_program *p, const snet_ast_net *n, vlist *out, bool exits)
{
    switch (n->kind) {
    case SNET_N_REF: {
        const node_info *ni = n->info;
        if (!ni || !ni->def)
            return;
        def_info *d = lang_def(ni->def);
        if (ni->def->kind == SNET_D_BOX)
            append_type(p, out, &d->box_in); /* none for an initialiser */
        else if (d->has_sig)
            for (size_t i = 0; i < d->sig.count; i++)
                append_type(p, out, &d->sig.maps[i].in);
        else if (!ni->def->body)
            append_variant(p, out, &anything);
        else if (!d->visiting)
            lang_accepts_ex(p, ni->def->body, out, exits);
        return;
    }
    case SNET_N_FILTER:
        append_variant(p, out, n->filter.identity ? &anything : &n->filter.pattern);
        return;
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

/* The best score of the record types of t for r, -1 if none matches. */
static long ts_best(const snet_lang_program *p, const tset *t, const rtype *r)
{
    long best = -1;
    for (size_t i = 0; i < t->n; i++) {
        long s = rt_match(p, t->items[i], r);
        if (s > best)
            best = s;
    }
    return best;
}

/* Note the labels of v that r lacks as one way to complete r. */
static void note_missing(snet_lang_program *p, const rtype *v, const rtype *r)
{
    int *ids = malloc((v->n + 1) * sizeof *ids);
    size_t n = 0;
    if (!ids) {
        p->nomem = true;
        return;
    }
    for (size_t k = 0; k < v->n; k++)
        if (!rt_has(r, v->ids[k]))
            ids[n++] = v->ids[k];
    ts_add(p, &p->missing, rt_make(p, ids, n));
    free(ids);
}

/* In a trial run: note the labels r lacks for the closest of the types
 * vs, one set for each type equally close (the first refusal of a run is
 * the one noted). Closest: the most labels in common, then the fewest
 * missing. */
static void suggest_types(snet_lang_program *p, const tset *vs, const rtype *r)
{
    if (p->missing.n)
        return;
    size_t best_n = (size_t)-1, best_common = 0;
    for (int pass = 0; pass < 2; pass++) /* find the closest, then note them */
        for (size_t i = 0; i < vs->n; i++) {
            const rtype *v = vs->items[i];
            size_t lacking = 0;
            for (size_t k = 0; k < v->n; k++)
                lacking += !rt_has(r, v->ids[k]);
            size_t common = v->n - lacking;
            if (lacking == 0)
                continue;
            if (pass == 0 && (best_n == (size_t)-1 || common > best_common ||
                              (common == best_common && lacking < best_n))) {
                best_n = lacking;
                best_common = common;
            }
            if (pass == 1 && common == best_common && lacking == best_n)
                note_missing(p, v, r);
        }
}

/* The record types of declared variants. */
static tset types_of(snet_lang_program *p, const vlist *l)
{
    tset types = {0};
    for (size_t i = 0; i < l->n; i++)
        ts_add(p, &types, variant_rtype(p, l->v[i]));
    return types;
}

/* suggest_types for declared variants. */
static void suggest(snet_lang_program *p, const vlist *vs, const rtype *r)
{
    tset types = types_of(p, vs);
    suggest_types(p, &types, r);
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

/* A box without an input type. At the head of a parallel branch that
 * attracts no record it is an initialiser, as in the original runtime: it
 * fires once when the network starts, with nothing to inherit (in is
 * empty there). Records that do reach it (elsewhere) are taken whole, as
 * the original's generated box wrapper takes them: the box is called
 * without arguments and every label of the record is inherited, the
 * meaning of an empty input variant "()" (build.c builds it so). */
static void infer_initialiser(snet_lang_program *p, const snet_ast_def *box, const tset *in,
                              tset *out)
{
    def_info *d = lang_def(box);
    int none[1];
    rtype *consumed = in->n ? rt_make_as(p, none, 0, false) : NULL;
    for (size_t j = 0; j < d->box_out.count; j++) {
        rtype *o = variant_rtype(p, &d->box_out.variants[j]);
        if (!o)
            continue;
        if (!in->n)
            ts_add(p, out, o);
        for (size_t i = 0; i < in->n && consumed; i++)
            ts_add(p, out, rt_inherit(p, o, in->items[i], consumed));
    }
}

/* The open record type with no known label: what an external net of
 * unknown type makes. */
static rtype *open_record(snet_lang_program *p)
{
    int none[1];
    return rt_make_as(p, none, 0, true);
}

static tset infer_net_body(snet_lang_program *p, snet_ast_def *net, const tset *in);

/* A net used through its signature. A mapping "-> ..." gives what the
 * net's network makes of the record, or, for an external net, an open
 * record with the labels the record keeps. */
static void infer_signature(snet_lang_program *p, snet_ast_net *n, snet_ast_def *net,
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
        tset accepts = {0};
        for (size_t i = 0; i < d->sig.count; i++)
            for (size_t v = 0; v < d->sig.maps[i].in.count; v++)
                ts_add(p, &accepts, variant_rtype(p, &d->sig.maps[i].in.variants[v]));
        if (p->quiet)
            suggest_types(p, &accepts, r);
        if (first_error(p, n)) {
            char *rt = rtype_text(p, r), *tt = tset_text(p, &accepts);
            lang_error(p, n->at, "records %s reach net '%s', whose signature takes %s",
                       rt ? rt : "?", net->name, tt ? tt : "?");
            free(rt);
            free(tt);
        }
        return;
    }
    rtype *consumed = variant_rtype(p, best_in);
    if (best->open_out && net->body) {
        tset one = {(rtype **)&r, 1};
        tset made = infer_net_body(p, net, &one);
        ts_add_all(p, out, &made);
    } else if (best->open_out && consumed) {
        rtype *o = open_record(p);
        if (o)
            ts_add(p, out, rt_inherit(p, o, r, consumed));
    }
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
        if (d->memo[i].trial == p->quiet && ts_same(&d->memo[i].in, in))
            return d->memo[i].out;
    if (d->visiting || !net->body)
        return out; /* a cycle (reported by check.c) or only declared */
    d->visiting = 1;
    out = infer(p, net->body, in);
    d->visiting = 0;
    if (p->gave_up)
        return out; /* not all of it: not worth remembering */
    struct memo_entry m = {{0}, out, p->quiet};
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
        if (d->box_in.count == 0)
            infer_initialiser(p, def, in, &out);
        for (size_t i = 0; i < in->n && d->box_in.count > 0; i++)
            infer_box(p, n, def, in->items[i], &out);
        return out;
    }
    if (!p->quiet)
        ts_add_all(p, &d->in, in);
    if (d->has_sig) {
        for (size_t i = 0; i < in->n; i++)
            infer_signature(p, n, def, in->items[i], &out);
    } else if (def->body) {
        out = infer_net_body(p, def, in);
    } else if (in->n > 0) { /* an external net of unknown type */
        ts_add(p, &out, open_record(p));
    }
    if (!p->quiet)
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

/* The labels of a synchro-cell's later patterns (fields and tags: what the
 * merge takes from the records stored for them). */
static rtype *later_pattern_labels(snet_lang_program *p, const snet_ast_type *pats)
{
    size_t total = 0;
    for (size_t i = 1; i < pats->count; i++)
        total += pats->variants[i].count;
    int *ids = malloc((total + 1) * sizeof *ids);
    if (!ids) {
        p->nomem = true;
        return NULL;
    }
    size_t n = 0;
    for (size_t i = 1; i < pats->count; i++)
        for (size_t k = 0; k < pats->variants[i].count; k++)
            if (pats->variants[i].labels[k].kind != SNET_AST_BTAG)
                ids[n++] = label_id(p, pats->variants[i].labels[k].name,
                                    pats->variants[i].labels[k].kind);
    rtype *t = rt_make(p, ids, n);
    free(ids);
    return t;
}

/* A synchro-cell that fires emits the record stored for its first pattern
 * with the labels the later patterns name, taken from theirs (as the
 * original runtime merges: only the first record flow-inherits). One
 * record type per type that can fill the first pattern. */
static tset infer_sync(snet_lang_program *p, snet_ast_net *n, const tset *in)
{
    tset out = {0}, first = {0};
    ts_add_all(p, &out, in); /* records pass through before a match or after firing */
    const snet_ast_type *pats = &n->patterns;
    bool fires = pats->count > 0;
    for (size_t i = 0; i < pats->count && fires; i++) {
        rtype *v = variant_rtype(p, &pats->variants[i]);
        bool filled = false;
        for (size_t k = 0; k < in->n && v; k++) {
            if (rt_match(p, v, in->items[k]) < 0)
                continue;
            filled = true;
            if (i == 0)
                ts_add(p, &first, in->items[k]);
        }
        fires = filled;
    }
    rtype *later = fires ? later_pattern_labels(p, pats) : NULL;
    for (size_t k = 0; k < first.n && later; k++)
        ts_add(p, &out, rt_inherit(p, first.items[k], later, NULL));
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

/* What a trial run changes, saved while it runs. */
typedef struct trial {
    bool quiet, gave_up;
    tset missing;
    size_t budget;
} trial;

static trial trial_begin(snet_lang_program *p)
{
    trial saved = {p->quiet, p->gave_up, p->missing, p->budget};
    p->missing = (tset){0};
    p->quiet = true;
    p->gave_up = false;
    p->budget = TYPE_BUDGET;
    return saved;
}

static void trial_end(snet_lang_program *p, trial saved)
{
    p->quiet = saved.quiet;
    p->gave_up = saved.gave_up;
    p->missing = saved.missing;
    p->budget = saved.budget;
}

/*
 * The record types n needs, from the types start it takes at its entry:
 * each is run through n in a trial (nothing reported, nothing recorded);
 * if a record of it lacks labels further in (a box, filter, split, net or
 * parallel composition downstream refuses it), the labels it lacks for the
 * closest type taken there are added - they can only come from the input,
 * flow-inherited to where they are used - and the trial runs again, until
 * nothing is missing. Where several types are equally close, each gives a
 * type of its own. This is what the whole of n needs, not only its first
 * entity.
 */
#define MAX_COMPLETIONS 64 /* trial runs per entry type */

static tset complete_inputs(snet_lang_program *p, snet_ast_net *n, const tset *start)
{
    trial saved = trial_begin(p);
    tset done = {0};
    for (size_t i = 0; i < start->n && !p->nomem; i++) {
        tset work = {0}, seen = {0};
        ts_add(p, &work, start->items[i]);
        ts_add_all(p, &seen, &work);
        for (size_t next = 0, runs = 0; next < work.n; next++) {
            rtype *t = work.items[next];
            p->missing = (tset){0};
            tset one = {&t, 1};
            if (runs++ < MAX_COMPLETIONS)
                infer(p, n, &one);
            bool completable = false;
            for (size_t k = 0; k < p->missing.n; k++) {
                rtype *more = rt_inherit(p, p->missing.items[k], t, NULL);
                if (!more || rt_equal(more, t))
                    continue; /* the input cannot give it: a real error, reported later */
                completable = true;
                if (ts_add(p, &seen, more))
                    ts_add(p, &work, more);
            }
            if (!completable)
                ts_add(p, &done, t); /* complete, or as complete as it gets */
        }
    }
    trial_end(p, saved);
    return done;
}

/*
 * The routing type of each branch: the record types the branch is chosen
 * for, as the original compiler's route inference gives a branch the input
 * type of its whole signature. A branch whose first entity is a box taking
 * {D} followed by one taking {B} attracts {B, D}. An initialiser branch
 * attracts nothing.
 */
static void ensure_routes(snet_lang_program *p, snet_ast_net **list, size_t count)
{
    for (size_t b = 0; b < count; b++) {
        node_info *ni = lang_node(p, list[b]);
        if (!ni || ni->routed)
            continue;
        ni->routed = true; /* (a branch never contains itself; this guards anyway) */
        vlist accepts = {0};
        lang_accepts(p, list[b], &accepts);
        tset start = types_of(p, &accepts);
        tset route = complete_inputs(p, list[b], &start);
        ni = lang_node(p, list[b]);
        ni->route = route;
    }
}

static const tset *route_of(snet_lang_program *p, snet_ast_net *branch)
{
    static const tset none = {0};
    node_info *ni = lang_node(p, branch);
    return ni ? &ni->route : &none;
}

static void no_branch(snet_lang_program *p, snet_ast_net *n, snet_ast_net **list, size_t count,
                      const rtype *r)
{
    tset all = {0};
    for (size_t b = 0; b < count; b++)
        ts_add_all(p, &all, route_of(p, list[b]));
    if (p->quiet)
        suggest_types(p, &all, r);
    if (!first_error(p, n))
        return;
    char *rt = rtype_text(p, r), *tt = tset_text(p, &all);
    lang_error(p, n->at, "records %s match no branch of this parallel composition (the branches "
               "take %s)", rt ? rt : "?", tt ? tt : "?");
    free(rt);
    free(tt);
}

static tset infer_parallel(snet_lang_program *p, snet_ast_net *n, const tset *in)
{
    tset out = {0};
    snet_ast_net **list = NULL;
    size_t count = 0;
    branches(p, n->a, n->det, &list, &count);
    branches(p, n->b, n->det, &list, &count);
    ensure_routes(p, list, count);
    tset *routed = lang_alloc(p, count * sizeof *routed);
    long *scores = lang_alloc(p, count * sizeof *scores);
    if (!routed || !scores)
        return out;
    for (size_t i = 0; i < in->n; i++) {
        long best = -1;
        for (size_t b = 0; b < count; b++) {
            scores[b] = ts_best(p, route_of(p, list[b]), in->items[i]);
            if (scores[b] > best)
                best = scores[b];
        }
        if (best < 0) {
            no_branch(p, n, list, count, in->items[i]);
            continue;
        }
        for (size_t b = 0; b < count; b++) /* every branch of the best score: ties are random */
            if (scores[b] == best)
                ts_add(p, &routed[b], in->items[i]);
    }
    for (size_t b = 0; b < count; b++) { /* all of them: initialisers fire anyway */
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
            if (!p->missing.n && tag >= 0)
                ts_add(p, &p->missing, rt_make(p, &tag, 1));
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
    if (!p->quiet) /* trial runs leave no trace */
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
    if (!p->quiet)
        ts_add_all(p, &ni->out, &out);
    return out;
}

/* ---- signatures ------------------------------------------------------------------------------ */

/* One declared input variant run through net's body; outputs no mapping
 * of it accepts are errors. What comes out is added to *made. */
static void check_variant(snet_lang_program *p, snet_ast_def *net, const snet_ast_mapping *map,
                          const snet_ast_variant *variant, tset *made)
{
    def_info *d = lang_def(net);
    tset in = {0};
    ts_add(p, &in, variant_rtype(p, variant));
    ts_add_all(p, &d->in, &in);
    d->visiting = 1;
    tset out = infer(p, net->body, &in);
    d->visiting = 0;
    ts_add_all(p, &d->out, &out);
    ts_add_all(p, made, &out);
    for (size_t i = 0; i < out.n && !map->open_out; i++) {
        if (best_variant(p, &map->out, out.items[i], NULL) >= 0 || p->gave_up)
            continue;
        snet_ast_type one = {(snet_ast_variant *)variant, 1, map->at};
        char *it = type_text(&one), *ot = type_text(&map->out), *rt = rtype_text(p, out.items[i]);
        lang_error(p, map->at, "net '%s' declares %s -> %s, but its network can turn %s into %s",
                   net->name, it ? it : "?", ot ? ot : "?", it ? it : "?", rt ? rt : "?");
        free(it);
        free(ot);
        free(rt);
    }
}

/* Is r an output some mapping of sig declares (or may make: "-> ...")? */
static bool declared_output(snet_lang_program *p, const snet_ast_sig *sig, const rtype *r)
{
    for (size_t m = 0; m < sig->count; m++)
        if (sig->maps[m].open_out || best_variant(p, &sig->maps[m].out, r, NULL) >= 0)
            return true;
    return false;
}

/*
 * A net with a signature and a body: each declared input variant, run
 * through the body on its own, must give only records its mapping
 * declares. Then all input variants together (records of different types
 * share the stream: a synchro-cell joins them), and what only they make
 * together must be declared by some mapping.
 */
static void check_signature(snet_lang_program *p, snet_ast_def *net)
{
    def_info *d = lang_def(net);
    tset alone = {0}, all = {0};
    for (size_t m = 0; m < d->sig.count; m++)
        for (size_t v = 0; v < d->sig.maps[m].in.count; v++) {
            check_variant(p, net, &d->sig.maps[m], &d->sig.maps[m].in.variants[v], &alone);
            ts_add(p, &all, variant_rtype(p, &d->sig.maps[m].in.variants[v]));
        }
    if (all.n < 2)
        return;
    d->visiting = 1;
    tset out = infer(p, net->body, &all);
    d->visiting = 0;
    ts_add_all(p, &d->out, &out);
    for (size_t i = 0; i < out.n && !p->gave_up; i++) {
        if (ts_contains(&alone, out.items[i]) || declared_output(p, &d->sig, out.items[i]))
            continue;
        char *st = text(p, TEXT_SIG, &d->sig), *rt = rtype_text(p, out.items[i]);
        lang_error(p, net->at, "net '%s' declares %s, but its network can turn records of its "
                   "input types together into %s", net->name, st ? st : "?", rt ? rt : "?");
        free(st);
        free(rt);
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

/* ---- the main net ------------------------------------------------------------------------------ */

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

/* How well n's first entities take r (-1: not at all). */
static long takes(snet_lang_program *p, const snet_ast_net *n, const rtype *r)
{
    vlist accepts = {0};
    lang_accepts(p, n, &accepts);
    tset types = types_of(p, &accepts);
    return ts_best(p, &types, r);
}

/* Can records of type r go through n unchanged (so that they may enter a
 * serial composition to be taken by a later entity)? A synchro-cell passes
 * what matches none of its patterns, [] everything, a star what leaves at
 * once; boxes and other filters change what they take. */
static bool passes(snet_lang_program *p, const snet_ast_net *n, const rtype *r)
{
    switch (n->kind) {
    case SNET_N_FILTER: return n->filter.identity;
    case SNET_N_SYNC:
        return patterns_match(p, &n->patterns, r) == NO_MATCH;
    case SNET_N_SERIAL: return passes(p, n->a, r) && passes(p, n->b, r);
    case SNET_N_PARALLEL: {
        long sa = takes(p, n->a, r), sb = takes(p, n->b, r);
        return (sa >= 0 && sa >= sb && passes(p, n->a, r)) ||
               (sb >= 0 && sb >= sa && passes(p, n->b, r));
    }
    case SNET_N_STAR: return patterns_match(p, &n->patterns, r) == MATCHES;
    case SNET_N_AT: return passes(p, n->a, r);
    case SNET_N_REF: {
        const node_info *ni = n->info;
        const snet_ast_def *d = ni ? ni->def : NULL;
        return d && d->kind == SNET_D_NET && d->body && !lang_def(d)->has_sig &&
               !lang_def(d)->visiting && passes(p, d->body, r);
    }
    default: return false;
    }
}

/* The record types that may enter a net without a signature: what its
 * first entities take, and what a later entity of a serial composition
 * takes that passes the ones before it unchanged ([| {A}, {B} |] ..
 * [| {C}, {D} |] takes {C} too). */
static void entry_types(snet_lang_program *p, const snet_ast_net *n, tset *out)
{
    if (n->kind == SNET_N_SERIAL) {
        entry_types(p, n->a, out);
        tset later = {0};
        entry_types(p, n->b, &later);
        for (size_t i = 0; i < later.n; i++)
            if (passes(p, n->a, later.items[i]))
                ts_add(p, out, later.items[i]);
        return;
    }
    if (n->kind == SNET_N_PARALLEL) {
        entry_types(p, n->a, out);
        entry_types(p, n->b, out);
        return;
    }
    vlist accepts = {0};
    lang_accepts_ex(p, n, &accepts, false);
    tset types = types_of(p, &accepts);
    ts_add_all(p, out, &types);
}

/* The input types of a main net without a signature: its entry types,
 * each with the labels trial runs find it needs further on. */
static tset main_inputs(snet_lang_program *p)
{
    tset entry = {0};
    entry_types(p, p->main->body, &entry);
    def_info *d = lang_def(p->main);
    d->visiting = 1;
    tset in = complete_inputs(p, p->main->body, &entry);
    d->visiting = 0;
    return in;
}

/* ---- notes ------------------------------------------------------------------------------------------ */

/* A synchro-cell some records reach, but none of them (over the whole
 * check: every use, every input type, all of a signature's inputs
 * together) can fill one of its patterns, never fires. */
static void note_silent_syncs(snet_lang_program *p, snet_ast_net *n)
{
    if (n->a)
        note_silent_syncs(p, n->a);
    if (n->b)
        note_silent_syncs(p, n->b);
    const node_info *ni = n->info;
    if (n->kind != SNET_N_SYNC || !ni || ni->in.n == 0)
        return;
    for (size_t i = 0; i < n->patterns.count; i++) {
        rtype *v = variant_rtype(p, &n->patterns.variants[i]);
        bool filled = false;
        for (size_t k = 0; k < ni->in.n && v && !filled; k++)
            filled = rt_match(p, v, ni->in.items[k]) >= 0;
        if (filled || !v)
            continue;
        snet_ast_type one = {&n->patterns.variants[i], 1, n->at};
        char *tt = type_text(&one), *rt = tset_text(p, &ni->in);
        lang_note(p, n->patterns.variants[i].at, "no record reaching this synchro-cell matches its "
                  "pattern %s (%s reach it): it never fires", tt ? tt : "?", rt ? rt : "?");
        free(tt);
        free(rt);
        return;
    }
}

static void note_scope(snet_lang_program *p, scope *s)
{
    for (size_t i = 0; i < s->ndefs; i++) {
        snet_ast_def *d = s->defs[i];
        if (d->kind != SNET_D_NET)
            continue;
        note_scope(p, lang_def(d)->body);
        if (d->body)
            note_silent_syncs(p, d->body);
    }
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
    else
        note_scope(p, p->top);
}
