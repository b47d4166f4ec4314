/*
 * syntax_print.c - writing syntax trees back as S-Net text. The output
 * parses to the same tree (binary operators are parenthesised, so no
 * precedence question arises); the builder calls of a .snet program and
 * the tree that snetrun --parse-only shows are both made with it.
 */
#include "snet_syntax.h"

#include <string.h>

/* All printers return 0, or -1 when the stream failed. */
#define OUT(...) do { if (fprintf(out, __VA_ARGS__) < 0) return -1; } while (0)
#define TRY(x) do { if ((x) != 0) return -1; } while (0)

int snet_ast_print_label(FILE *out, const snet_ast_label *l)
{
    switch (l->kind) {
    case SNET_AST_TAG: OUT("<%s>", l->name); break;
    case SNET_AST_BTAG: OUT("<#%s>", l->name); break;
    default: OUT("%s", l->name); break;
    }
    return 0;
}

int snet_ast_print_variant(FILE *out, const snet_ast_variant *v)
{
    if (v->type_name) {
        OUT("%s", v->type_name);
    } else {
        OUT("{");
        for (size_t i = 0; i < v->count; i++) {
            if (i)
                OUT(", ");
            TRY(snet_ast_print_label(out, &v->labels[i]));
        }
        OUT("}");
    }
    if (v->guard) {
        OUT(" if <");
        TRY(snet_ast_print_expr(out, v->guard));
        OUT(">");
    }
    return 0;
}

int snet_ast_print_type(FILE *out, const snet_ast_type *t, const char *sep)
{
    for (size_t i = 0; i < t->count; i++) {
        if (i)
            OUT("%s", sep);
        TRY(snet_ast_print_variant(out, &t->variants[i]));
    }
    return 0;
}

int snet_ast_print_mapping(FILE *out, const snet_ast_mapping *m)
{
    if (m->typesig) {
        OUT("%s", m->typesig);
        return 0;
    }
    TRY(snet_ast_print_type(out, &m->in, " | "));
    OUT(m->in.count ? " -> " : "-> ");
    if (m->open_out)
        OUT("...");
    return snet_ast_print_type(out, &m->out, " | ");
}

int snet_ast_print_sig(FILE *out, const snet_ast_sig *s)
{
    for (size_t i = 0; i < s->count; i++) {
        if (i)
            OUT(", ");
        TRY(snet_ast_print_mapping(out, &s->maps[i]));
    }
    return 0;
}

static const char *binary_op(snet_ast_op op)
{
    switch (op) {
    case SNET_X_ADD: return "+";
    case SNET_X_SUB: return "-";
    case SNET_X_MUL: return "*";
    case SNET_X_DIV: return "/";
    case SNET_X_MOD: return "%";
    case SNET_X_EQ: return "==";
    case SNET_X_NE: return "!=";
    case SNET_X_LT: return "<";
    case SNET_X_LE: return "<=";
    case SNET_X_GT: return ">";
    case SNET_X_GE: return ">=";
    case SNET_X_AND: return "&&";
    case SNET_X_OR: return "||";
    default: return NULL;
    }
}

int snet_ast_print_expr(FILE *out, const snet_ast_expr *e)
{
    const char *op = binary_op(e->op);
    if (op) {
        OUT("(");
        TRY(snet_ast_print_expr(out, e->a));
        OUT(" %s ", op);
        TRY(snet_ast_print_expr(out, e->b));
        OUT(")");
        return 0;
    }
    switch (e->op) {
    case SNET_X_NUM:
        if (e->value < 0)
            OUT("(%ld)", e->value); /* reads back as a negation */
        else
            OUT("%ld", e->value);
        return 0;
    case SNET_X_TAG: OUT("%s", e->name); return 0;
    case SNET_X_NEG: OUT("(-"); break;
    case SNET_X_NOT: OUT("(!"); break;
    case SNET_X_ABS: OUT("abs("); break;
    case SNET_X_MIN: OUT("min("); break;
    case SNET_X_MAX: OUT("max("); break;
    case SNET_X_COND:
        OUT("(");
        TRY(snet_ast_print_expr(out, e->a));
        OUT(" ? ");
        TRY(snet_ast_print_expr(out, e->b));
        OUT(" : ");
        TRY(snet_ast_print_expr(out, e->c));
        OUT(")");
        return 0;
    default: return -1;
    }
    TRY(snet_ast_print_expr(out, e->a));
    if (e->b) {
        OUT(", ");
        TRY(snet_ast_print_expr(out, e->b));
    }
    OUT(")");
    return 0;
}

static int print_item(FILE *out, const snet_ast_item *it)
{
    if (it->kind == SNET_AST_FIELD) {
        if (it->source && *it->source && strcmp(it->source, it->name) != 0)
            OUT("%s=%s", it->name, it->source);
        else
            OUT("%s", it->name);
        return 0;
    }
    OUT("<%s%s", it->kind == SNET_AST_BTAG ? "#" : "", it->name);
    if (it->expr) {
        OUT("=");
        TRY(snet_ast_print_expr(out, it->expr));
    }
    OUT(">");
    return 0;
}

static int print_outputs(FILE *out, const snet_ast_branch *b)
{
    for (size_t i = 0; i < b->count; i++) {
        OUT(i ? "; {" : " {");
        for (size_t j = 0; j < b->outputs[i].count; j++) {
            if (j)
                OUT(", ");
            TRY(print_item(out, &b->outputs[i].items[j]));
        }
        OUT("}");
    }
    return 0;
}

int snet_ast_print_filter(FILE *out, const snet_ast_filter *f)
{
    if (f->identity) {
        OUT("[]");
        return 0;
    }
    OUT("[");
    TRY(snet_ast_print_variant(out, &f->pattern));
    if (f->count == 1 && !f->branches[0].guard) {
        OUT(" ->");
        TRY(print_outputs(out, &f->branches[0]));
    } else {
        for (size_t i = 0; i < f->count; i++) {
            const snet_ast_branch *b = &f->branches[i];
            if (b->guard) {
                OUT(" if <");
                TRY(snet_ast_print_expr(out, b->guard));
                OUT("> ->");
            } else {
                OUT(" else ->");
            }
            TRY(print_outputs(out, b));
            if (!b->guard)
                break; /* an else ends the list */
        }
    }
    OUT("]");
    return 0;
}

static int print_operand(FILE *out, const snet_ast_net *n)
{
    bool simple = n->kind == SNET_N_REF || n->kind == SNET_N_FILTER || n->kind == SNET_N_SYNC;
    if (!simple)
        OUT("(");
    TRY(snet_ast_print_net(out, n));
    if (!simple)
        OUT(")");
    return 0;
}

int snet_ast_print_net(FILE *out, const snet_ast_net *n)
{
    switch (n->kind) {
    case SNET_N_REF: OUT("%s", n->name); return 0;
    case SNET_N_FILTER: return snet_ast_print_filter(out, &n->filter);
    case SNET_N_SYNC:
        OUT("[| ");
        TRY(snet_ast_print_type(out, &n->patterns, ", "));
        OUT(" |]");
        return 0;
    case SNET_N_SERIAL:
    case SNET_N_PARALLEL:
        TRY(print_operand(out, n->a));
        OUT(" %s ", n->kind == SNET_N_SERIAL ? ".." : n->det ? "||" : "|");
        return print_operand(out, n->b);
    case SNET_N_STAR:
    case SNET_N_FEEDBACK:
        TRY(print_operand(out, n->a));
        if (n->kind == SNET_N_STAR)
            OUT(n->det ? " ** " : " * ");
        else
            OUT(n->det ? " \\\\ " : " \\ ");
        TRY(snet_ast_print_type(out, &n->patterns, ", "));
        return 0;
    case SNET_N_SPLIT:
        TRY(print_operand(out, n->a));
        OUT(" %s%s <%s>", n->det ? "!!" : "!", n->placed ? "@" : "", n->tag);
        return 0;
    case SNET_N_AT:
        TRY(print_operand(out, n->a));
        OUT(" @ %ld", n->worker);
        return 0;
    }
    return -1;
}
