/*
 * fuzz.h - what every fuzz target shares: the libFuzzer entry point and
 * small helpers to hand the input to readers that want a FILE or a string.
 *
 * A target is one file fuzz_NAME.c defining LLVMFuzzerTestOneInput; it is
 * built both as a libFuzzer program and as a plain replay program
 * (replay_main.c), so it must not depend on libFuzzer. Findings are crashes,
 * sanitizer reports, leaks, hangs, or a FUZZ_CHECK that fails: a property
 * the target checks on the result (e.g. "what we wrote we can read back").
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A property of the result that must hold for every input: abort (a
 * finding, with the input saved by libFuzzer) when it does not. */
#define FUZZ_CHECK(cond)                                                               \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "%s:%d: fuzz check failed: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                                   \
        }                                                                              \
    } while (0)

/* The input as a read-only stream (fmemopen cannot open an empty buffer). */
static inline FILE *fuzz_input_file(const uint8_t *data, size_t size)
{
    return size ? fmemopen((void *)data, size, "r") : fopen("/dev/null", "r");
}

/* The input as a NUL-terminated string (cut at its first NUL byte); free it. */
static inline char *fuzz_input_string(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (s) {
        memcpy(s, data, size);
        s[size] = '\0';
    }
    return s;
}

#endif /* FUZZ_H */
