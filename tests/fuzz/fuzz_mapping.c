/*
 * fuzz_mapping.c - fuzz target: mapping files (docs/MAPPING.md), read by
 * snet_mapping_parse as `--map FILE` reads them.
 *
 * Properties checked on every mapping accepted: it has at least one
 * placement unless the text has none, and looking up a few net paths (the
 * kinds a network names) gives a worker the file names or -1, never
 * anything else; snet_mapping_check without a network or worker count
 * accepts it.
 */
#include "fuzz.h"

#include "snet.h"

static const char *const probe_paths[] = {
    "S1:mc.png", "S2:I", "S2:I0:R0:S1:P0:mc.vcall", "S2:I-3:R17:S2:sync", "snet.in",
    "", "S1", "S1:S2:S3:S4:S5:S6:S7:S8:S9:S10:S11:S12:box",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    snet_mapping *m = NULL;
    char err[512];
    if (snet_mapping_parse((const char *)data, size, "fuzz.map", &m, err, sizeof err) != SNET_OK) {
        FUZZ_CHECK(m == NULL);
        FUZZ_CHECK(err[0] != '\0');
        return 0;
    }
    FUZZ_CHECK(m != NULL);
    int highest = -1;
    for (size_t i = 0; i < sizeof probe_paths / sizeof *probe_paths; i++) {
        int w = snet_mapping_lookup(m, probe_paths[i]);
        FUZZ_CHECK(w >= -1);
        if (w > highest)
            highest = w;
    }
    /* Without a network and a worker count nothing can be out of range. */
    FUZZ_CHECK(snet_mapping_check(m, NULL, 0, err, sizeof err) == SNET_OK);
    /* ... and one with more workers than any probe was given accepts it too,
     * when the file's workers are what the probes saw (one line). */
    if (highest >= 0 && snet_mapping_count(m) == 1)
        FUZZ_CHECK(snet_mapping_check(m, NULL, (unsigned)highest + 1, err, sizeof err) ==
                   SNET_OK);
    snet_mapping_free(m);
    return 0;
}
