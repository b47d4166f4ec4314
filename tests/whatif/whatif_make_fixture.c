/*
 * whatif_make_fixture.c - `whatif_make_fixture NAME DIR` writes one of the
 * hand-made traces of whatif_fixture.c for the command-line tests.
 */
#include "whatif_fixture.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: whatif_make_fixture pipeline|forkjoin|shared|backpressure|tworuns "
                        "DIR\n");
        return 2;
    }
    if (whatif_fixture_write(argv[1], argv[2]) != 0) {
        fprintf(stderr, "whatif_make_fixture: could not write '%s' into %s\n", argv[1], argv[2]);
        return 1;
    }
    return 0;
}
