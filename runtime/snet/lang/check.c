/*
 * check.c - loading a .snet program: parse, scopes and names, metadata,
 * the static checks of filters and patterns, the choice of the main net,
 * then the type inference (infer.c). Every problem is reported as
 * "FILE:LINE:COLUMN: error: ..." and the program is refused if there was
 * any.
 *
 * Scopes follow the nesting of net bodies: a name in a connect expression
 * means the nearest box or net of that name, looking outwards from the
 * body it is written in. Inside the definition of a type or typesig, its
 * own name means the outer definition of that name (so "type t = t;"
 * re-exports an outer t).
 */
#include "lang_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- diagnostics and memory ------------------------------------------------- */

static void diagnostic(snet_lang_program *p, snet_src at, const char *level, const char *fmt,
                       va_list ap)
{
    if (!p->diag)
        return;
    if (at.line > 0)
        fprintf(p->diag, "%s:%d:%d: %s: ", p->file, at.line, at.column, level);
    else
        fprintf(p->diag, "%s: %s: ", p->file, level);
    vfprintf(p->diag, fmt, ap);
    fputc('\n', p->diag);
}

void lang_error(snet_lang_program *p, snet_src at, const char *fmt, ...)
{
    p->errors++;
    if (p->errors > p->max_errors) {
        if (p->errors == p->max_errors + 1 && p->diag)
            fprintf(p->diag, "%s: error: too many errors, stopping\n", p->file);
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    diagnostic(p, at, "error", fmt, ap);
    va_end(ap);
}

void lang_note(snet_lang_program *p, snet_src at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diagnostic(p, at, "note", fmt, ap);
    va_end(ap);
}

void *lang_alloc(snet_lang_program *p, size_t size)
{
    void *m = snet_arena_alloc(p->arena, size);
    if (!m)
        p->nomem = true;
    return m;
}

bool lang_push(snet_lang_program *p, void **items, size_t *count, size_t elem, const void *item)
{
    if (snet_arena_push(p->arena, items, count, elem, item))
        return true;
    p->nomem = true;
    return false;
}

def_info *lang_def(const snet_ast_def *d) { return d->info; }

node_info *lang_node(snet_lang_program *p, snet_ast_net *n)
{
    if (!n->info)
        n->info = lang_alloc(p, sizeof(node_info));
    return n->info;
}

const snet_ast_def *lang_box_net(const snet_ast_def *box)
{
    return lang_def(box)->where->owner;
}

box_meta lang_box_meta(const snet_ast_def *box)
{
    box_meta m = {box->name, NULL, NULL, NULL};
    for (const scope *s = lang_def(box)->where; s; s = s->parent) {
        for (size_t i = s->nmeta; i-- > 0;) { /* later blocks win */
            const box_meta *e = &s->meta[i];
            if (e->name && strcmp(e->name, box->name) != 0)
                continue;
            if (!m.interface)
                m.interface = e->interface;
            if (!m.library)
                m.library = e->library;
            if (!m.symbol && e->name)
                m.symbol = e->symbol;
        }
    }
    if (!m.interface)
        m.interface = "C4SNet";
    if (!m.symbol)
        m.symbol = box->name;
    return m;
}

/* ---- scopes -------------------------------------------------------------------- */

static bool network_kind(snet_ast_def_kind k) { return k == SNET_D_BOX || k == SNET_D_NET; }

static bool same_namespace(snet_ast_def_kind a, snet_ast_def_kind b)
{
    return a == b || (network_kind(a) && network_kind(b));
}

static const char *kind_name(snet_ast_def_kind k)
{
    switch (k) {
    case SNET_D_BOX: return "box";
    case SNET_D_NET: return "net";
    case SNET_D_TYPE: return "type";
    case SNET_D_TYPESIG: return "typesig";
    default: return "metadata";
    }
}

static scope *make_scope(snet_lang_program *p, scope *parent, snet_ast_def *owner,
                         snet_ast_def **defs, size_t ndefs)
{
    scope *s = lang_alloc(p, sizeof *s);
    if (!s)
        return NULL;
    *s = (scope){parent, owner, defs, ndefs, NULL, 0};
    for (size_t i = 0; i < ndefs; i++) {
        snet_ast_def *d = defs[i];
        def_info *info = lang_alloc(p, sizeof *info);
        if (!info)
            return NULL;
        info->where = s;
        d->info = info;
        if (d->kind == SNET_D_METADATA) {
            lang_metadata(p, s, d);
            continue;
        }
        for (size_t j = 0; j < i; j++) {
            if (defs[j]->kind != SNET_D_METADATA && same_namespace(defs[j]->kind, d->kind) &&
                !strcmp(defs[j]->name, d->name)) {
                lang_error(p, d->at, "%s '%s' is already defined as a %s at line %d", kind_name(d->kind),
                           d->name, kind_name(defs[j]->kind), defs[j]->at.line);
                break;
            }
        }
        if (d->kind == SNET_D_NET)
            info->body = make_scope(p, s, d, d->defs, d->ndefs);
    }
    return s;
}

/* The nearest definition of name in the namespace of kind, from s outwards,
 * never self. */
static snet_ast_def *lookup(scope *s, const char *name, snet_ast_def_kind kind,
                            const snet_ast_def *self)
{
    for (; s; s = s->parent)
        for (size_t i = s->ndefs; i-- > 0;) {
            snet_ast_def *d = s->defs[i];
            if (d != self && d->kind != SNET_D_METADATA && same_namespace(d->kind, kind) &&
                !strcmp(d->name, name))
                return d;
        }
    return NULL;
}

/* ---- types ---------------------------------------------------------------------------- */

static void resolve_def(snet_lang_program *p, snet_ast_def *d);

static const char *label_text(const snet_ast_label *l, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s%s", l->kind == SNET_AST_FIELD ? "" : l->kind == SNET_AST_TAG ? "<" : "<#",
             l->name, l->kind == SNET_AST_FIELD ? "" : ">");
    return buf;
}

static bool variant_has(const snet_ast_variant *v, snet_ast_label_kind kind, const char *name)
{
    for (size_t i = 0; i < v->count; i++)
        if (v->labels[i].kind == kind && !strcmp(v->labels[i].name, name))
            return true;
    return false;
}

static void check_duplicates(snet_lang_program *p, const snet_ast_variant *v)
{
    for (size_t i = 0; i < v->count; i++)
        for (size_t j = 0; j < i; j++)
            if (v->labels[i].kind == v->labels[j].kind &&
                !strcmp(v->labels[i].name, v->labels[j].name)) {
                char buf[128];
                lang_error(p, v->labels[i].at, "label %s appears twice in one record type",
                           label_text(&v->labels[i], buf, sizeof buf));
                break;
            }
}

/* The names an expression uses must be tags or binding tags of v. */
static void check_expr_names(snet_lang_program *p, const snet_ast_expr *e,
                             const snet_ast_variant *v, const char *what)
{
    if (!e)
        return;
    if (e->op == SNET_X_TAG && !variant_has(v, SNET_AST_TAG, e->name) &&
        !variant_has(v, SNET_AST_BTAG, e->name)) {
        if (variant_has(v, SNET_AST_FIELD, e->name))
            lang_error(p, e->at, "'%s' in %s is a field; tag expressions use tags <%s>", e->name,
                       what, e->name);
        else
            lang_error(p, e->at, "tag '%s' in %s is not in the pattern", e->name, what);
    }
    check_expr_names(p, e->a, v, what);
    check_expr_names(p, e->b, v, what);
    check_expr_names(p, e->c, v, what);
}

/* Expand type names of t into out (defined in scope s, inside self). */
static void resolve_type(snet_lang_program *p, scope *s, const snet_ast_def *self,
                         const snet_ast_type *t, snet_ast_type *out)
{
    *out = (snet_ast_type){NULL, 0, t->at};
    for (size_t i = 0; i < t->count; i++) {
        const snet_ast_variant *v = &t->variants[i];
        if (!v->type_name) {
            check_duplicates(p, v);
            if (v->guard)
                check_expr_names(p, v->guard, v, "a guard");
            lang_push(p, (void **)&out->variants, &out->count, sizeof *v, v);
            continue;
        }
        snet_ast_def *d = lookup(s, v->type_name, SNET_D_TYPE, self);
        if (!d) {
            lang_error(p, v->at, "unknown type '%s'", v->type_name);
            continue;
        }
        resolve_def(p, d);
        const snet_ast_type *named = &lang_def(d)->type;
        for (size_t j = 0; j < named->count; j++)
            lang_push(p, (void **)&out->variants, &out->count, sizeof named->variants[j],
                      &named->variants[j]);
    }
}

static void resolve_sig(snet_lang_program *p, scope *s, const snet_ast_def *self,
                        const snet_ast_sig *sig, snet_ast_sig *out)
{
    *out = (snet_ast_sig){NULL, 0};
    for (size_t i = 0; i < sig->count; i++) {
        const snet_ast_mapping *m = &sig->maps[i];
        if (m->typesig) {
            snet_ast_def *d = lookup(s, m->typesig, SNET_D_TYPESIG, self);
            if (!d) {
                lang_error(p, m->at, "unknown typesig '%s'", m->typesig);
                continue;
            }
            resolve_def(p, d);
            const snet_ast_sig *named = &lang_def(d)->sig;
            for (size_t j = 0; j < named->count; j++)
                lang_push(p, (void **)&out->maps, &out->count, sizeof named->maps[j],
                          &named->maps[j]);
            continue;
        }
        snet_ast_mapping r = {{0}, {0}, NULL, m->open_out, m->at};
        resolve_type(p, s, self, &m->in, &r.in);
        resolve_type(p, s, self, &m->out, &r.out);
        lang_push(p, (void **)&out->maps, &out->count, sizeof r, &r);
    }
}

/* An external net with a signature whose outputs are all declared can be a
 * box of a box library: its box type is every input variant -> every output
 * variant. Otherwise box_in stays empty and box_out NULL-free (not a box). */
static void external_box_type(snet_lang_program *p, def_info *info)
{
    for (size_t i = 0; i < info->sig.count; i++)
        if (info->sig.maps[i].open_out || info->sig.maps[i].in.count == 0)
            return;
    for (size_t i = 0; i < info->sig.count; i++) {
        const snet_ast_mapping *m = &info->sig.maps[i];
        for (size_t v = 0; v < m->in.count; v++)
            lang_push(p, (void **)&info->box_in.variants, &info->box_in.count,
                      sizeof m->in.variants[v], &m->in.variants[v]);
        for (size_t v = 0; v < m->out.count; v++)
            lang_push(p, (void **)&info->box_out.variants, &info->box_out.count,
                      sizeof m->out.variants[v], &m->out.variants[v]);
    }
    info->boxable = info->sig.count > 0;
}

static void resolve_def(snet_lang_program *p, snet_ast_def *d)
{
    def_info *info = lang_def(d);
    if (info->state == 2)
        return;
    if (info->state == 1) {
        lang_error(p, d->at, "%s '%s' is defined in terms of itself", kind_name(d->kind), d->name);
        return;
    }
    info->state = 1;
    switch (d->kind) {
    case SNET_D_TYPE: resolve_type(p, info->where, d, &d->type, &info->type); break;
    case SNET_D_TYPESIG: resolve_sig(p, info->where, d, &d->sig, &info->sig); break;
    case SNET_D_BOX:
        resolve_type(p, info->where, d, &d->box_in, &info->box_in);
        resolve_type(p, info->where, d, &d->box_out, &info->box_out);
        for (size_t i = 0; i < info->box_in.count; i++)
            if (info->box_in.variants[i].guard)
                lang_error(p, info->box_in.variants[i].at, "box types have no guards");
        break;
    case SNET_D_NET:
        resolve_sig(p, info->where, d, &d->sig, &info->sig);
        info->has_sig = d->sig.count > 0;
        if (!d->body)
            external_box_type(p, info);
        break;
    default: break;
    }
    info->state = 2;
}

/* ---- network expressions ---------------------------------------------------------------- */

static void check_filter(snet_lang_program *p, const snet_ast_filter *f)
{
    if (f->identity)
        return;
    const snet_ast_variant *pat = &f->pattern;
    check_duplicates(p, pat);
    for (size_t b = 0; b < f->count; b++) {
        const snet_ast_branch *br = &f->branches[b];
        check_expr_names(p, br->guard, pat, "the filter's guard");
        for (size_t o = 0; o < br->count; o++) {
            const snet_ast_output *out = &br->outputs[o];
            for (size_t i = 0; i < out->count; i++) {
                const snet_ast_item *it = &out->items[i];
                for (size_t j = 0; j < i; j++)
                    if (out->items[j].kind == it->kind && !strcmp(out->items[j].name, it->name))
                        lang_error(p, it->at, "label '%s' is set twice in one filter output",
                                   it->name);
                if (it->kind == SNET_AST_FIELD) {
                    if (!variant_has(pat, SNET_AST_FIELD, it->source))
                        lang_error(p, it->at, "field '%s' is not in the filter's pattern",
                                   it->source);
                } else if (it->expr) {
                    check_expr_names(p, it->expr, pat, "the filter's output");
                } /* <t> alone keeps t, or makes a new tag 0 */
            }
        }
    }
}

static void check_patterns(snet_lang_program *p, const snet_ast_type *t)
{
    for (size_t i = 0; i < t->count; i++) {
        check_duplicates(p, &t->variants[i]);
        check_expr_names(p, t->variants[i].guard, &t->variants[i], "a guard");
    }
}

/* The external net a name defined nowhere stands for (one per name,
 * made at its first use, which it is noted at). Like the original
 * compiler, the program treats it as a net compiled elsewhere. */
static snet_ast_def *external_net(snet_lang_program *p, const snet_ast_net *n)
{
    for (size_t i = 0; i < p->nexternals; i++)
        if (!strcmp(p->externals[i]->name, n->name))
            return p->externals[i];
    snet_ast_def *d = lang_alloc(p, sizeof *d);
    def_info *info = lang_alloc(p, sizeof *info);
    if (!d || !info || !lang_push(p, (void **)&p->externals, &p->nexternals, sizeof d, &d))
        return NULL;
    *d = (snet_ast_def){.kind = SNET_D_NET, .name = n->name, .at = n->at, .info = info};
    info->where = p->top;
    info->state = 2;
    info->external = true;
    lang_note(p, n->at, "'%s' is defined nowhere in this file: an external net, of any "
              "record type here (at run time a net of another .snet file, or a box)", n->name);
    return d;
}

static void resolve_net(snet_lang_program *p, scope *s, snet_ast_net *n)
{
    switch (n->kind) {
    case SNET_N_REF: {
        snet_ast_def *d = lookup(s, n->name, SNET_D_NET, NULL);
        if (!d)
            d = external_net(p, n);
        if (!d)
            return;
        node_info *ni = lang_node(p, n);
        if (ni)
            ni->def = d;
        lang_def(d)->used = true;
        return;
    }
    case SNET_N_FILTER: check_filter(p, &n->filter); return;
    case SNET_N_SYNC:
    case SNET_N_STAR:
    case SNET_N_FEEDBACK:
        check_patterns(p, &n->patterns);
        break;
    default: break;
    }
    if (n->a)
        resolve_net(p, s, n->a);
    if (n->b)
        resolve_net(p, s, n->b);
}

static void resolve_scope(snet_lang_program *p, scope *s)
{
    for (size_t i = 0; i < s->ndefs; i++) {
        snet_ast_def *d = s->defs[i];
        if (d->kind == SNET_D_METADATA)
            continue;
        resolve_def(p, d);
        if (d->kind != SNET_D_NET)
            continue;
        def_info *info = lang_def(d);
        resolve_scope(p, info->body);
        if (d->body)
            resolve_net(p, info->body, d->body);
    }
}

/* A net may not use itself, directly or through others. */
static bool find_cycle(snet_lang_program *p, const snet_ast_net *n, snet_ast_def *start);

/* The nets on a cycle already reported are not searched again (each
 * would report the same cycle). */
static bool net_cycle(snet_lang_program *p, snet_ast_def *d, snet_ast_def *start)
{
    def_info *info = lang_def(d);
    if (info->visiting || info->in_cycle)
        return false;
    info->visiting = 1;
    bool found = d->body && find_cycle(p, d->body, start);
    info->visiting = 0;
    info->in_cycle = found;
    return found;
}

static bool find_cycle(snet_lang_program *p, const snet_ast_net *n, snet_ast_def *start)
{
    if (n->kind == SNET_N_REF) {
        const node_info *ni = n->info;
        if (!ni || !ni->def || ni->def->kind != SNET_D_NET)
            return false;
        if (ni->def == start) {
            lang_error(p, n->at, "net '%s' uses itself (recursive networks are not supported)",
                       start->name);
            return true;
        }
        return net_cycle(p, ni->def, start);
    }
    return (n->a && find_cycle(p, n->a, start)) || (n->b && find_cycle(p, n->b, start));
}

static void check_cycles(snet_lang_program *p, scope *s)
{
    for (size_t i = 0; i < s->ndefs; i++) {
        snet_ast_def *d = s->defs[i];
        if (d->kind != SNET_D_NET)
            continue;
        net_cycle(p, d, d);
        check_cycles(p, lang_def(d)->body);
    }
}

/* ---- the main net ------------------------------------------------------------------------- */

/* The net named like the file, else the last top-level net; nets with a
 * network before nets that are only declared (external nets). */
static snet_ast_def *choose_main(snet_lang_program *p, const char *wanted)
{
    snet_ast_def *last = NULL, *same = NULL;
    const char *base = strrchr(p->file, '/');
    base = base ? base + 1 : p->file;
    size_t blen = strcspn(base, ".");
    for (size_t i = 0; i < p->top->ndefs; i++) {
        snet_ast_def *d = p->top->defs[i];
        if (d->kind != SNET_D_NET)
            continue;
        if (wanted && !strcmp(d->name, wanted))
            return d;
        if (strlen(d->name) == blen && !strncmp(d->name, base, blen))
            same = d;
        if (!last || !last->body || d->body)
            last = d;
    }
    if (wanted) {
        lang_error(p, (snet_src){0, 0}, "there is no top-level net '%s'", wanted);
        return NULL;
    }
    if (!last)
        lang_error(p, (snet_src){0, 0}, "no net is defined at the top level");
    return same && (same->body || !last->body) ? same : last;
}

/* ---- loading ------------------------------------------------------------------------------------ */

int snet_lang_load(const char *text, size_t len, const char *file, const snet_lang_options *opt,
                   FILE *diag, snet_lang_program **out)
{
    *out = NULL;
    snet_lang_program *p = calloc(1, sizeof *p);
    if (!p)
        return SNET_LANG_NOMEM;
    p->arena = snet_arena_new();
    p->file = file ? file : "-";
    p->diag = diag;
    p->max_errors = opt && opt->max_errors > 0 ? opt->max_errors : 20;
    if (!p->arena) {
        free(p);
        return SNET_LANG_NOMEM;
    }
    snet_diag d;
    int rc = snet_syntax_parse_program(text, len, p->file, &p->ast, &d);
    if (rc != SNET_SYNTAX_OK) {
        if (rc == SNET_SYNTAX_NOMEM)
            p->nomem = true;
        else
            lang_error(p, d.at, "%s", d.message);
    } else {
        p->file = p->ast->file;
        p->top = make_scope(p, NULL, NULL, p->ast->defs, p->ast->ndefs);
        if (p->top) {
            resolve_scope(p, p->top);
            check_cycles(p, p->top);
            p->main = choose_main(p, opt ? opt->net : NULL);
        }
        if (!p->errors && !p->nomem && p->main)
            lang_infer(p);
    }
    if (p->nomem && diag)
        fprintf(diag, "%s: error: out of memory\n", p->file);
    if (p->errors || p->nomem) {
        rc = p->nomem ? SNET_LANG_NOMEM : SNET_LANG_ERROR;
        snet_lang_free(p);
        return rc;
    }
    *out = p;
    return SNET_LANG_OK;
}

int snet_lang_load_file(const char *path, const snet_lang_options *opt, FILE *diag,
                        snet_lang_program **out)
{
    *out = NULL;
    bool use_stdin = !strcmp(path, "-");
    FILE *f = use_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        if (diag)
            fprintf(diag, "%s: error: cannot open: %s\n", path, strerror(errno));
        return SNET_LANG_IO;
    }
    size_t len = 0, cap = 0;
    char *text = NULL;
    int rc = SNET_LANG_OK;
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 65536;
            char *grown = realloc(text, cap);
            if (!grown) {
                rc = SNET_LANG_NOMEM;
                break;
            }
            text = grown;
        }
        size_t n = fread(text + len, 1, cap - len, f);
        len += n;
        if (n == 0)
            break;
    }
    if (rc == SNET_LANG_OK && ferror(f)) {
        if (diag)
            fprintf(diag, "%s: error: cannot read: %s\n", path, strerror(errno));
        rc = SNET_LANG_IO;
    }
    if (!use_stdin)
        fclose(f);
    if (rc == SNET_LANG_OK)
        rc = snet_lang_load(text, len, path, opt, diag, out);
    free(text);
    return rc;
}

void snet_lang_free(snet_lang_program *p)
{
    if (!p)
        return;
    snet_ast_program_free(p->ast);
    kit_index_map_free(&p->vcache_map);
    snet_arena_free(p->arena);
    free(p);
}

const char *snet_lang_main_net(const snet_lang_program *p) { return p->main->name; }

size_t snet_lang_library_count(const snet_lang_program *p) { return p->nlibraries; }

const char *snet_lang_library(const snet_lang_program *p, size_t i)
{
    return i < p->nlibraries ? p->libraries[i] : NULL;
}
