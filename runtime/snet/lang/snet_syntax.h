/*
 * snet_syntax.h - the S-Net language's syntax: one grammar (parser.y,
 * lexer.l) for whole .snet files and for the pieces of S-Net the C builder
 * API takes as strings (box signatures, filters, patterns, split tags), and
 * the syntax tree it produces. docs/SNET-LANGUAGE.md describes the language.
 *
 * This library knows nothing of records or runs: the runtime (runtime/snet)
 * turns fragments into its own types, and snet_lang.h checks and builds
 * whole programs. Everything a parse produces lives in one arena and is
 * freed with it, so the tree is plain data with no ownership rules.
 *
 * Parse functions take (text, length): the text need not end with a NUL,
 * which is what a fuzzer hands over. Errors carry the line and column
 * (1-based, columns count bytes) of the token at fault.
 */
#ifndef SNET_SYNTAX_H
#define SNET_SYNTAX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Results of the parse functions. */
enum {
    SNET_SYNTAX_OK = 0,
    SNET_SYNTAX_ERROR = -1, /* bad text: see the diagnostic */
    SNET_SYNTAX_NOMEM = -2
};

/* Where something is in the text: 1-based line and column, 0 if unknown. */
typedef struct snet_src {
    int line, column;
} snet_src;

/* What went wrong, and where. */
typedef struct snet_diag {
    snet_src at;
    char message[512];
} snet_diag;

typedef struct snet_arena snet_arena;

/* ---- labels and record types ------------------------------------------------ */

/* The same values as snet_label_kind in snet.h. */
typedef enum snet_ast_label_kind {
    SNET_AST_FIELD = 0, /* a      */
    SNET_AST_TAG = 1,   /* <t>    */
    SNET_AST_BTAG = 2   /* <#t>   */
} snet_ast_label_kind;

typedef struct snet_ast_label {
    char *name;
    snet_ast_label_kind kind;
    snet_src at;
} snet_ast_label;

typedef struct snet_ast_expr snet_ast_expr;

/* One variant {a, <t>} (also written (a, <t>)), possibly guarded by
 * "if <expr>" (patterns only), or the name of a type defined with
 * "type NAME = ...;" (then type_name is set and there are no labels). */
typedef struct snet_ast_variant {
    snet_ast_label *labels;
    size_t count;
    snet_ast_expr *guard;
    char *type_name;
    snet_src at;
} snet_ast_variant;

/* A multivariant type {a} | {b}, or a list of patterns. */
typedef struct snet_ast_type {
    snet_ast_variant *variants;
    size_t count;
    snet_src at;
} snet_ast_type;

/* ---- tag expressions ---------------------------------------------------------- */

typedef enum snet_ast_op {
    SNET_X_NUM, SNET_X_TAG, SNET_X_NEG, SNET_X_NOT,
    SNET_X_ADD, SNET_X_SUB, SNET_X_MUL, SNET_X_DIV, SNET_X_MOD,
    SNET_X_EQ, SNET_X_NE, SNET_X_LT, SNET_X_LE, SNET_X_GT, SNET_X_GE,
    SNET_X_AND, SNET_X_OR, SNET_X_COND,
    SNET_X_ABS, SNET_X_MIN, SNET_X_MAX
} snet_ast_op;

/* An integer expression over tags: C's operators (no bit operations),
 * abs(x), min(x, y), max(x, y). SNET_X_TAG names a tag or binding tag of
 * the enclosing pattern (which one is decided against that pattern). */
struct snet_ast_expr {
    snet_ast_op op;
    long value;  /* SNET_X_NUM */
    char *name;  /* SNET_X_TAG */
    snet_ast_expr *a, *b, *c;
    snet_src at;
};

/* ---- filters ------------------------------------------------------------------------ */

/* One label of a filter output: "a" (keep field a), "b=a" (field a as b),
 * "<t>" / "<#t>" (keep), "<t=EXPR>" / "<#t=EXPR>" (set). */
typedef struct snet_ast_item {
    snet_ast_label_kind kind; /* of the output label */
    char *name;               /* the output label */
    char *source;             /* fields: the pattern field copied (== name when kept) */
    snet_ast_expr *expr;      /* tags: the value; NULL for "<t>" (keep) */
    snet_src at;
} snet_ast_item;

/* One output record {...}. */
typedef struct snet_ast_output {
    snet_ast_item *items;
    size_t count;
    snet_src at;
} snet_ast_output;

/* The outputs chosen when guard holds (guard NULL: always, or "else"). */
typedef struct snet_ast_branch {
    snet_ast_expr *guard;
    snet_ast_output *outputs;
    size_t count;
    snet_src at;
} snet_ast_branch;

/* [pattern -> outputs], with guarded branches taken in order:
 *   [{p} -> {a}; {b}]                      one unguarded branch
 *   [{p} -> if <g> then {a} else {b}]      if/else if/else chain
 *   [{p} if <g> -> {a} if <h> -> else -> {b}]
 * A record for which no branch applies produces no output. "[]" is the
 * identity. */
typedef struct snet_ast_filter {
    bool identity;
    snet_ast_variant pattern;
    snet_ast_branch *branches;
    size_t count;
    snet_src at;
} snet_ast_filter;

/* ---- network expressions --------------------------------------------------------------- */

typedef enum snet_ast_net_kind {
    SNET_N_REF,      /* a box or net by name */
    SNET_N_FILTER,   /* [...] */
    SNET_N_SYNC,     /* [| p, q |] */
    SNET_N_SERIAL,   /* a .. b */
    SNET_N_PARALLEL, /* a | b, a || b */
    SNET_N_STAR,     /* a * p, a ** p */
    SNET_N_SPLIT,    /* a ! <t>, a !! <t>, a !@ <t>, a !!@ <t> */
    SNET_N_FEEDBACK, /* a \ p, a \\ p */
    SNET_N_AT        /* a @ n */
} snet_ast_net_kind;

typedef struct snet_ast_net snet_ast_net;
struct snet_ast_net {
    snet_ast_net_kind kind;
    snet_src at;          /* the operator (or the operand itself) */
    char *name;           /* REF */
    snet_ast_filter filter;
    snet_ast_type patterns; /* SYNC, STAR (exit), FEEDBACK (back) */
    snet_ast_net *a, *b;  /* operands; unary combinators use a */
    bool det;             /* ||, **, !!, \\ */
    bool placed;          /* !@ */
    char *tag;            /* SPLIT */
    long worker;          /* AT */
    void *info;           /* free for later passes (the checker's annotations) */
};

/* ---- definitions ------------------------------------------------------------------------- */

/* in -> out, or the name of a typesig. open_out: "in -> ..." (out is empty:
 * the output is whatever the network makes). A box signature "-> out" has
 * no input variants: an initialiser box. */
typedef struct snet_ast_mapping {
    snet_ast_type in, out;
    char *typesig;
    bool open_out;
    snet_src at;
} snet_ast_mapping;

/* A net or typesig signature: mappings separated by ','. */
typedef struct snet_ast_sig {
    snet_ast_mapping *maps;
    size_t count;
} snet_ast_sig;

typedef enum snet_ast_def_kind {
    SNET_D_BOX,      /* box NAME (sig); */
    SNET_D_NET,      /* net NAME [(sig)] [{defs}] connect expr;  or  net NAME (sig); */
    SNET_D_TYPE,     /* type NAME = type; */
    SNET_D_TYPESIG,  /* typesig NAME = maps; */
    SNET_D_METADATA  /* <metadata>...</metadata> */
} snet_ast_def_kind;

typedef struct snet_ast_def snet_ast_def;
struct snet_ast_def {
    snet_ast_def_kind kind;
    char *name;
    snet_src at;
    /* box */
    snet_ast_type box_in, box_out;
    char *code_language, *code; /* an inline body <<< lang | code >>> */
    /* net, typesig */
    snet_ast_sig sig;
    snet_ast_def **defs; /* net body */
    size_t ndefs;
    snet_ast_net *body;  /* NULL: only declared (no connect) */
    /* type */
    snet_ast_type type;
    /* metadata: the XML text as written */
    char *text;
    void *info; /* free for later passes */
};

typedef struct snet_ast_program {
    char *file;
    snet_ast_def **defs;
    size_t ndefs;
    snet_arena *arena;
} snet_ast_program;

/* Parse a whole .snet text. file names it in messages (copied). On error
 * *out is NULL and diag says what and where. */
int snet_syntax_parse_program(const char *text, size_t len, const char *file,
                              snet_ast_program **out, snet_diag *diag);
void snet_ast_program_free(snet_ast_program *p);

/* ---- fragments: the strings of the C builder API ------------------------------------------ */

typedef enum snet_fragment_kind {
    SNET_FRAG_BOXSIG,   /* "{a, <t>} -> {b} | {c}"  (parentheses work too) */
    SNET_FRAG_FILTER,   /* "[{a} -> {b=a}; {a}]" */
    SNET_FRAG_PATTERNS, /* "{a} | {b} if <x>" or "[| {a}, {b} |]" (',' or '|' between) */
    SNET_FRAG_TAG       /* "<t>" or "t" */
} snet_fragment_kind;

typedef struct snet_fragment {
    snet_fragment_kind kind;
    snet_ast_type in, out;   /* BOXSIG */
    snet_ast_filter filter;  /* FILTER */
    snet_ast_type patterns;  /* PATTERNS */
    char *tag;               /* TAG */
    snet_arena *arena;
} snet_fragment;

int snet_syntax_parse_fragment(snet_fragment_kind kind, const char *text, size_t len,
                               snet_fragment *out, snet_diag *diag);
void snet_fragment_free(snet_fragment *f);

/* ---- printing S-Net text (the parser reads it back to the same tree) ------------------------- */

int snet_ast_print_label(FILE *out, const snet_ast_label *l);
int snet_ast_print_variant(FILE *out, const snet_ast_variant *v);
/* Variants separated by sep (" | " or ", "). */
int snet_ast_print_type(FILE *out, const snet_ast_type *t, const char *sep);
/* "in -> out" ("in -> ...", "-> out" for an initialiser), or a typesig's
 * name; a signature's mappings separated by ", ". */
int snet_ast_print_mapping(FILE *out, const snet_ast_mapping *m);
int snet_ast_print_sig(FILE *out, const snet_ast_sig *s);
int snet_ast_print_expr(FILE *out, const snet_ast_expr *e);
int snet_ast_print_filter(FILE *out, const snet_ast_filter *f);
/* The expression on one line, fully parenthesised where needed. */
int snet_ast_print_net(FILE *out, const snet_ast_net *n);

#ifdef __cplusplus
}
#endif

#endif /* SNET_SYNTAX_H */
