/*
 * mon_make_fixture.c - writes a fixture trace for the command-line tests:
 *     mon_make_fixture kinds DIR     every event kind, two workers
 *     mon_make_fixture many DIR N    N events on each of three workers
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mon_fixture.h"

int main(int argc, char **argv)
{
    if (argc >= 3 && !strcmp(argv[1], "kinds"))
        return fixture_write_all_kinds(argv[2], 256) == 0 ? 0 : 1;
    if (argc >= 4 && !strcmp(argv[1], "many"))
        return fixture_write_many(argv[2], 3, (unsigned)strtoul(argv[3], NULL, 10), 0) == 0 ? 0 : 1;
    fprintf(stderr, "usage: mon_make_fixture kinds DIR | many DIR N\n");
    return 2;
}
