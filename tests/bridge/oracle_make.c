/*
 * oracle_make.c - `oracle_make DIR` writes the oracle trace (see
 * oracle_trace.c) for the command-line tests; `oracle_make DIR paths V`
 * the trace of oracle_paths_write's variant V (0 or 1).
 */
#include "oracle_trace.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[2], "paths") && (!strcmp(argv[3], "0") || !strcmp(argv[3], "1")))
        return oracle_paths_write(argv[1], argv[3][0] - '0') == 0 ? 0 : 1;
    if (argc != 2) {
        fprintf(stderr, "usage: oracle_make DIR [paths 0|1]\n");
        return 2;
    }
    return oracle_trace_write(argv[1]) == 0 ? 0 : 1;
}
