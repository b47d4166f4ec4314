/*
 * box.c - C4SNet boxes: a C function with the signature the original
 * runtime's compiler generated for a box (void *f(void *hnd, the labels of
 * its input type in order)) run as a box of the builder API.
 *
 * The original compiled a wrapper per box. Here the call is made with
 * libffi from the declared signature, so any box library runs without a
 * compiler and boxes of any arity work; the ffi_cif is prepared once per
 * box when the net is built, and a call costs the label lookups plus
 * ffi_call. hnd points at a small struct on the caller's stack that
 * C4SNetOut reads: the runtime's handle and the box's output variants.
 *
 * Ownership follows the original: the box is given its input fields (taken
 * out of the input record, so no reference count moves) and frees them or
 * hands them to C4SNetOut; C4SNetOut's fields belong to the output record.
 * The input's tags are taken out too, so what stays in the input record is
 * exactly what flow inheritance adds to each output.
 */
#include "c4snet_internal.h"

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

struct c4snet_box {
    char *name;
    void (*fn)(void);
    c4snet_variant in;
    c4snet_variant *out;
    size_t nout;
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
} c4snet_call;

/* Arguments of up to this many labels live on the stack; more, on the heap. */
#define STACK_ARGS 16

typedef union arg_slot {
    void *field;
    int tag;
} arg_slot;

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

/* A field the box is given: C4SNet data as it is, native values converted. */
static c4snet_data_t *take_field(snet_handle *h, snet_record *in, const char *label)
{
    const snet_field_type *type = snet_record_field_type(in, label);
    void *value = snet_record_take_field(in, label);
    if (type == &c4snet_field)
        return value;
    c4snet_data_t *d = c4snet_from_native(type, value);
    if (type && type->free)
        type->free(value);
    if (!d)
        snet_box_fail(h, "field '%s' is of type '%s', which a C4SNet box cannot take "
                      "(only C4SNet data, int, double and string fields)", label,
                      type ? type->name : "?");
    return d;
}

/* Take the box's arguments out of in. -1 (reported; nothing left taken) if
 * a field cannot be given to the box. */
static int take_arguments(snet_handle *h, const c4snet_box *b, snet_record *in, arg_slot *args)
{
    for (size_t i = 0; i < b->in.count; i++) {
        const c4snet_label *l = &b->in.labels[i];
        if (l->kind == SNET_FIELD) {
            if (!(args[i].field = take_field(h, in, l->name))) {
                for (size_t j = 0; j < i; j++)
                    if (b->in.labels[j].kind == SNET_FIELD)
                        C4SNetFree(args[j].field);
                return -1;
            }
        } else {
            long v = l->kind == SNET_TAG ? snet_record_tag(in, l->name) : snet_record_btag(in, l->name);
            args[i].tag = (int)v;
            snet_record_remove(in, l->kind, l->name);
        }
    }
    return 0;
}

int c4snet_box_call(snet_handle *h, snet_record *in)
{
    const c4snet_box *b = snet_handle_user(h);
    c4snet_call call = {CALL_MAGIC, h, b};
    void *hnd = &call;
    arg_slot stack_args[STACK_ARGS];
    void *stack_argv[STACK_ARGS + 1];
    arg_slot *args = stack_args;
    void **argv = stack_argv;
    if (b->in.count > STACK_ARGS) {
        args = malloc(b->in.count * sizeof *args);
        argv = malloc((b->in.count + 1) * sizeof *argv);
        if (!args || !argv)
            c4snet_fatal("box '%s': out of memory for its arguments", b->name);
    }
    if (take_arguments(h, b, in, args) == 0) {
        argv[0] = &hnd;
        for (size_t i = 0; i < b->in.count; i++)
            argv[i + 1] = &args[i];
        ffi_arg result; /* the box returns hnd; nothing to do with it */
        ffi_call((ffi_cif *)&b->cif, b->fn, &result, argv);
    }
    call.magic = 0;
    if (args != stack_args) {
        free(args);
        free(argv);
    }
    return 0; /* failures were reported where they happened */
}

void C4SNetOut(void *hnd, int variant, ...)
{
    c4snet_call *c = hnd;
    if (!c || c->magic != CALL_MAGIC)
        c4snet_fatal("C4SNetOut: the handle is not that of a running box (give the hnd the box "
                     "was called with, during the call)");
    const c4snet_box *b = c->box;
    if (variant < 1 || (size_t)variant > b->nout) {
        snet_box_fail(c->h, "C4SNetOut: output variant %d does not exist (the box has %zu, "
                      "numbered from 1); nothing emitted", variant, b->nout);
        return;
    }
    const c4snet_variant *v = &b->out[variant - 1];
    snet_record *r = snet_record_new();
    if (!r)
        c4snet_fatal("C4SNetOut: out of memory");
    size_t null_field = SIZE_MAX;
    va_list ap;
    va_start(ap, variant);
    for (size_t i = 0; i < v->count; i++) {
        const c4snet_label *l = &v->labels[i];
        int rc;
        if (l->kind == SNET_FIELD) {
            void *p = va_arg(ap, void *);
            if (!p) {
                null_field = null_field == SIZE_MAX ? i : null_field;
                continue;
            }
            rc = snet_record_set_field(r, l->name, &c4snet_field, p);
        } else {
            int t = va_arg(ap, int);
            rc = l->kind == SNET_TAG ? snet_record_set_tag(r, l->name, t)
                                     : snet_record_set_btag(r, l->name, t);
        }
        if (rc != SNET_OK)
            c4snet_fatal("C4SNetOut: out of memory");
    }
    va_end(ap);
    if (null_field != SIZE_MAX) {
        snet_box_fail(c->h, "C4SNetOut: field '%s' (argument %zu of output variant %d) is NULL; "
                      "nothing emitted", v->labels[null_field].name, null_field + 1, variant);
        snet_record_free(r);
        return;
    }
    snet_out(c->h, r);
}
