/*
 * memfun.h - the allocation functions of the original S-Net runtime, which
 * box sources written for it call (SNetMemAlloc, SNetNew, ...). They are
 * malloc and free underneath, so memory from either may be freed with the
 * other; an allocation that fails prints one line and ends the program
 * with status 1, as in the original, so callers need not check for NULL.
 */
#ifndef C4SNET_MEMFUN_H
#define C4SNET_MEMFUN_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The cache line SNetMemAlign aligns to. */
#ifndef LINE_SIZE
#define LINE_SIZE 64
#endif

/* Typed allocation: SNetNew(struct point), SNetNewN(10, int). */
#define SNetNew(type) ((type *)SNetMemAlloc(sizeof(type)))
#define SNetNewN(num, type) ((type *)SNetMemAlloc((num) * sizeof(type)))
#define SNetNewAlign(type) ((type *)SNetMemAlign(sizeof(type)))
#define SNetNewAlignN(num, type) ((type *)SNetMemAlign((num) * sizeof(type)))
#define SNetDelete(ptr) SNetMemFree(ptr)
#define SNetDeleteN(num, ptr) SNetMemFree(ptr)

/* Print that memory ran out and exit with status 1. */
void SNetMemFailed(void) __attribute__((noreturn));

/* s bytes (NULL for 0). */
void *SNetMemAlloc(size_t s) __attribute__((malloc, alloc_size(1)));
/* n zeroed elements of s bytes. */
void *SNetMemCalloc(size_t n, size_t s) __attribute__((malloc, alloc_size(1, 2)));
/* ptr grown or shrunk to size bytes (size 0 frees it and gives NULL). */
void *SNetMemResize(void *ptr, size_t size) __attribute__((alloc_size(2)));
void SNetMemFree(void *ptr);
/* The usable size of an allocation. */
size_t SNetMemSize(void *ptr);
/* Free an allocation of size bytes. */
void SNetMemSizeFree(void *ptr, size_t size);
/* size bytes aligned to LINE_SIZE (free with SNetMemFree). */
void *SNetMemAlign(size_t size) __attribute__((malloc, alloc_size(1)));
/* A copy of str. */
char *SNetStrDup(const char *str) __attribute__((malloc));

#ifdef __cplusplus
}
#endif

#endif /* C4SNET_MEMFUN_H */
