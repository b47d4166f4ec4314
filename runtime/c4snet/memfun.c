/*
 * memfun.c - the original runtime's allocation functions (memfun.h) for
 * box code that calls them: malloc underneath; failures end the program
 * with one line, as they did there.
 */
#include "memfun.h"

#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void SNetMemFailed(void)
{
    fprintf(stderr, "SNetMem: out of memory: %s\n", strerror(errno));
    exit(1);
}

void *SNetMemAlloc(size_t size)
{
    void *p = NULL;
    if (size && !(p = malloc(size)))
        SNetMemFailed();
    return p;
}

void *SNetMemCalloc(size_t n, size_t size)
{
    void *p = calloc(n, size);
    if (!p && n && size)
        SNetMemFailed();
    return p;
}

void *SNetMemResize(void *ptr, size_t size)
{
    if (size == 0) {
        free(ptr);
        return NULL;
    }
    void *p = realloc(ptr, size);
    if (!p)
        SNetMemFailed();
    return p;
}

void SNetMemFree(void *ptr) { free(ptr); }

size_t SNetMemSize(void *ptr) { return ptr ? malloc_usable_size(ptr) : 0; }

void SNetMemSizeFree(void *ptr, size_t size)
{
    (void)size;
    free(ptr);
}

void *SNetMemAlign(size_t size)
{
    size_t rounded = (size + LINE_SIZE - 1) / LINE_SIZE * LINE_SIZE;
    void *p = NULL;
    int rc = posix_memalign(&p, LINE_SIZE, rounded ? rounded : LINE_SIZE);
    if (rc != 0) {
        errno = rc;
        SNetMemFailed();
    }
    return p;
}

char *SNetStrDup(const char *str)
{
    char *p = strdup(str);
    if (!p)
        SNetMemFailed();
    return p;
}
