/*
 * build.c - snet_lang_build: the checked program becomes a network
 * description through the builder API of snet.h, exactly as a C program
 * would write it. Filters, patterns and signatures are handed over as
 * S-Net text printed from the checked tree (type names expanded), which
 * the builder parses with the same grammar; nets are expanded where they
 * are used, so every use is its own instance.
 */
#include "lang_internal.h"

#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct builder {
    const snet_lang_program *p;
    snet_lang_resolve_fn resolve;
    void *ctx;
    char *err;
    size_t errlen;
    bool failed;
} builder;

static void fail(builder *b, snet_src at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void fail(builder *b, snet_src at, const char *fmt, ...)
{
    if (b->failed)
        return;
    b->failed = true;
    int n = at.line > 0 ? snprintf(b->err, b->errlen, "%s:%d:%d: ", b->p->file, at.line, at.column)
                        : snprintf(b->err, b->errlen, "%s: ", b->p->file);
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
    text_buf sig;
    if (text_open(&sig)) {
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
    if (!d->body) {
        fail(b, d->at, "net '%s' is only declared (a signature without a network); nets "
             "compiled elsewhere are not supported", d->name);
        return NULL;
    }
    return build(b, d->body);
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
    switch (n->kind) {
    case SNET_N_REF: return build_ref(b, n);
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
    case SNET_N_SERIAL:
        if (operands(b, n, &x, &y))
            result = snet_serial(x, y);
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
    return result;
}

snet_net *snet_lang_build(const snet_lang_program *p, snet_lang_resolve_fn resolve, void *ctx,
                          char *err, size_t errlen)
{
    char scratch[8];
    builder b = {p, resolve, ctx, err ? err : scratch, err ? errlen : sizeof scratch, false};
    if (errlen && err)
        err[0] = '\0';
    if (!p->main->body) {
        fail(&b, p->main->at, "net '%s' is only declared; there is no network to run",
             p->main->name);
        return NULL;
    }
    snet_net *net = build(&b, p->main->body);
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
