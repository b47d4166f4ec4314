/*
 * tree.c - snet_lang_print_tree: the main net as an indented tree, nets
 * expanded in place, each node with the record types the inference saw
 * reaching it ("in") and leaving it ("out"), and the branches of parallel
 * compositions with the record types they are chosen for ("route"). Chains
 * of the same serial or parallel combinator are shown as one node with
 * several children.
 *
 *   net mc  {paths, batch} -> ...                          [mc.snet:12:5]
 *     serial ..
 *       box png (paths, batch) -> (...) | (...)          [mc.snet:13:9]
 *         in  {paths, batch}
 *         out {req, first, count} | {Sum, <cnt>, <M>}
 */
#include "lang_internal.h"

#include <string.h>

typedef struct tree_out {
    const snet_lang_program *p;
    FILE *out;
} tree_out;

static void where(tree_out *t, snet_src at)
{
    if (at.line > 0)
        fprintf(t->out, "   [%s:%d:%d]", t->p->file, at.line, at.column);
    fputc('\n', t->out);
}

/* A branch of a parallel composition: the record types it is chosen for. */
static void route(tree_out *t, int depth, const node_info *ni)
{
    if (!ni || !ni->routed)
        return;
    fprintf(t->out, "%*s  route ", depth * 2, "");
    if (ni->route.n)
        lang_print_tset(t->p, &ni->route, t->out);
    else
        fputs("(none: it is never chosen)", t->out);
    fputc('\n', t->out);
}

static void types(tree_out *t, int depth, const snet_ast_net *n)
{
    const node_info *ni = n->info;
    route(t, depth, ni);
    if (!ni || (ni->in.n == 0 && ni->out.n == 0)) {
        fprintf(t->out, "%*s  (no record reaches it)\n", depth * 2, "");
        return;
    }
    fprintf(t->out, "%*s  in  ", depth * 2, "");
    lang_print_tset(t->p, &ni->in, t->out);
    fprintf(t->out, "\n%*s  out ", depth * 2, "");
    lang_print_tset(t->p, &ni->out, t->out);
    fputc('\n', t->out);
}

static void print_sig(tree_out *t, const def_info *d)
{
    if (!d->sig.count)
        return;
    fputs(" (", t->out);
    snet_ast_print_sig(t->out, &d->sig);
    fputc(')', t->out);
}

static void node(tree_out *t, int depth, const snet_ast_net *n);

/* The operands of a chain of one combinator (a .. b .. c). */
static void chain(tree_out *t, int depth, const snet_ast_net *n, snet_ast_net_kind kind, bool det)
{
    if (n->kind == kind && n->det == det) {
        chain(t, depth, n->a, kind, det);
        chain(t, depth, n->b, kind, det);
    } else {
        node(t, depth, n);
    }
}

static void net_body(tree_out *t, int depth, const snet_ast_def *net)
{
    if (net->body)
        node(t, depth, net->body);
    else
        fprintf(t->out, "%*s(an external net: its network is elsewhere)\n", depth * 2, "");
}

static void node(tree_out *t, int depth, const snet_ast_net *n)
{
    FILE *o = t->out;
    fprintf(o, "%*s", depth * 2, "");
    switch (n->kind) {
    case SNET_N_REF: {
        const node_info *ni = n->info;
        const snet_ast_def *d = ni ? ni->def : NULL;
        if (d && d->kind == SNET_D_BOX) {
            const def_info *di = lang_def(d);
            const snet_ast_def *net = lang_box_net(d);
            fprintf(o, "box %s%s%s (", net ? net->name : "", net ? "." : "", d->name);
            snet_ast_print_mapping(o, &(snet_ast_mapping){.in = di->box_in, .out = di->box_out});
            fputc(')', o);
            if (d->code)
                fputs(" with inline code", o);
            where(t, n->at);
            types(t, depth, n);
            return;
        }
        fprintf(o, "net %s", n->name);
        if (d)
            print_sig(t, lang_def(d));
        where(t, n->at);
        types(t, depth, n);
        if (d)
            net_body(t, depth + 1, d);
        return;
    }
    case SNET_N_FILTER:
        fputs("filter ", o);
        snet_ast_print_filter(o, &n->filter);
        break;
    case SNET_N_SYNC:
        fputs("synchro-cell [| ", o);
        snet_ast_print_type(o, &n->patterns, ", ");
        fputs(" |]", o);
        break;
    case SNET_N_SERIAL:
    case SNET_N_PARALLEL:
        fputs(n->kind == SNET_N_SERIAL ? "serial .." : n->det ? "parallel ||" : "parallel |", o);
        where(t, n->at);
        types(t, depth, n);
        chain(t, depth + 1, n->a, n->kind, n->det);
        chain(t, depth + 1, n->b, n->kind, n->det);
        return;
    case SNET_N_STAR:
    case SNET_N_FEEDBACK:
        fprintf(o, "%s %s ", n->kind == SNET_N_STAR ? "star" : "feedback",
                n->kind == SNET_N_STAR ? (n->det ? "**" : "*") : (n->det ? "\\\\" : "\\"));
        snet_ast_print_type(o, &n->patterns, ", ");
        break;
    case SNET_N_SPLIT:
        fprintf(o, "split %s%s <%s>", n->det ? "!!" : "!", n->placed ? "@" : "", n->tag);
        break;
    case SNET_N_AT: fprintf(o, "placement @%ld", n->worker); break;
    }
    where(t, n->at);
    types(t, depth, n);
    if (n->a)
        node(t, depth + 1, n->a);
}

int snet_lang_print_tree(const snet_lang_program *p, FILE *out)
{
    tree_out t = {p, out};
    const snet_ast_def *main = p->main;
    const def_info *d = lang_def(main);
    fprintf(out, "net %s", main->name);
    print_sig(&t, d);
    where(&t, main->at);
    if (d->in.n || d->out.n) {
        fputs("  in  ", out);
        lang_print_tset(p, &d->in, out);
        fputs("\n  out ", out);
        lang_print_tset(p, &d->out, out);
        fputc('\n', out);
    }
    net_body(&t, 1, main);
    return ferror(out) ? -1 : 0;
}
