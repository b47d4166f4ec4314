/*
 * fuzz_jsonl.c - fuzz target: the bridge's JSON Lines workflow events
 * (docs/EVENTS.md), as `snetmon metrics FILE.jsonl` reads them, and the
 * analyses on whatever it accepts, without and with --partial: a file
 * accepted whole is the same with it, and only --partial attaches a loss
 * (a last line cut short).
 */
#include "fuzz.h"
#include "fuzz_wfb.h"

/* 0 when the file was accepted (*loss: with a loss attached), else -1. */
static int import_once(const uint8_t *data, size_t size, bool partial, bool *loss)
{
    FILE *in = fuzz_input_file(data, size);
    wfb_graph *g = wfb_graph_new();
    wfb_import_options opt = {.partial = partial};
    wfb_error err;
    int rc = in && g ? wfb_import_jsonl(g, in, "fuzz.jsonl", &opt, &err) : -1;
    *loss = rc == 0 && wfb_graph_input_loss(g) != NULL;
    if (rc == 0)
        fuzz_wfb_analyse(g);
    wfb_graph_free(g);
    if (in)
        fclose(in);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bool strict_loss, partial_loss;
    int strict = import_once(data, size, false, &strict_loss);
    int partial = import_once(data, size, true, &partial_loss);
    FUZZ_CHECK(!strict_loss);
    FUZZ_CHECK(strict != 0 || (partial == 0 && !partial_loss));
    return 0;
}
