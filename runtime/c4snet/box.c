/*
 * box.c - C4SNet boxes: a C function with the signature the original
 * runtime's compiler generated for a box (void *f(void *hnd, the labels of
 * its input type in order)) run as a box of the builder API.
 *
 * The original compiled a wrapper per box. Here the call is made from the
 * declared signature, so any box library runs without a compiler: boxes
 * of up to DIRECT_LABELS labels through a cast to their exact C type (one
 * of the invokers below, chosen when the net is built), larger ones
 * through libffi, whose ffi_cif is prepared once per box. ffi_call costs
 * ~430 instructions per call on x86-64 (callgrind, libffi 3.4), more than
 * the rest of a box execution, so the common small boxes do without it
 * (the 10-box pipeline of snet-bench c4snet: docs/BENCHMARKS.md). hnd
 * points at a small struct on the caller's stack that C4SNetOut reads:
 * the runtime's handle and the box's output variants.
 *
 * The input's labels are found and taken, and the outputs built, on the
 * record's entries directly (snet_internal.h), by the box node's declared
 * types: their label names are the interned ones records carry, so every
 * lookup and the output check compare pointers only. A box execution is
 * a few hundred instructions; lookups by our own copies of the names and
 * the public calls cost a fifth more. snet_box must therefore be given
 * the signature the c4snet_box was made with (the label order of both is
 * the signature's).
 *
 * Ownership follows the original: the box is given its input fields (taken
 * out of the input record, so no reference count moves) and frees them or
 * hands them to C4SNetOut; C4SNetOut's fields belong to the output record.
 * The input's tags are taken out too, so what stays in the input record is
 * exactly what flow inheritance adds to each output: the first C4SNetOut
 * of an execution therefore builds its record in the input record itself
 * (snet_record_reuse), which saves making one record and freeing another
 * per execution; later ones make new records.
 */
#include "c4snet_internal.h"

#include <snet_internal.h>
#include <snet_syntax.h>

#include <ffi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct c4snet_label {
    char *name;
    snet_label_kind kind;
} c4snet_label;

typedef struct c4snet_variant {
    c4snet_label *labels;
    size_t count;
} c4snet_variant;

typedef union arg_slot {
    void *field;
    int tag;
} arg_slot;

/* Calls fn(hnd, args...) with the box's C parameter types. */
typedef void (*invoker)(void (*fn)(void), void *hnd, const arg_slot *args);

struct c4snet_box {
    char *name;
    void (*fn)(void);
    c4snet_variant in;
    c4snet_variant *out;
    size_t nout;
    invoker direct;       /* NULL: through libffi */
    _Atomic(const snet_net *) checked; /* the last box node found to have its shape */
    ffi_type **arg_types; /* hnd, then the input labels */
    ffi_cif cif;
};

/* What hnd points at while the box runs. magic catches a C4SNetOut with a
 * pointer that is not a running box's handle (it is cleared on return). */
#define CALL_MAGIC 0xC45E7u
typedef struct c4snet_call {
    unsigned magic;
    snet_handle *h;
    const c4snet_box *box;
    const snet_net *net; /* the box node: its declared types */
} c4snet_call;

/* Arguments of up to this many labels live on the stack; more, on the heap. */
#define STACK_ARGS 16

/* ---- direct calls ------------------------------------------------------------------- */

/* One invoker per C signature of up to DIRECT_LABELS labels: F is a field
 * (c4snet_data_t *), T a tag (int). Each casts fn to the function's own
 * type, as its box library defines it. */
#define DIRECT_LABELS 4
typedef c4snet_data_t *type_F;
typedef int type_T;
#define VAL_F(i) args[i].field
#define VAL_T(i) args[i].tag
#define INVOKER(NAME, PARAMS, ARGS)                                                           \
    static void call_##NAME(void (*fn)(void), void *hnd, const arg_slot *args)               \
    {                                                                                         \
        (void)args;                                                                           \
        ((void *(*)PARAMS)fn) ARGS;                                                           \
    }
#define INV1(A) INVOKER(A, (void *, type_##A), (hnd, VAL_##A(0)))
#define INV2(A, B) INVOKER(A##B, (void *, type_##A, type_##B), (hnd, VAL_##A(0), VAL_##B(1)))
#define INV3(A, B, C)                                                                         \
    INVOKER(A##B##C, (void *, type_##A, type_##B, type_##C),                                  \
            (hnd, VAL_##A(0), VAL_##B(1), VAL_##C(2)))
#define INV4(A, B, C, D)                                                                      \
    INVOKER(A##B##C##D, (void *, type_##A, type_##B, type_##C, type_##D),                     \
            (hnd, VAL_##A(0), VAL_##B(1), VAL_##C(2), VAL_##D(3)))
#define INV3_ALL(A) INV3(A, F, F) INV3(A, F, T) INV3(A, T, F) INV3(A, T, T)
#define INV4_ALL(A, B) INV4(A, B, F, F) INV4(A, B, F, T) INV4(A, B, T, F) INV4(A, B, T, T)

INVOKER(0, (void *), (hnd))
INV1(F) INV1(T)
INV2(F, F) INV2(F, T) INV2(T, F) INV2(T, T)
INV3_ALL(F) INV3_ALL(T)
INV4_ALL(F, F) INV4_ALL(F, T) INV4_ALL(T, F) INV4_ALL(T, T)

/* By arity k, then the labels' kinds as k bits, the first label's highest
 * (T = 1): entry 2^k - 1 + bits. */
static const invoker invokers[] = {
    call_0,
    call_F, call_T,
    call_FF, call_FT, call_TF, call_TT,
    call_FFF, call_FFT, call_FTF, call_FTT, call_TFF, call_TFT, call_TTF, call_TTT,
    call_FFFF, call_FFFT, call_FFTF, call_FFTT, call_FTFF, call_FTFT, call_FTTF, call_FTTT,
    call_TFFF, call_TFFT, call_TFTF, call_TFTT, call_TTFF, call_TTFT, call_TTTF, call_TTTT};
_Static_assert(sizeof invokers / sizeof invokers[0] == (2u << DIRECT_LABELS) - 1,
               "an invoker for every signature of up to DIRECT_LABELS labels");

static invoker direct_invoker(const c4snet_variant *in)
{
    if (in->count > DIRECT_LABELS)
        return NULL;
    size_t bits = 0;
    for (size_t i = 0; i < in->count; i++)
        bits = bits << 1 | (in->labels[i].kind != SNET_FIELD);
    return invokers[((size_t)1 << in->count) - 1 + bits];
}

/* ---- building --------------------------------------------------------------------- */

static int copy_variant(const snet_ast_variant *v, c4snet_variant *out, const char *name,
                        char *err, size_t errlen)
{
    if (v->type_name) {
        snprintf(err, errlen, "box '%s': a C4SNet signature names its labels, not the type '%s'",
                 name, v->type_name);
        return SNET_EINVAL;
    }
    out->count = v->count;
    out->labels = calloc(v->count ? v->count : 1, sizeof *out->labels);
    if (!out->labels)
        return SNET_ENOMEM;
    for (size_t i = 0; i < v->count; i++) {
        out->labels[i].kind = (snet_label_kind)v->labels[i].kind;
        if (!(out->labels[i].name = strdup(v->labels[i].name)))
            return SNET_ENOMEM;
    }
    return SNET_OK;
}

static void free_variant(c4snet_variant *v)
{
    for (size_t i = 0; v->labels && i < v->count; i++)
        free(v->labels[i].name);
    free(v->labels);
}

void c4snet_box_free(c4snet_box *b)
{
    if (!b)
        return;
    free_variant(&b->in);
    for (size_t i = 0; b->out && i < b->nout; i++)
        free_variant(&b->out[i]);
    free(b->out);
    free(b->arg_types);
    free(b->name);
    free(b);
}

/* The labels of the parsed signature, and the call description. */
static int describe(c4snet_box *b, const snet_fragment *f, char *err, size_t errlen)
{
    if (f->in.count > 1) {
        snprintf(err, errlen, "box '%s': a C4SNet box has one input variant, not %zu (its C "
                 "function has one parameter list)", b->name, f->in.count);
        return SNET_EINVAL;
    }
    int rc = f->in.count ? copy_variant(&f->in.variants[0], &b->in, b->name, err, errlen)
                         : SNET_OK;
    if (rc == SNET_OK && !(b->out = calloc(f->out.count ? f->out.count : 1, sizeof *b->out)))
        rc = SNET_ENOMEM;
    for (size_t i = 0; rc == SNET_OK && i < f->out.count; i++, b->nout++)
        rc = copy_variant(&f->out.variants[i], &b->out[i], b->name, err, errlen);
    if (rc == SNET_OK && !(b->arg_types = calloc(b->in.count + 1, sizeof *b->arg_types)))
        rc = SNET_ENOMEM;
    if (rc != SNET_OK)
        return rc;
    b->direct = direct_invoker(&b->in);
    b->arg_types[0] = &ffi_type_pointer;
    for (size_t i = 0; i < b->in.count; i++)
        b->arg_types[i + 1] = b->in.labels[i].kind == SNET_FIELD ? &ffi_type_pointer : &ffi_type_sint;
    if (b->in.count + 1 > UINT_MAX ||
        ffi_prep_cif(&b->cif, FFI_DEFAULT_ABI, (unsigned)(b->in.count + 1), &ffi_type_pointer,
                     b->arg_types) != FFI_OK) {
        snprintf(err, errlen, "box '%s': libffi cannot describe a call with %zu arguments",
                 b->name, b->in.count + 1);
        return SNET_EINVAL;
    }
    return SNET_OK;
}

int c4snet_box_new(c4snet_box **out, const char *name, void (*fn)(void), const char *signature,
                   char *err, size_t errlen)
{
    *out = NULL;
    snet_fragment f;
    snet_diag diag;
    if (!name || !fn || !signature) {
        snprintf(err, errlen, "C4SNet box: a name, a function and a signature are needed");
        return SNET_EINVAL;
    }
    int prc = snet_syntax_parse_fragment(SNET_FRAG_BOXSIG, signature, strlen(signature), &f,
                                         &diag);
    if (prc != SNET_SYNTAX_OK) {
        if (prc == SNET_SYNTAX_NOMEM)
            snprintf(err, errlen, "out of memory");
        else
            snprintf(err, errlen, "box '%s': bad signature '%s': %s", name, signature,
                     diag.message);
        return prc == SNET_SYNTAX_NOMEM ? SNET_ENOMEM : SNET_EINVAL;
    }
    c4snet_box *b = calloc(1, sizeof *b);
    int rc = b && (b->name = strdup(name)) ? SNET_OK : SNET_ENOMEM;
    if (rc == SNET_OK) {
        b->fn = fn;
        rc = describe(b, &f, err, errlen);
    }
    snet_fragment_free(&f);
    if (rc != SNET_OK) {
        if (rc == SNET_ENOMEM)
            snprintf(err, errlen, "out of memory");
        c4snet_box_free(b);
        return rc;
    }
    *out = b;
    return SNET_OK;
}

/* ---- calling ------------------------------------------------------------------------- */

/* A field of another type than C4SNet data, for the box: native values
 * converted (the native value is freed); NULL (reported) for other types. */
static __attribute__((noinline)) c4snet_data_t *converted_field(snet_handle *h,
                                                                const snet_entry *e)
{
    c4snet_data_t *d = c4snet_from_native(e->type, e->u.value);
    if (!d)
        snet_box_fail(h, "field '%s' is of type '%s', which a C4SNet box cannot take "
                      "(only C4SNet data, int, double and string fields)", e->name,
                      e->type ? e->type->name : "?");
    snet_field_free(e->type, e->u.value);
    return d;
}

/* Free the fields among the first n arguments (a call that cannot be made). */
static void release_fields(const c4snet_box *b, arg_slot *args, size_t n)
{
    for (size_t j = 0; j < n; j++)
        if (b->in.labels[j].kind == SNET_FIELD)
            C4SNetFree(args[j].field);
}

/* Take the box's arguments out of in (the record matched the input
 * variant, so every label is there). -1 (reported; every field taken so
 * far freed) if a field cannot be given to the box. Inline in both
 * callers: called once per execution, it costs a fifth more out of line. */
static inline __attribute__((always_inline)) int take_arguments(snet_handle *h,
                                                                const c4snet_box *b,
                                                                const snet_variant *decl,
                                                                snet_record *in, arg_slot *args)
{
    for (size_t i = 0; i < b->in.count; i++) {
        const snet_label *l = &decl->labels[i];
        long at = snet_record_find(in, l->kind, l->name);
        if (snet_unlikely(at < 0)) { /* cannot be: the record matched the declaration */
            snet_box_fail(h, "the input has no label '%s'", l->name);
            release_fields(b, args, i);
            return -1;
        }
        const snet_entry *e = &in->entries[at];
        bool ok = true;
        if (l->kind != SNET_FIELD)
            args[i].tag = (int)e->u.tag;
        else if (snet_likely(e->type == &c4snet_field))
            args[i].field = e->u.value;
        else
            ok = (args[i].field = converted_field(h, e)) != NULL;
        snet_record_remove_at(in, (size_t)at);
        if (snet_unlikely(!ok)) {
            release_fields(b, args, i);
            return -1;
        }
    }
    return 0;
}

static void call_ffi(const c4snet_box *b, void **hnd, arg_slot *args)
{
    void *stack_argv[STACK_ARGS + 1];
    void **argv = b->in.count > STACK_ARGS ? malloc((b->in.count + 1) * sizeof *argv) : stack_argv;
    if (!argv)
        c4snet_fatal("box '%s': out of memory for its arguments", b->name);
    argv[0] = hnd;
    for (size_t i = 0; i < b->in.count; i++)
        argv[i + 1] = &args[i];
    ffi_arg result; /* the box returns hnd; nothing to do with it */
    ffi_call((ffi_cif *)&b->cif, b->fn, &result, argv);
    if (argv != stack_argv)
        free(argv);
}

/* Was the box node made with the c4snet_box's signature? (Its labels are
 * read by position.) An initialiser ("-> (x)") has no input variant: it is
 * called once, with the handle only. */
static bool same_shape(const c4snet_box *b, const snet_net *n)
{
    bool initialiser = n->box_in.count == 0 && b->in.count == 0;
    if (!initialiser && (n->box_in.count != 1 || n->box_in.variants[0].count != b->in.count))
        return false;
    if (n->box_out.count != b->nout)
        return false;
    for (size_t i = 0; i < b->in.count; i++)
        if (n->box_in.variants[0].labels[i].kind != b->in.labels[i].kind)
            return false;
    for (size_t v = 0; v < b->nout; v++)
        if (n->box_out.variants[v].count != b->out[v].count)
            return false;
    return true;
}

/* The first call of a box on a node: is the node the box's? */
static __attribute__((noinline)) bool check_shape(snet_handle *h, c4snet_box *b, const snet_net *n)
{
    if (same_shape(b, n)) {
        atomic_store_explicit(&b->checked, n, memory_order_relaxed);
        return true;
    }
    snet_box_fail(h, "the box's signature is not that of its C4SNet description '%s' "
                  "(give snet_box the signature given to c4snet_box_new)", b->name);
    return false;
}

/* A box of more than DIRECT_LABELS labels, called through libffi. */
static __attribute__((noinline)) void call_large(snet_handle *h, c4snet_box *b, const snet_net *n,
                                                 snet_record *in)
{
    c4snet_call call = {CALL_MAGIC, h, b, n};
    void *hnd = &call;
    arg_slot stack_args[STACK_ARGS];
    arg_slot *args = b->in.count > STACK_ARGS ? malloc(b->in.count * sizeof *args) : stack_args;
    if (!args)
        c4snet_fatal("box '%s': out of memory for its arguments", b->name);
    if (take_arguments(h, b, n->box_in.count ? &n->box_in.variants[0] : NULL, in, args) == 0)
        call_ffi(b, &hnd, args);
    call.magic = 0;
    if (args != stack_args)
        free(args);
}

int c4snet_box_call(snet_handle *h, snet_record *in)
{
    const snet_net *n = snet_handle_net(h);
    c4snet_box *b = n->user;
    if (snet_unlikely(atomic_load_explicit(&b->checked, memory_order_relaxed) != n) &&
        !check_shape(h, b, n))
        return 0;
    if (snet_unlikely(b->direct == NULL)) {
        call_large(h, b, n, in);
        return 0;
    }
    c4snet_call call = {CALL_MAGIC, h, b, n};
    arg_slot args[DIRECT_LABELS];
    if (take_arguments(h, b, n->box_in.count ? &n->box_in.variants[0] : NULL, in, args) == 0)
        b->direct(b->fn, &call, args);
    call.magic = 0;
    return 0; /* failures were reported where they happened */
}

/* Put a label of an output into r, a reused input that inherits labels:
 * one of the same name is replaced (an output's own label wins over an
 * inherited one, as in a new record), else it is appended. */
static void put_label(snet_record *r, const snet_entry *e)
{
    long at = snet_record_find(r, e->kind, e->name);
    if (at >= 0) {
        snet_entry *old = &r->entries[at];
        if (old->kind == SNET_FIELD)
            snet_field_free(old->type, old->u.value);
        *old = *e;
    } else if (snet_record_append(r, e) != SNET_OK) {
        c4snet_fatal("C4SNetOut: out of memory");
    }
}

static __attribute__((cold, noinline)) _Noreturn void bad_handle(void)
{
    c4snet_fatal("C4SNetOut: the handle is not that of a running box (give the hnd the box "
                 "was called with, during the call)");
}

static __attribute__((cold, noinline)) void bad_variant(const c4snet_call *c, int variant)
{
    snet_box_fail(c->h, "C4SNetOut: output variant %d does not exist (the box has %zu, "
                  "numbered from 1); nothing emitted", variant, c->box->nout);
}

static __attribute__((cold, noinline)) void null_field(const c4snet_call *c, snet_record *r,
                                                       const snet_variant *v, size_t i,
                                                       int variant)
{
    snet_box_fail(c->h, "C4SNetOut: field '%s' (argument %zu of output variant %d) is NULL; "
                  "nothing emitted", v->labels[i].name, i + 1, variant);
    snet_record_free(r);
}

/* The labels of output variant v from the arguments into r: written in
 * place when r is empty and has the room (a reused input that inherits
 * nothing, a new record: the common case), else put one by one. The
 * index of the first NULL field, or SIZE_MAX. */
static size_t take_outputs(snet_record *r, const snet_variant *v, va_list *ap)
{
    size_t null_at = SIZE_MAX;
    if (snet_likely(r->count == 0 && v->count <= r->cap)) {
        snet_entry *e = r->entries;
        for (size_t i = 0; i < v->count; i++) {
            e->name = v->labels[i].name;
            e->kind = v->labels[i].kind;
            if (e->kind == SNET_FIELD) {
                e->type = &c4snet_field;
                if (!(e->u.value = va_arg(*ap, void *))) {
                    null_at = null_at == SIZE_MAX ? i : null_at;
                    continue;
                }
            } else {
                e->type = NULL;
                e->u.tag = va_arg(*ap, int);
            }
            e++;
        }
        r->count = (size_t)(e - r->entries);
        return null_at;
    }
    for (size_t i = 0; i < v->count; i++) {
        snet_entry e = {.name = v->labels[i].name, .kind = v->labels[i].kind};
        if (e.kind == SNET_FIELD) {
            e.type = &c4snet_field;
            if (!(e.u.value = va_arg(*ap, void *))) {
                null_at = null_at == SIZE_MAX ? i : null_at;
                continue;
            }
        } else {
            e.u.tag = va_arg(*ap, int);
        }
        put_label(r, &e);
    }
    return null_at;
}

void C4SNetOut(void *hnd, int variant, ...)
{
    c4snet_call *c = hnd;
    if (snet_unlikely(!c || c->magic != CALL_MAGIC))
        bad_handle();
    if (snet_unlikely(variant < 1 || (size_t)variant > c->box->nout)) {
        bad_variant(c, variant);
        return;
    }
    const snet_variant *v = &c->net->box_out.variants[variant - 1]; /* interned names */
    /* The first output is the input record: the box's arguments are taken
     * out of it, so it holds just the labels it inherits. */
    snet_record *r = snet_record_reuse(c->h);
    if (!r && !(r = snet_record_new()))
        c4snet_fatal("C4SNetOut: out of memory");
    va_list ap;
    va_start(ap, variant);
    size_t null_at = take_outputs(r, v, &ap);
    va_end(ap);
    if (snet_unlikely(null_at != SIZE_MAX)) {
        null_field(c, r, v, null_at, variant);
        return;
    }
    snet_out_declared(c->h, r); /* built from the declaration: nothing to check */
}
