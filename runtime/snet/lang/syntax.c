/*
 * syntax.c - the entry points of the S-Net parser (programs and builder
 * fragments), the arena the syntax tree lives in, and the node
 * constructors the grammar's actions use.
 *
 * An arena suits a parser: nodes are made in any order, error exits leave
 * half-built trees behind, and everything dies together. Blocks grow
 * geometrically, so a tree of n nodes costs O(log n) allocations.
 */
#include "syntax_internal.h"

#include "parser.h"
#define YYSTYPE SNET_YYSTYPE
#define YYLTYPE SNET_YYLTYPE
#include "lexer.h"

#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- arena ------------------------------------------------------------------- */

typedef struct arena_block {
    struct arena_block *next;
    size_t used, size;
    _Alignas(max_align_t) unsigned char data[];
} arena_block;

struct snet_arena {
    arena_block *head;
    size_t next_size;
};

snet_arena *snet_arena_new(void)
{
    snet_arena *a = calloc(1, sizeof *a);
    if (a)
        a->next_size = 4096;
    return a;
}

void snet_arena_free(snet_arena *a)
{
    if (!a)
        return;
    for (arena_block *b = a->head, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    free(a);
}

void *snet_arena_alloc(snet_arena *a, size_t size)
{
    const size_t align = _Alignof(max_align_t);
    size = (size + align - 1) & ~(align - 1);
    if (size == 0)
        size = align;
    arena_block *b = a->head;
    if (!b || b->size - b->used < size) {
        size_t want = a->next_size;
        while (want < size)
            want *= 2;
        b = malloc(sizeof *b + want);
        if (!b)
            return NULL;
        b->size = want;
        b->used = 0;
        b->next = a->head;
        a->head = b;
        if (a->next_size < ((size_t)1 << 24))
            a->next_size *= 2;
    }
    void *p = b->data + b->used;
    b->used += size;
    memset(p, 0, size);
    return p;
}

char *snet_arena_strndup(snet_arena *a, const char *s, size_t n)
{
    char *copy = snet_arena_alloc(a, n + 1);
    if (copy) {
        memcpy(copy, s, n);
        copy[n] = '\0';
    }
    return copy;
}

/* Capacity is implied by the count: 4, 8, 16, ... */
bool snet_arena_push(snet_arena *a, void **items, size_t *count, size_t elem, const void *item)
{
    size_t n = *count;
    if (n == 0 || (n >= 4 && (n & (n - 1)) == 0)) {
        size_t cap = n == 0 ? 4 : n * 2;
        void *grown = snet_arena_alloc(a, cap * elem);
        if (!grown)
            return false;
        if (n)
            memcpy(grown, *items, n * elem);
        *items = grown;
    }
    memcpy((char *)*items + n * elem, item, elem);
    *count = n + 1;
    return true;
}

/* ---- errors ---------------------------------------------------------------------- */

void snet_parse_error(snet_parse_state *ps, int line, int column, const char *fmt, ...)
{
    if (ps->failed)
        return;
    ps->failed = true;
    ps->diag->at = (snet_src){line, column};
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ps->diag->message, sizeof ps->diag->message, fmt, ap);
    va_end(ap);
}

/* ---- constructors --------------------------------------------------------------------- */

#define NEW(ps, T) ((T *)snet_arena_alloc((ps)->arena, sizeof(T)))

snet_ast_expr *snet_ast_new_expr(snet_parse_state *ps, snet_ast_op op, snet_ast_expr *a,
                                 snet_ast_expr *b, snet_ast_expr *c, snet_src at)
{
    snet_ast_expr *e = NEW(ps, snet_ast_expr);
    if (e)
        *e = (snet_ast_expr){.op = op, .a = a, .b = b, .c = c, .at = at};
    return e;
}

snet_ast_variant *snet_ast_new_variant(snet_parse_state *ps, snet_src at)
{
    snet_ast_variant *v = NEW(ps, snet_ast_variant);
    if (v)
        v->at = at;
    return v;
}

snet_ast_type *snet_ast_new_type(snet_parse_state *ps, snet_src at)
{
    snet_ast_type *t = NEW(ps, snet_ast_type);
    if (t)
        t->at = at;
    return t;
}

bool snet_ast_type_add(snet_parse_state *ps, snet_ast_type *t, const snet_ast_variant *v)
{
    return snet_arena_push(ps->arena, (void **)&t->variants, &t->count, sizeof *v, v);
}

snet_ast_output *snet_ast_new_output(snet_parse_state *ps, snet_src at)
{
    snet_ast_output *o = NEW(ps, snet_ast_output);
    if (o)
        o->at = at;
    return o;
}

snet_ast_branch *snet_ast_new_branch(snet_parse_state *ps, snet_ast_expr *guard, snet_src at)
{
    snet_ast_branch *b = NEW(ps, snet_ast_branch);
    if (b) {
        b->guard = guard;
        b->at = at;
    }
    return b;
}

snet_ast_filter *snet_ast_new_filter(snet_parse_state *ps, snet_src at)
{
    snet_ast_filter *f = NEW(ps, snet_ast_filter);
    if (f)
        f->at = at;
    return f;
}

bool snet_ast_filter_add(snet_parse_state *ps, snet_ast_filter *f, const snet_ast_branch *b)
{
    return snet_arena_push(ps->arena, (void **)&f->branches, &f->count, sizeof *b, b);
}

snet_ast_net *snet_ast_new_net(snet_parse_state *ps, snet_ast_net_kind kind, snet_src at)
{
    snet_ast_net *n = NEW(ps, snet_ast_net);
    if (n) {
        n->kind = kind;
        n->at = at;
    }
    return n;
}

snet_ast_def *snet_ast_new_def(snet_parse_state *ps, snet_ast_def_kind kind, char *name,
                               snet_src at)
{
    snet_ast_def *d = NEW(ps, snet_ast_def);
    if (d) {
        d->kind = kind;
        d->name = name;
        d->at = at;
    }
    return d;
}

snet_ast_sig *snet_ast_new_sig(snet_parse_state *ps) { return NEW(ps, snet_ast_sig); }

bool snet_ast_sig_add(snet_parse_state *ps, snet_ast_sig *s, const snet_ast_mapping *m)
{
    return snet_arena_push(ps->arena, (void **)&s->maps, &s->count, sizeof *m, m);
}

bool snet_ast_defs_add(snet_parse_state *ps, snet_ast_def ***defs, size_t *n, snet_ast_def *d)
{
    return snet_arena_push(ps->arena, (void **)defs, n, sizeof d, &d);
}

/* ---- parsing -------------------------------------------------------------------------- */

static int parse(snet_parse_state *ps, const char *text, size_t len)
{
    if (len > (size_t)INT_MAX - 2) {
        snet_parse_error(ps, 1, 1, "the text is too large (%zu bytes)", len);
        return SNET_SYNTAX_ERROR;
    }
    yyscan_t scanner;
    if (snet_yylex_init_extra(ps, &scanner) != 0) {
        snet_parse_error(ps, 0, 0, "out of memory");
        return SNET_SYNTAX_NOMEM;
    }
    YY_BUFFER_STATE buffer = snet_yy_scan_bytes(text ? text : "", (int)len, scanner);
    int rc = snet_yyparse(scanner, ps);
    snet_yy_delete_buffer(buffer, scanner);
    snet_yylex_destroy(scanner);
    if (rc == 2 && !ps->failed) {
        snet_parse_error(ps, 0, 0, "out of memory");
        return SNET_SYNTAX_NOMEM;
    }
    if (rc != 0 || ps->failed) {
        snet_parse_error(ps, 0, 0, "syntax error"); /* kept only if nothing better */
        return SNET_SYNTAX_ERROR;
    }
    return SNET_SYNTAX_OK;
}

static void state_init(snet_parse_state *ps, parse_mode mode, snet_arena *arena, snet_diag *d)
{
    *ps = (snet_parse_state){.arena = arena, .mode = mode, .diag = d, .line = 1, .column = 1,
                             .def_level = mode == PARSE_PROGRAM};
    d->at = (snet_src){0, 0};
    d->message[0] = '\0';
}

int snet_syntax_parse_program(const char *text, size_t len, const char *file,
                              snet_ast_program **out, snet_diag *diag)
{
    snet_diag scratch;
    if (!diag)
        diag = &scratch;
    *out = NULL;
    snet_arena *arena = snet_arena_new();
    snet_ast_program *p = arena ? snet_arena_alloc(arena, sizeof *p) : NULL;
    char *name = p ? snet_arena_strndup(arena, file ? file : "-", strlen(file ? file : "-"))
                   : NULL;
    snet_parse_state ps;
    state_init(&ps, PARSE_PROGRAM, arena, diag);
    if (!name) {
        snet_arena_free(arena);
        snet_parse_error(&ps, 0, 0, "out of memory");
        return SNET_SYNTAX_NOMEM;
    }
    int rc = parse(&ps, text, len);
    if (rc != SNET_SYNTAX_OK) {
        snet_arena_free(arena);
        return rc;
    }
    p->file = name;
    p->defs = ps.defs;
    p->ndefs = ps.ndefs;
    p->arena = arena;
    *out = p;
    return SNET_SYNTAX_OK;
}

void snet_ast_program_free(snet_ast_program *p)
{
    if (p)
        snet_arena_free(p->arena);
}

int snet_syntax_parse_fragment(snet_fragment_kind kind, const char *text, size_t len,
                               snet_fragment *out, snet_diag *diag)
{
    static const parse_mode modes[] = {
        [SNET_FRAG_BOXSIG] = PARSE_BOXSIG, [SNET_FRAG_FILTER] = PARSE_FILTER,
        [SNET_FRAG_PATTERNS] = PARSE_PATTERNS, [SNET_FRAG_TAG] = PARSE_TAG};
    snet_diag scratch;
    if (!diag)
        diag = &scratch;
    *out = (snet_fragment){.kind = kind};
    out->arena = snet_arena_new();
    snet_parse_state ps;
    state_init(&ps, modes[kind], out->arena, diag);
    if (!out->arena) {
        snet_parse_error(&ps, 0, 0, "out of memory");
        return SNET_SYNTAX_NOMEM;
    }
    ps.fragment = out;
    int rc = parse(&ps, text, len);
    if (rc != SNET_SYNTAX_OK)
        snet_fragment_free(out);
    return rc;
}

void snet_fragment_free(snet_fragment *f)
{
    if (!f)
        return;
    snet_arena_free(f->arena);
    *f = (snet_fragment){.kind = f->kind};
}
