/*
 * parser.y - the S-Net grammar (bison). One grammar serves whole .snet
 * files and the fragments the C builder API takes as strings: the scanner
 * hands over a start token first (START_PROGRAM, START_FILTER, ...) that
 * picks the entry point. docs/SNET-LANGUAGE.md explains the language; the
 * tree it builds is in snet_syntax.h. Nodes live in the parse's arena, so
 * the actions only check for exhaustion (NEED).
 *
 * Precedence of the network combinators, loosest first (as the original
 * compiler's grammar has them):
 *     |              parallel composition
 *     ||             deterministic parallel composition
 *     ..             serial composition
 *     * ** ! !! !@ !!@ \ \\ @    the postfix combinators
 * so "a .. b | c .. d * {x}" is "(a .. b) | (c .. (d * {x}))".
 *
 * A guard <expr> may contain '<' and '>' itself: the scanner tells the
 * greater-than operator (GT) from a closing '>' by what follows it (see
 * lexer.l). '||' is parallel composition between networks and logical or
 * between tag expressions; the two contexts never meet.
 */
%code requires {
#include "syntax_internal.h"
#ifndef SNET_YYSCAN_T
#define SNET_YYSCAN_T
typedef void *yyscan_t;
#endif
}

%code provides {
int snet_yylex(SNET_YYSTYPE *lval, SNET_YYLTYPE *lloc, yyscan_t scanner);
}

%code {
#include <string.h>

static void snet_yyerror(SNET_YYLTYPE *loc, yyscan_t scanner, snet_parse_state *ps,
                         const char *msg);

/* Arena exhaustion ends the parse with "memory exhausted". */
#define NEED(x) do { if (!(x)) YYNOMEM; } while (0)
#define AT(l) ((snet_src){(l).first_line, (l).first_column})
/* A constructor that may also refuse (with a message): abort the parse. */
#define CALL(lhs, x) do { if (!((lhs) = (x))) { if (ps->failed) YYERROR; YYNOMEM; } } while (0)

static snet_ast_expr *binary(snet_parse_state *ps, snet_ast_op op, snet_ast_expr *a,
                             snet_ast_expr *b, snet_src at)
{
    return snet_ast_new_expr(ps, op, a, b, NULL, at);
}

static snet_ast_net *combine(snet_parse_state *ps, snet_ast_net_kind kind, bool det,
                             snet_ast_net *a, snet_ast_net *b, snet_src at)
{
    snet_ast_net *n = snet_ast_new_net(ps, kind, at);
    if (n) {
        n->det = det;
        n->a = a;
        n->b = b;
    }
    return n;
}

static snet_ast_net *with_patterns(snet_parse_state *ps, snet_ast_net_kind kind, bool det,
                                   snet_ast_net *a, const snet_ast_type *p, snet_src at)
{
    snet_ast_net *n = combine(ps, kind, det, a, NULL, at);
    if (n)
        n->patterns = *p;
    return n;
}

static snet_ast_net *split(snet_parse_state *ps, bool det, bool placed, snet_ast_net *a,
                           char *tag, snet_src at)
{
    snet_ast_net *n = combine(ps, SNET_N_SPLIT, det, a, NULL, at);
    if (n) {
        n->placed = placed;
        n->tag = tag;
    }
    return n;
}

static bool add_label(snet_parse_state *ps, snet_ast_variant *v, char *name,
                      snet_ast_label_kind kind, snet_src at)
{
    snet_ast_label l = {name, kind, at};
    return snet_arena_push(ps->arena, (void **)&v->labels, &v->count, sizeof l, &l);
}

static bool add_item(snet_parse_state *ps, snet_ast_output *o, const snet_ast_item *item)
{
    return snet_arena_push(ps->arena, (void **)&o->items, &o->count, sizeof *item, item);
}

static bool add_output(snet_parse_state *ps, snet_ast_branch *b, const snet_ast_output *o)
{
    return snet_arena_push(ps->arena, (void **)&b->outputs, &b->count, sizeof *o, o);
}

/* abs(x), min(x, y), max(x, y); anything else is an error at the name. */
static snet_ast_expr *call(snet_parse_state *ps, const char *name, snet_ast_expr *a,
                           snet_ast_expr *b, snet_src at)
{
    struct { const char *name; snet_ast_op op; int args; } fns[] = {
        {"abs", SNET_X_ABS, 1}, {"min", SNET_X_MIN, 2}, {"max", SNET_X_MAX, 2}};
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        if (strcmp(fns[i].name, name) != 0)
            continue;
        if ((b != NULL) + 1 != fns[i].args) {
            snet_parse_error(ps, at.line, at.column, "%s takes %d argument%s", name,
                             fns[i].args, fns[i].args == 1 ? "" : "s");
            return NULL;
        }
        return snet_ast_new_expr(ps, fns[i].op, a, b, NULL, at);
    }
    snet_parse_error(ps, at.line, at.column,
                     "unknown function '%s' in a tag expression (abs, min, max exist)", name);
    return NULL;
}
}

%define api.pure full
%define api.prefix {snet_yy}
%define parse.error detailed
%locations
%lex-param {yyscan_t scanner}
%parse-param {yyscan_t scanner} {snet_parse_state *ps}

%union {
    long num;
    char *str;
    snet_ast_variant *variant;
    snet_ast_type *type;
    snet_ast_expr *expr;
    snet_ast_item item;
    snet_ast_output *output;
    snet_ast_branch *branch;
    snet_ast_filter *filter;
    snet_ast_net *net;
    snet_ast_def *def;
    snet_ast_mapping mapping;
    snet_ast_sig *sig;
    struct { snet_ast_def **defs; size_t n; } defs;
}

%token START_PROGRAM START_BOXSIG START_FILTER START_PATTERNS START_TAG
%token NET "net" BOX "box" CONNECT "connect" TYPE "type" TYPESIG "typesig"
%token IF "if" THEN "then" ELSE "else"
%token <str> NAME "name" METADATA "<metadata> block" CODE "box code <<< >>>"
%token <num> NUMBER "number"
%token ARROW "->" ELLIPSIS "..." DOTDOT ".." PARDET "||" STARDET "**"
%token SPLITDET "!!" SPLITPLACE "!@" SPLITDETPLACE "!!@" FEEDBACKDET "\\\\"
%token SYNC_OPEN "[|" SYNC_CLOSE "|]"
%token ANDAND "&&" EQ "==" NE "!=" LE "<=" GE ">=" GT "'>' (greater than)"

%right '?' ':'
%left '|'
%left PARDET
%left DOTDOT ANDAND
%left EQ NE
%precedence '!' SPLITDET SPLITPLACE SPLITDETPLACE '\\' FEEDBACKDET '@' STARDET
%left '<' GT LE GE
%left '+' '-'
%left '*' '/' '%'
%precedence UNARY

%type <defs> definitions
%type <def> definition box_def net_def type_def typesig_def
%type <mapping> mapping box_sig
%type <sig> sig net_sig
%type <type> type patterns any_patterns exits
%type <variant> type_term variant labels labels_opt pattern
%type <expr> expr guard
%type <item> item
%type <output> output items items_opt
%type <branch> outputs output_list
%type <filter> filter clauses else_chain
%type <net> net_expr operand sync
%type <str> tag_ref tag_fragment

%start start

%%

start
    : START_PROGRAM definitions  { ps->defs = $2.defs; ps->ndefs = $2.n; }
    | START_BOXSIG box_sig       { ps->fragment->in = $2.in; ps->fragment->out = $2.out; }
    | START_FILTER filter        { ps->fragment->filter = *$2; }
    | START_PATTERNS any_patterns              { ps->fragment->patterns = *$2; }
    | START_PATTERNS "[|" any_patterns "|]"    { ps->fragment->patterns = *$3; }
    | START_TAG tag_fragment     { ps->fragment->tag = $2; }
    ;

/* ---- definitions ------------------------------------------------------------- */

definitions
    : %empty                     { $$.defs = NULL; $$.n = 0; }
    | definitions definition
        { $$ = $1; if ($2) NEED(snet_ast_defs_add(ps, &$$.defs, &$$.n, $2)); }
    ;

definition
    : METADATA
        { NEED($$ = snet_ast_new_def(ps, SNET_D_METADATA, NULL, AT(@1))); $$->text = $1; }
    | ';'                        { $$ = NULL; }
    | box_def
    | net_def
    | type_def
    | typesig_def
    ;

box_def
    : "box" NAME '(' box_sig ')' ';'
        { NEED($$ = snet_ast_new_def(ps, SNET_D_BOX, $2, AT(@2)));
          $$->box_in = $4.in; $$->box_out = $4.out; }
    | "box" NAME '(' box_sig ')' '{' CODE '}'
        { NEED($$ = snet_ast_new_def(ps, SNET_D_BOX, $2, AT(@2)));
          $$->box_in = $4.in; $$->box_out = $4.out;
          char *bar = strchr($7, '|');
          if (bar) { *bar = '\0'; $$->code_language = $7; $$->code = bar + 1; }
          else $$->code = $7; }
    ;

/* "-> (X)" (no input type) is an initialiser box: it takes no records and
 * is fired once when it starts. "() -> (X)" takes every record. */
box_sig
    : type "->" type             { $$ = (snet_ast_mapping){*$1, *$3, NULL, false, AT(@1)}; }
    | "->" type                  { $$ = (snet_ast_mapping){{0}, *$2, NULL, false, AT(@1)}; }
    ;

net_def
    : "net" NAME net_sig ';'
        { NEED($$ = snet_ast_new_def(ps, SNET_D_NET, $2, AT(@2))); if ($3) $$->sig = *$3; }
    | "net" NAME net_sig "connect" net_expr ';'
        { NEED($$ = snet_ast_new_def(ps, SNET_D_NET, $2, AT(@2))); if ($3) $$->sig = *$3;
          $$->body = $5; }
    | "net" NAME net_sig '{' definitions '}' "connect" net_expr ';'
        { NEED($$ = snet_ast_new_def(ps, SNET_D_NET, $2, AT(@2))); if ($3) $$->sig = *$3;
          $$->defs = $5.defs; $$->ndefs = $5.n; $$->body = $8; }
    ;

net_sig
    : %empty                     { $$ = NULL; }
    | '(' sig ')'                { $$ = $2; }
    ;

sig
    : mapping                    { NEED($$ = snet_ast_new_sig(ps)); NEED(snet_ast_sig_add(ps, $$, &$1)); }
    | sig ',' mapping            { $$ = $1; NEED(snet_ast_sig_add(ps, $$, &$3)); }
    ;

/* "T -> ..." leaves the output open: whatever the network makes. */
mapping
    : type "->" type             { $$ = (snet_ast_mapping){*$1, *$3, NULL, false, AT(@1)}; }
    | type "->" "..."            { $$ = (snet_ast_mapping){*$1, {0}, NULL, true, AT(@1)}; }
    | NAME                       { $$ = (snet_ast_mapping){{0}, {0}, $1, false, AT(@1)}; }
    ;

type_def
    : "type" NAME '=' type ';'
        { NEED($$ = snet_ast_new_def(ps, SNET_D_TYPE, $2, AT(@2))); $$->type = *$4; }
    ;

typesig_def
    : "typesig" NAME '=' sig ';'
        { NEED($$ = snet_ast_new_def(ps, SNET_D_TYPESIG, $2, AT(@2))); $$->sig = *$4; }
    ;

/* ---- record types and patterns ------------------------------------------------ */

type
    : type_term                  { NEED($$ = snet_ast_new_type(ps, AT(@1))); NEED(snet_ast_type_add(ps, $$, $1)); }
    | type '|' type_term         { $$ = $1; NEED(snet_ast_type_add(ps, $$, $3)); }
    ;

type_term
    : variant
    | NAME                       { NEED($$ = snet_ast_new_variant(ps, AT(@1))); $$->type_name = $1; }
    ;

variant
    : '{' labels_opt '}'         { $$ = $2; $$->at = AT(@1); }
    | '(' labels_opt ')'         { $$ = $2; $$->at = AT(@1); }
    ;

labels_opt
    : %empty                     { NEED($$ = snet_ast_new_variant(ps, AT(@$))); }
    | labels
    ;

labels
    : NAME                       { NEED($$ = snet_ast_new_variant(ps, AT(@1)));
                                   NEED(add_label(ps, $$, $1, SNET_AST_FIELD, AT(@1))); }
    | '<' NAME '>'               { NEED($$ = snet_ast_new_variant(ps, AT(@1)));
                                   NEED(add_label(ps, $$, $2, SNET_AST_TAG, AT(@1))); }
    | '<' '#' NAME '>'           { NEED($$ = snet_ast_new_variant(ps, AT(@1)));
                                   NEED(add_label(ps, $$, $3, SNET_AST_BTAG, AT(@1))); }
    | labels ',' NAME            { $$ = $1; NEED(add_label(ps, $$, $3, SNET_AST_FIELD, AT(@3))); }
    | labels ',' '<' NAME '>'    { $$ = $1; NEED(add_label(ps, $$, $4, SNET_AST_TAG, AT(@3))); }
    | labels ',' '<' '#' NAME '>' { $$ = $1; NEED(add_label(ps, $$, $5, SNET_AST_BTAG, AT(@3))); }
    ;

guard
    : "if" '<' expr '>'          { $$ = $3; }
    ;

pattern
    : variant
    | variant guard              { $$ = $1; $$->guard = $2; }
    ;

/* Patterns of a synchro-cell, a star's exit or a feedback loop. */
patterns
    : pattern                    { NEED($$ = snet_ast_new_type(ps, AT(@1))); NEED(snet_ast_type_add(ps, $$, $1)); }
    | patterns ',' pattern       { $$ = $1; NEED(snet_ast_type_add(ps, $$, $3)); }
    ;

/* ',' or '|' between them (inside parentheses, and in builder strings). */
any_patterns
    : pattern                    { NEED($$ = snet_ast_new_type(ps, AT(@1))); NEED(snet_ast_type_add(ps, $$, $1)); }
    | any_patterns ',' pattern   { $$ = $1; NEED(snet_ast_type_add(ps, $$, $3)); }
    | any_patterns '|' pattern   { $$ = $1; NEED(snet_ast_type_add(ps, $$, $3)); }
    ;

exits
    : patterns
    | '(' any_patterns ')'       { $$ = $2; }
    ;

/* ---- tag expressions ------------------------------------------------------------- */

expr
    : NUMBER                     { NEED($$ = snet_ast_new_expr(ps, SNET_X_NUM, NULL, NULL, NULL, AT(@1))); $$->value = $1; }
    | NAME                       { NEED($$ = snet_ast_new_expr(ps, SNET_X_TAG, NULL, NULL, NULL, AT(@1))); $$->name = $1; }
    | NAME '(' expr ')'          { CALL($$, call(ps, $1, $3, NULL, AT(@1))); }
    | NAME '(' expr ',' expr ')' { CALL($$, call(ps, $1, $3, $5, AT(@1))); }
    | '(' expr ')'               { $$ = $2; }
    | '-' expr %prec UNARY       { NEED($$ = snet_ast_new_expr(ps, SNET_X_NEG, $2, NULL, NULL, AT(@1))); }
    | '!' expr %prec UNARY       { NEED($$ = snet_ast_new_expr(ps, SNET_X_NOT, $2, NULL, NULL, AT(@1))); }
    | expr '+' expr              { NEED($$ = binary(ps, SNET_X_ADD, $1, $3, AT(@2))); }
    | expr '-' expr              { NEED($$ = binary(ps, SNET_X_SUB, $1, $3, AT(@2))); }
    | expr '*' expr              { NEED($$ = binary(ps, SNET_X_MUL, $1, $3, AT(@2))); }
    | expr '/' expr              { NEED($$ = binary(ps, SNET_X_DIV, $1, $3, AT(@2))); }
    | expr '%' expr              { NEED($$ = binary(ps, SNET_X_MOD, $1, $3, AT(@2))); }
    | expr "==" expr             { NEED($$ = binary(ps, SNET_X_EQ, $1, $3, AT(@2))); }
    | expr "!=" expr             { NEED($$ = binary(ps, SNET_X_NE, $1, $3, AT(@2))); }
    | expr '<' expr              { NEED($$ = binary(ps, SNET_X_LT, $1, $3, AT(@2))); }
    | expr "<=" expr             { NEED($$ = binary(ps, SNET_X_LE, $1, $3, AT(@2))); }
    | expr GT expr               { NEED($$ = binary(ps, SNET_X_GT, $1, $3, AT(@2))); }
    | expr ">=" expr             { NEED($$ = binary(ps, SNET_X_GE, $1, $3, AT(@2))); }
    | expr "&&" expr             { NEED($$ = binary(ps, SNET_X_AND, $1, $3, AT(@2))); }
    | expr "||" expr             { NEED($$ = binary(ps, SNET_X_OR, $1, $3, AT(@2))); }
    | expr '?' expr ':' expr     { NEED($$ = snet_ast_new_expr(ps, SNET_X_COND, $1, $3, $5, AT(@2))); }
    ;

/* ---- filters ----------------------------------------------------------------------- */

filter
    : '[' ']'
        { NEED($$ = snet_ast_new_filter(ps, AT(@1))); $$->identity = true; }
    | '[' variant "->" outputs ']'
        { NEED($$ = snet_ast_new_filter(ps, AT(@1))); $$->pattern = *$2;
          NEED(snet_ast_filter_add(ps, $$, $4)); }
    | '[' variant "->" guard "then" outputs else_chain ']'
        { NEED($$ = snet_ast_new_filter(ps, AT(@1))); $$->pattern = *$2;
          $6->guard = $4; $6->at = AT(@4);
          NEED(snet_ast_filter_add(ps, $$, $6));
          for (size_t i = 0; i < $7->count; i++) NEED(snet_ast_filter_add(ps, $$, &$7->branches[i])); }
    | '[' variant clauses ']'
        { $$ = $3; $$->at = AT(@1); $$->pattern = *$2; }
    | '[' variant clauses "else" "->" outputs ']'
        { $$ = $3; $$->at = AT(@1); $$->pattern = *$2; $6->at = AT(@4);
          NEED(snet_ast_filter_add(ps, $$, $6)); }
    ;

/* if <g> -> outputs  if <h> -> outputs ... */
clauses
    : guard "->" outputs
        { NEED($$ = snet_ast_new_filter(ps, AT(@1))); $3->guard = $1; $3->at = AT(@1);
          NEED(snet_ast_filter_add(ps, $$, $3)); }
    | clauses guard "->" outputs
        { $$ = $1; $4->guard = $2; $4->at = AT(@2); NEED(snet_ast_filter_add(ps, $$, $4)); }
    ;

/* else outputs | else if <g> then outputs else ... */
else_chain
    : %empty                     { NEED($$ = snet_ast_new_filter(ps, AT(@$))); }
    | "else" outputs             { NEED($$ = snet_ast_new_filter(ps, AT(@1))); $2->at = AT(@1);
                                   NEED(snet_ast_filter_add(ps, $$, $2)); }
    | "else" guard "then" outputs else_chain
        { NEED($$ = snet_ast_new_filter(ps, AT(@1))); $4->guard = $2; $4->at = AT(@2);
          NEED(snet_ast_filter_add(ps, $$, $4));
          for (size_t i = 0; i < $5->count; i++) NEED(snet_ast_filter_add(ps, $$, &$5->branches[i])); }
    ;

/* Outputs separated by ';' (none: the record is dropped). */
outputs
    : %empty                     { NEED($$ = snet_ast_new_branch(ps, NULL, AT(@$))); }
    | output_list
    ;

output_list
    : output                     { NEED($$ = snet_ast_new_branch(ps, NULL, AT(@1))); NEED(add_output(ps, $$, $1)); }
    | output_list ';' output     { $$ = $1; NEED(add_output(ps, $$, $3)); }
    ;

output
    : '{' items_opt '}'          { $$ = $2; $$->at = AT(@1); }
    | '(' items ')'              { $$ = $2; $$->at = AT(@1); }
    ;

items_opt
    : %empty                     { NEED($$ = snet_ast_new_output(ps, AT(@$))); }
    | items
    ;

items
    : item                       { NEED($$ = snet_ast_new_output(ps, AT(@1))); NEED(add_item(ps, $$, &$1)); }
    | items ',' item             { $$ = $1; NEED(add_item(ps, $$, &$3)); }
    ;

item
    : NAME                       { $$ = (snet_ast_item){SNET_AST_FIELD, $1, $1, NULL, AT(@1)}; }
    | NAME '=' NAME              { $$ = (snet_ast_item){SNET_AST_FIELD, $1, $3, NULL, AT(@1)}; }
    | '<' NAME '>'               { $$ = (snet_ast_item){SNET_AST_TAG, $2, NULL, NULL, AT(@1)}; }
    | '<' NAME '=' expr '>'      { $$ = (snet_ast_item){SNET_AST_TAG, $2, NULL, $4, AT(@1)}; }
    | '<' '#' NAME '>'           { $$ = (snet_ast_item){SNET_AST_BTAG, $3, NULL, NULL, AT(@1)}; }
    | '<' '#' NAME '=' expr '>'  { $$ = (snet_ast_item){SNET_AST_BTAG, $3, NULL, $5, AT(@1)}; }
    ;

/* ---- network expressions ------------------------------------------------------------------ */

net_expr
    : operand
    | net_expr ".." net_expr     { NEED($$ = combine(ps, SNET_N_SERIAL, false, $1, $3, AT(@2))); }
    | net_expr '|' net_expr      { NEED($$ = combine(ps, SNET_N_PARALLEL, false, $1, $3, AT(@2))); }
    | net_expr "||" net_expr     { NEED($$ = combine(ps, SNET_N_PARALLEL, true, $1, $3, AT(@2))); }
    | net_expr '*' exits         { NEED($$ = with_patterns(ps, SNET_N_STAR, false, $1, $3, AT(@2))); }
    | net_expr "**" exits        { NEED($$ = with_patterns(ps, SNET_N_STAR, true, $1, $3, AT(@2))); }
    | net_expr '\\' exits        { NEED($$ = with_patterns(ps, SNET_N_FEEDBACK, false, $1, $3, AT(@2))); }
    | net_expr "\\\\" exits      { NEED($$ = with_patterns(ps, SNET_N_FEEDBACK, true, $1, $3, AT(@2))); }
    | net_expr '!' tag_ref       { NEED($$ = split(ps, false, false, $1, $3, AT(@2))); }
    | net_expr "!!" tag_ref      { NEED($$ = split(ps, true, false, $1, $3, AT(@2))); }
    | net_expr "!@" tag_ref      { NEED($$ = split(ps, false, true, $1, $3, AT(@2))); }
    | net_expr "!!@" tag_ref     { NEED($$ = split(ps, true, true, $1, $3, AT(@2))); }
    | net_expr '@' NUMBER        { NEED($$ = combine(ps, SNET_N_AT, false, $1, NULL, AT(@2))); $$->worker = $3; }
    ;

operand
    : NAME                       { NEED($$ = snet_ast_new_net(ps, SNET_N_REF, AT(@1))); $$->name = $1; }
    | filter                     { NEED($$ = snet_ast_new_net(ps, SNET_N_FILTER, AT(@1))); $$->filter = *$1; }
    | sync
    | '(' net_expr ')'           { $$ = $2; }
    ;

sync
    : "[|" patterns "|]"         { NEED($$ = snet_ast_new_net(ps, SNET_N_SYNC, AT(@1))); $$->patterns = *$2; }
    ;

tag_ref
    : '<' NAME '>'               { $$ = $2; }
    | '(' '<' NAME '>' ')'       { $$ = $3; }
    ;

tag_fragment
    : '<' NAME '>'               { $$ = $2; }
    | NAME
    ;

%%

static void snet_yyerror(SNET_YYLTYPE *loc, yyscan_t scanner, snet_parse_state *ps,
                         const char *msg)
{
    (void)scanner;
    snet_parse_error(ps, loc->first_line, loc->first_column, "%s", msg);
}
