/*
 * oracle_make.c - `oracle_make DIR` writes the oracle trace (see
 * oracle_trace.c) for the command-line tests.
 */
#include "oracle_trace.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: oracle_make DIR\n");
        return 2;
    }
    return oracle_trace_write(argv[1]) == 0 ? 0 : 1;
}
