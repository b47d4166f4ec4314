/*
 * inherit.c - flow inheritance: the labels of an input record that an
 * entity did not consume pass into each of its output records, so boxes
 * and filters can be written against only the labels they care about.
 * Binding tags never get here: a record only matches a type that names its
 * binding tags, so they are always consumed.
 */
#include "snet_internal.h"

int snet_inherit(snet_record *out, const snet_record *in, const snet_variant *consumed)
{
    for (size_t i = 0; i < in->count; i++) {
        const snet_entry *e = &in->entries[i];
        if (consumed && snet_variant_has(consumed, e->kind, e->name))
            continue;
        if (snet_record_find(out, e->kind, e->name) >= 0)
            continue;
        snet_entry copy = *e;
        if (e->kind == SNET_FIELD)
            copy.u.value = snet_field_copy(e->type, e->u.value);
        if (snet_record_append(out, &copy) != SNET_OK) {
            if (e->kind == SNET_FIELD)
                snet_field_free(e->type, copy.u.value);
            return SNET_ENOMEM;
        }
    }
    return SNET_OK;
}
