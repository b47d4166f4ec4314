/*
 * map_lookup.c - `map_lookup MAP < lines`: checks a mapping file against
 * the placements it must give, through the runtime's own parser and
 * matcher (snet_mapping_load, snet_mapping_lookup), so that what
 * `snetmon advise` writes is read the way `--map` reads it.
 *
 * Each input line is "TASK-NAME WORKER". Every name must be matched by the
 * mapping, and its first matching line must give WORKER. Prints each
 * mismatch; exit 0 when every line agrees (and there was at least one),
 * 1 otherwise, 2 on usage or a mapping the runtime refuses.
 */
#include <snet.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: map_lookup MAP < 'NAME WORKER' lines\n");
        return 2;
    }
    snet_mapping *m;
    char err[512];
    if (snet_mapping_load(argv[1], &m, err, sizeof err) != SNET_OK) {
        fprintf(stderr, "map_lookup: %s\n", err);
        return 2;
    }
    char line[4096];
    long checked = 0, wrong = 0;
    while (fgets(line, sizeof line, stdin)) {
        char name[4096];
        int worker;
        if (sscanf(line, "%4095s %d", name, &worker) != 2)
            continue;
        int got = snet_mapping_lookup(m, name);
        checked++;
        if (got != worker) {
            printf("%s: the mapping gives %d, expected %d\n", name, got, worker);
            wrong++;
        }
    }
    snet_mapping_free(m);
    printf("map_lookup: %ld names checked, %ld wrong\n", checked, wrong);
    return checked > 0 && wrong == 0 ? 0 : 1;
}
