/*
 * syntax_internal.h - what the lexer (lexer.l), the grammar (parser.y) and
 * syntax.c share: the arena every tree node lives in, the parse state the
 * scanner and parser hand around, and the node constructors the grammar's
 * actions call. Not part of the public interface (snet_syntax.h).
 */
#ifndef SNET_SYNTAX_INTERNAL_H
#define SNET_SYNTAX_INTERNAL_H

#include "snet_syntax.h"

#include <stdint.h>

/* ---- arena ------------------------------------------------------------------- */

snet_arena *snet_arena_new(void);
void snet_arena_free(snet_arena *a);
/* Zeroed memory that lives as long as the arena; NULL when out of memory. */
void *snet_arena_alloc(snet_arena *a, size_t size);
char *snet_arena_strndup(snet_arena *a, const char *s, size_t n);

/* Append one element of size elem to the array *items of *count elements,
 * growing it in the arena (capacity doubles, so appends are amortised O(1)).
 * Returns false when out of memory. */
bool snet_arena_push(snet_arena *a, void **items, size_t *count, size_t elem, const void *item);

/* ---- parse state ---------------------------------------------------------------- */

/* Which grammar the text is parsed with: a whole program or one fragment.
 * The scanner hands the matching start token to the parser first. */
typedef enum parse_mode {
    PARSE_PROGRAM,
    PARSE_BOXSIG,
    PARSE_FILTER,
    PARSE_PATTERNS,
    PARSE_TAG
} parse_mode;

typedef struct snet_parse_state {
    snet_arena *arena;
    parse_mode mode;
    bool start_sent;
    snet_diag *diag;
    bool failed;  /* diag holds the first error */
    /* position of the next character, and where the open comment began */
    int line, column;
    int comment_line, comment_column;
    /* Where definitions may start (the scanner reads '<' there as the start
     * of a <metadata> block, elsewhere as a tag bracket or comparison). */
    bool def_level;
    int depth;       /* brackets open in the current statement */
    int statement;   /* the keyword token that started it (net, box, ...) */
    bool in_connect; /* inside "connect ... ;" */
    /* results */
    snet_ast_def **defs;
    size_t ndefs;
    snet_fragment *fragment;
} snet_parse_state;

/* Record the first error (later ones are consequences). */
void snet_parse_error(snet_parse_state *ps, int line, int column, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ---- constructors used by the grammar's actions (NULL: out of memory) ---------- */

snet_ast_expr *snet_ast_new_expr(snet_parse_state *ps, snet_ast_op op, snet_ast_expr *a,
                                 snet_ast_expr *b, snet_ast_expr *c, snet_src at);
snet_ast_variant *snet_ast_new_variant(snet_parse_state *ps, snet_src at);
snet_ast_type *snet_ast_new_type(snet_parse_state *ps, snet_src at);
bool snet_ast_type_add(snet_parse_state *ps, snet_ast_type *t, const snet_ast_variant *v);
snet_ast_output *snet_ast_new_output(snet_parse_state *ps, snet_src at);
snet_ast_branch *snet_ast_new_branch(snet_parse_state *ps, snet_ast_expr *guard, snet_src at);
snet_ast_filter *snet_ast_new_filter(snet_parse_state *ps, snet_src at);
bool snet_ast_filter_add(snet_parse_state *ps, snet_ast_filter *f, const snet_ast_branch *b);
snet_ast_net *snet_ast_new_net(snet_parse_state *ps, snet_ast_net_kind kind, snet_src at);
snet_ast_def *snet_ast_new_def(snet_parse_state *ps, snet_ast_def_kind kind, char *name,
                               snet_src at);
snet_ast_sig *snet_ast_new_sig(snet_parse_state *ps);
bool snet_ast_sig_add(snet_parse_state *ps, snet_ast_sig *s, const snet_ast_mapping *m);
bool snet_ast_defs_add(snet_parse_state *ps, snet_ast_def ***defs, size_t *n, snet_ast_def *d);

#endif /* SNET_SYNTAX_INTERNAL_H */
