/*
 * fuzz_jsonl.c - fuzz target: the bridge's JSON Lines workflow events
 * (docs/EVENTS.md), as `snetmon metrics FILE.jsonl` reads them, and the
 * analyses on whatever it accepts.
 */
#include "fuzz.h"
#include "fuzz_wfb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *in = fuzz_input_file(data, size);
    wfb_graph *g = wfb_graph_new();
    wfb_error err;
    if (in && g && wfb_import_jsonl(g, in, "fuzz.jsonl", NULL, &err) == 0)
        fuzz_wfb_analyse(g);
    wfb_graph_free(g);
    if (in)
        fclose(in);
    return 0;
}
