/*
 * kit_vec.c - growing arrays by doubling (kit.h): one place for the
 * capacity arithmetic, its overflow check and the realloc that every
 * growing array in the tree needs; and reading a whole file into one, which
 * the readers of records, mappings and fuzz inputs all do.
 */
#include "kit.h"

#include <stdlib.h>
#include <string.h>

size_t kit_grow_capacity(size_t cap, size_t need, size_t size)
{
    if (need <= cap)
        return cap;
    if (size == 0)
        return 0;
    size_t n = cap ? cap : 16;
    while (n < need) {
        if (n > SIZE_MAX / 2)
            return 0;
        n *= 2;
    }
    return n > SIZE_MAX / size ? 0 : n;
}

/* The caller's pointer is read and written through memcpy: items_ptr may
 * point to any object pointer type, which a void ** would not allow. */
static int grow(void *items_ptr, size_t *cap, size_t need, size_t size, bool zero)
{
    if (need <= *cap)
        return 0;
    size_t n = kit_grow_capacity(*cap, need, size);
    if (n == 0)
        return -1;
    void *items;
    memcpy(&items, items_ptr, sizeof items);
    void *grown = realloc(items, n * size);
    if (!grown)
        return -1;
    if (zero)
        memset((char *)grown + *cap * size, 0, (n - *cap) * size);
    memcpy(items_ptr, &grown, sizeof grown);
    *cap = n;
    return 0;
}

int kit_grow(void *items_ptr, size_t *cap, size_t need, size_t size)
{
    return grow(items_ptr, cap, need, size, false);
}

int kit_grow_zeroed(void *items_ptr, size_t *cap, size_t need, size_t size)
{
    return grow(items_ptr, cap, need, size, true);
}

int kit_read_all(FILE *in, char **buf, size_t *len)
{
    char *data = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        /* Room for a 64 KiB read and the NUL. */
        if (kit_grow(&data, &cap, n + 65536 + 1, 1) != 0)
            break;
        size_t got = fread(data + n, 1, cap - n - 1, in);
        n += got;
        if (got == 0) {
            if (ferror(in))
                break;
            data[n] = '\0';
            *buf = data;
            *len = n;
            return 0;
        }
    }
    free(data);
    *buf = NULL;
    *len = 0;
    return -1;
}
