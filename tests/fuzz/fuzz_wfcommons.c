/*
 * fuzz_wfcommons.c - fuzz target: WfCommons workflow instances (WfFormat
 * JSON), as `snetmon metrics instance.json` reads them, and the analyses on
 * whatever it accepts.
 */
#include "fuzz.h"
#include "fuzz_wfb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *in = fuzz_input_file(data, size);
    wfb_graph *g = wfb_graph_new();
    wfb_error err;
    if (in && g && wfb_import_wfcommons(g, in, "fuzz.json", &err) == 0)
        fuzz_wfb_analyse(g);
    wfb_graph_free(g);
    if (in)
        fclose(in);
    return 0;
}
