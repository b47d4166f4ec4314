/*
 * build.c - snet_lang_build: the checked program becomes a network
 * description through the builder API of snet.h, exactly as a C program
 * would write it. Filters, patterns and signatures are handed over as
 * S-Net text printed from the checked tree (type names expanded), which
 * the builder parses with the same grammar; nets are expanded where they
 * are used, so every use is its own instance. Each branch of a parallel
 * composition gets the routing type the checker inferred (snet_routed).
 *
 * An external net (a name defined nowhere in the file, or a net that is
 * only declared) is the net of that name in a program linked with
 * snet_lang_link, built from that program, or else a function of a box
 * library called as a box with the net's declared signature.
 */
#include "lang_internal.h"

#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The external nets being expanded, innermost first (a cycle of them
 * through several files is an error, not a recursion without end). */
typedef struct expansion {
    const snet_ast_def *def;
    const struct expansion *up;
} expansion;

typedef struct builder {
    const snet_lang_program *p;    /* the program whose nets are built */
    const snet_lang_program *root; /* the one snet_lang_build got: its links */
    snet_lang_resolve_fn resolve;
    void *ctx;
    char *err;
    size_t errlen;
    bool failed;
    const char *context; /* said before the message of a failure */
    const expansion *expanding;
    /* Building the head of a parallel branch that attracts no record: a
     * box without input type there is an initialiser (fires once); the
     * first box built clears it. */
    bool initialiser_head;
} builder;

static void fail(builder *b, snet_src at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void fail(builder *b, snet_src at, const char *fmt, ...)
{
    if (b->failed)
        return;
    b->failed = true;
    const char *ctx = b->context ? b->context : "";
    int n = at.line > 0 ? snprintf(b->err, b->errlen, "%s:%d:%d: %s", b->p->file, at.line,
                                   at.column, ctx)
                        : snprintf(b->err, b->errlen, "%s: %s", b->p->file, ctx);
    if (n < 0 || (size_t)n >= b->errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->err + n, b->errlen - (size_t)n, fmt, ap);
    va_end(ap);
}

/* Text made by a printer, malloc'ed (NULL when out of memory). */
typedef struct text_buf {
    char *text;
    size_t len;
    FILE *f;
} text_buf;

static FILE *text_open(text_buf *t)
{
    *t = (text_buf){NULL, 0, NULL};
    t->f = open_memstream(&t->text, &t->len);
    return t->f;
}

static char *text_close(builder *b, text_buf *t, snet_src at)
{
    if (!t->f || fclose(t->f) != 0 || !t->text) {
        free(t->text);
        fail(b, at, "out of memory");
        return NULL;
    }
    return t->text;
}

static snet_net *build(builder *b, const snet_ast_net *n);

static snet_net *build_box(builder *b, const snet_ast_def *box)
{
    const def_info *d = lang_def(box);
    const snet_ast_def *net = lang_box_net(box);
    box_meta m = lang_box_meta(box);
    if (box->code) {
        fail(b, box->at, "box '%s' has inline code; this runtime runs boxes compiled into a "
             "shared library (give the C function '%s' in one)", box->name, box->name);
        return NULL;
    }
    if (strcasecmp(m.interface, "C4SNet") != 0 && strcasecmp(m.interface, "native") != 0) {
        fail(b, box->at, "box '%s' uses the box interface '%s'; this runtime runs C4SNet boxes "
             "and boxes of its own API (native)", box->name, m.interface);
        return NULL;
    }
    /* Without an input type: an initialiser at the head of a branch no
     * record reaches, elsewhere a box taking any record whole, called
     * without arguments (infer.c, infer_initialiser). */
    bool takes_any = d->box_in.count == 0 && !b->initialiser_head;
    b->initialiser_head = false;
    text_buf sig;
    if (text_open(&sig)) {
        if (takes_any)
            fputs("{}", sig.f);
        snet_ast_print_type(sig.f, &d->box_in, " | ");
        fputs(" -> ", sig.f);
        snet_ast_print_type(sig.f, &d->box_out, " | ");
    }
    char *signature = text_close(b, &sig, box->at);
    size_t len = (net ? strlen(net->name) + 1 : 0) + strlen(box->name) + 1;
    char *name = malloc(len);
    if (!signature || !name) {
        free(signature);
        free(name);
        fail(b, box->at, "out of memory");
        return NULL;
    }
    snet_lang_box_query q = {box->name, net ? net->name : NULL, m.symbol, m.library,
                             m.interface, signature};
    snet_box_fn fn = NULL;
    void *user = NULL;
    char why[512] = "";
    if (b->resolve(b->ctx, &q, &fn, &user, why, sizeof why) != 0 || !fn) {
        fail(b, box->at, "box '%s': %s", box->name, why[0] ? why : "no C function for it");
        free(signature);
        free(name);
        return NULL;
    }
    snprintf(name, len, "%s%s%s", net ? net->name : "", net ? "." : "", box->name);
    snet_net *result = snet_box(name, signature, fn, user);
    free(signature);
    free(name);
    return result;
}

static char *patterns_text(builder *b, const snet_ast_type *t, snet_src at)
{
    text_buf buf;
    if (text_open(&buf))
        snet_ast_print_type(buf.f, t, " | ");
    return text_close(b, &buf, at);
}

/* The top-level net called name in q, NULL if none. */
static const snet_ast_def *top_net(const snet_lang_program *q, const char *name)
{
    for (size_t i = 0; i < q->top->ndefs; i++) {
        const snet_ast_def *d = q->top->defs[i];
        if (d->kind == SNET_D_NET && !strcmp(d->name, name))
            return d;
    }
    return NULL;
}

/* The .snet files linked to the root, for messages ("" if none). */
static void linked_files(const builder *b, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < b->root->nlinked && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
                                 b->root->linked[i]->file);
}

/* Net def of program q, built for an external net used in b. */
static snet_net *build_linked(builder *b, const snet_lang_program *q, const snet_ast_def *def,
                              snet_src at)
{
    for (const expansion *e = b->expanding; e; e = e->up)
        if (e->def == def) {
            fail(b, at, "external net '%s' of %s uses itself", def->name, q->file);
            return NULL;
        }
    expansion here = {def, b->expanding};
    builder sub = *b;
    sub.p = q;
    sub.expanding = &here;
    snet_net *net = build(&sub, def->body);
    if (sub.failed) { /* the message is in the shared buffer */
        b->failed = true;
        snet_net_free(net);
        return NULL;
    }
    return net;
}

/*
 * An external net: the net of that name in a linked program, else a box
 * with its declared signature (its own declaration, or one in a linked
 * program). One message says where it was looked for if it is nowhere.
 */
static snet_net *build_external(builder *b, const snet_ast_def *d, snet_src at)
{
    const snet_lang_program *decl_prog = lang_def(d)->boxable ? b->p : NULL;
    const snet_ast_def *decl = decl_prog ? d : NULL;
    for (size_t i = 0; i < b->root->nlinked; i++) {
        const snet_lang_program *q = b->root->linked[i];
        const snet_ast_def *def = top_net(q, d->name);
        if (def && def->body)
            return build_linked(b, q, def, at);
        if (def && !decl && lang_def(def)->boxable) {
            decl = def;
            decl_prog = q;
        }
    }
    char files[512], context[768];
    linked_files(b, files, sizeof files);
    snprintf(context, sizeof context, "external net '%s' has a network in no other .snet file "
             "given (%s)%s", d->name, files[0] ? files : "none was", decl ? "; as a box: " : "");
    if (!decl) {
        builder at_use = *b;
        at_use.context = context;
        fail(&at_use, at, "; without a signature it cannot be a function of a box library");
        b->failed = true;
        return NULL;
    }
    builder as_box = *b;
    as_box.p = decl_prog;
    as_box.context = context;
    snet_net *net = build_box(&as_box, decl);
    b->failed |= as_box.failed;
    return net;
}

static snet_net *build_ref(builder *b, const snet_ast_net *n)
{
    const node_info *ni = n->info;
    const snet_ast_def *d = ni ? ni->def : NULL;
    if (!d) {
        fail(b, n->at, "unresolved name '%s'", n->name);
        return NULL;
    }
    if (d->kind == SNET_D_BOX)
        return build_box(b, d);
    if (!d->body)
        return build_external(b, d, n->at);
    return build(b, d->body);
}

/* A branch of a parallel composition, with the routing type the checker
 * inferred for it ("" when it attracts no record: initialisers). */
static snet_net *route(builder *b, const snet_ast_net *n, snet_net *net)
{
    const node_info *ni = n->info;
    if (!net || !ni || !ni->routed)
        return net;
    text_buf buf;
    if (text_open(&buf) && ni->route.n)
        lang_print_tset(b->p, &ni->route, buf.f);
    char *text = text_close(b, &buf, n->at);
    if (!text) {
        snet_net_free(net);
        return NULL;
    }
    net = snet_routed(net, text);
    free(text);
    return net;
}

/* Build both operands; on failure free what was built. */
static bool operands(builder *b, const snet_ast_net *n, snet_net **x, snet_net **y)
{
    *x = build(b, n->a);
    *y = *x && n->b ? build(b, n->b) : NULL;
    if (*x && (!n->b || *y))
        return true;
    snet_net_free(*x);
    snet_net_free(*y);
    return false;
}

static snet_net *build(builder *b, const snet_ast_net *n)
{
    snet_net *x, *y;
    char *text = NULL;
    snet_net *result = NULL;
    const node_info *ni = n->info;
    if (ni && ni->routed)
        b->initialiser_head = ni->route.n == 0;
    switch (n->kind) {
    case SNET_N_REF: result = build_ref(b, n); break;
    case SNET_N_FILTER: {
        text_buf buf;
        if (text_open(&buf))
            snet_ast_print_filter(buf.f, &n->filter);
        if ((text = text_close(b, &buf, n->at)) != NULL)
            result = snet_filter(text);
        break;
    }
    case SNET_N_SYNC:
        if ((text = patterns_text(b, &n->patterns, n->at)) != NULL)
            result = snet_sync(text);
        break;
    case SNET_N_SERIAL: /* only the first operand is at the head */
        if ((x = build(b, n->a)) != NULL) {
            b->initialiser_head = false;
            if ((y = build(b, n->b)) != NULL)
                result = snet_serial(x, y);
            else
                snet_net_free(x);
        }
        break;
    case SNET_N_PARALLEL:
        if (operands(b, n, &x, &y))
            result = n->det ? snet_parallel_det(x, y) : snet_parallel(x, y);
        break;
    case SNET_N_STAR:
        if ((text = patterns_text(b, &n->patterns, n->at)) != NULL && operands(b, n, &x, &y))
            result = n->det ? snet_star_det(x, text) : snet_star(x, text);
        break;
    case SNET_N_FEEDBACK:
        if ((text = patterns_text(b, &n->patterns, n->at)) != NULL && operands(b, n, &x, &y))
            result = n->det ? snet_feedback_det(x, text) : snet_feedback(x, text);
        break;
    case SNET_N_SPLIT: {
        size_t len = strlen(n->tag) + 3;
        text = malloc(len);
        if (!text) {
            fail(b, n->at, "out of memory");
            break;
        }
        snprintf(text, len, "<%s>", n->tag);
        if (!operands(b, n, &x, &y))
            break;
        if (n->placed)
            result = n->det ? snet_split_det_at(x, text) : snet_split_at(x, text);
        else
            result = n->det ? snet_split_det(x, text) : snet_split(x, text);
        break;
    }
    case SNET_N_AT:
        if (n->worker > INT_MAX) {
            fail(b, n->at, "@%ld: no such worker", n->worker);
            break;
        }
        if (operands(b, n, &x, &y))
            result = snet_at(x, (int)n->worker);
        break;
    }
    free(text);
    return route(b, n, result);
}

int snet_lang_link(snet_lang_program *p, const snet_lang_program *other)
{
    if (!p || !other)
        return SNET_LANG_ERROR;
    return lang_push(p, (void **)&p->linked, &p->nlinked, sizeof other, &other) ? SNET_LANG_OK
                                                                              : SNET_LANG_NOMEM;
}

snet_net *snet_lang_build(const snet_lang_program *p, snet_lang_resolve_fn resolve, void *ctx,
                          char *err, size_t errlen)
{
    char scratch[8];
    builder b = {p, p, resolve, ctx, err ? err : scratch, err ? errlen : sizeof scratch,
                 false, NULL, NULL, false};
    if (errlen && err)
        err[0] = '\0';
    snet_net *net = p->main->body ? build(&b, p->main->body)
                                  : build_external(&b, p->main, p->main->at);
    if (!net)
        return NULL;
    const char *problem = snet_net_check(net);
    if (problem) { /* the checks above should have caught it: say where it came from */
        fail(&b, p->main->at, "the runtime refuses the network: %s", problem);
        snet_net_free(net);
        return NULL;
    }
    return net;
}
