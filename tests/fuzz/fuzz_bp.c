/*
 * fuzz_bp.c - fuzz target: NetLogger best-practices logs, as `snetmon
 * metrics run.bp [--map FILE]` reads them, and the analyses on whatever it
 * accepts.
 *
 * An input holding the line FUZZ_BP_SEPARATOR is a mapping file (the part
 * before it, docs/EVENTS.md) and a log (the part after); any other input is
 * a log read with the built-in Pegasus mapping. Each log is read as
 * without and with --partial: a log accepted whole is the same with it,
 * and only --partial attaches a loss (a last line cut short).
 */
#include "fuzz.h"
#include "fuzz_files.h"
#include "fuzz_wfb.h"

#define FUZZ_BP_SEPARATOR "\nBPLOG\n"

/* 0 when the log was accepted (*loss: with a loss attached), else -1. */
static int import_once(const uint8_t *data, size_t size, const wfb_bp_mapping *map, bool partial,
                       bool *loss)
{
    FILE *in = fuzz_input_file(data, size);
    wfb_graph *g = wfb_graph_new();
    wfb_import_options opt = {.bp_mapping = map, .partial = partial};
    wfb_error err;
    int rc = in && g ? wfb_import_bp(g, in, "fuzz.bp", &opt, &err) : -1;
    *loss = rc == 0 && wfb_graph_input_loss(g) != NULL;
    if (rc == 0)
        fuzz_wfb_analyse(g);
    wfb_graph_free(g);
    if (in)
        fclose(in);
    return rc;
}

static void import_log(const uint8_t *data, size_t size, const wfb_bp_mapping *map)
{
    bool strict_loss, partial_loss;
    int strict = import_once(data, size, map, false, &strict_loss);
    int partial = import_once(data, size, map, true, &partial_loss);
    FUZZ_CHECK(!strict_loss);
    FUZZ_CHECK(strict != 0 || (partial == 0 && !partial_loss));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const size_t seplen = sizeof FUZZ_BP_SEPARATOR - 1;
    const uint8_t *cut = memmem(data, size, FUZZ_BP_SEPARATOR, seplen);
    if (!cut) {
        import_log(data, size, NULL);
        return 0;
    }
    wfb_error err;
    wfb_bp_mapping *map =
        wfb_bp_mapping_load(fuzz_write_file("mapping", data, (size_t)(cut - data)), &err);
    if (map) {
        const uint8_t *log = cut + seplen;
        import_log(log, (size_t)(data + size - log), map);
        wfb_bp_mapping_free(map);
    }
    return 0;
}
