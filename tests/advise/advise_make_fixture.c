/*
 * advise_make_fixture.c - `advise_make_fixture NAME DIR` writes one of the
 * hand-made traces of advise_fixture.c for the command-line tests.
 */
#include "advise_fixture.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: advise_make_fixture bad|good|heavy|tworuns DIR\n");
        return 2;
    }
    if (advise_fixture_write(argv[1], argv[2]) != 0) {
        fprintf(stderr, "advise_make_fixture: could not write '%s' into %s\n", argv[1], argv[2]);
        return 1;
    }
    return 0;
}
