/*
 * replay_main.c - runs a fuzz target once on each input file, without
 * libFuzzer: the same LLVMFuzzerTestOneInput, linked with this main.
 *
 * Why: the fuzzers only build with clang, but the inputs they found must
 * keep passing in every build (gcc release, ASan+UBSan, ...). The CTest
 * tests fuzz_replay_NAME run this over corpus/NAME/ and regressions/NAME/.
 *
 * Usage: fuzz-replay-NAME FILE|DIR...   (directories: every regular file in
 * them, in name order). Each input sits in a buffer of exactly its size, so
 * a sanitizer sees any read past its end. Exits 1 if nothing was replayed.
 */
#include "fuzz.h"

#include <kit.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Optional in a target, as with libFuzzer. */
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t len;
    char *data;
    bool failed = kit_read_all(f, &data, &len) != 0;
    fclose(f);
    if (failed) {
        fprintf(stderr, "replay: %s: cannot read\n", path);
        free(data);
        return -1;
    }
    /* Exactly len bytes, so reading one past the end is an ASan error. */
    uint8_t *exact = malloc(len ? len : 1);
    if (!exact) {
        free(data);
        return -1;
    }
    memcpy(exact, data, len);
    free(data);
    fprintf(stderr, "replay: %s (%zu bytes)\n", path, len);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* Replays every regular file of dir; returns how many, or -1. */
static long replay_dir(const char *dir)
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, by_name);
    if (n < 0) {
        fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
        return -1;
    }
    long count = 0;
    for (int i = 0; i < n; i++) {
        char path[4096];
        struct stat st;
        int len = snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
        if (len < 0 || (size_t)len >= sizeof path) {
            fprintf(stderr, "replay: %s/%s: path too long\n", dir, names[i]->d_name);
            count = -1;
        }
        if (count >= 0 && names[i]->d_name[0] != '.' && stat(path, &st) == 0 &&
            S_ISREG(st.st_mode))
            count = replay_file(path) == 0 ? count + 1 : -1;
        free(names[i]);
    }
    free(names);
    return count;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
        return 2;
    }
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    long total = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
            return 1;
        }
        long n = S_ISDIR(st.st_mode) ? replay_dir(argv[i]) : replay_file(argv[i]) == 0 ? 1 : -1;
        if (n < 0)
            return 1;
        total += n;
    }
    if (total == 0) {
        fprintf(stderr, "replay: no input files\n");
        return 1;
    }
    printf("replayed %ld inputs\n", total);
    return 0;
}
