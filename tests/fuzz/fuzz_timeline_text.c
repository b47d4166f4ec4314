/*
 * fuzz_timeline_text.c - fuzz target: the visualiser's text timeline format
 * (viz/timeline_text.c), as `snetmon render --input-format timeline FILE`
 * reads it into the utilisation model and the network graph. Drawing is
 * left out (cairo is slow and not ours); the binning it would draw from is
 * computed (viz_timeline_get_geometry finishes the model).
 */
#include "fuzz.h"

#include "viz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *in = fuzz_input_file(data, size);
    viz_timeline *tl = NULL;
    viz_net *net = NULL;
    /* A small image: fewer time bins to fold, the same code paths. */
    viz_timeline_config cfg = {.width = 160, .height = 120};
    char err[512];
    if (in && viz_timeline_create(&tl, &cfg, err, sizeof err) == VIZ_OK &&
        viz_net_create(&net, err, sizeof err) == VIZ_OK) {
        bool truncated = false;
        if (viz_read_timeline_text(in, "fuzz.tl", tl, net, &truncated, err, sizeof err) ==
            VIZ_OK) {
            viz_timeline_geometry geometry;
            viz_timeline_stats stats;
            viz_timeline_get_geometry(tl, &geometry);
            viz_timeline_get_stats(tl, &stats);
        }
    }
    viz_net_destroy(net);
    viz_timeline_destroy(tl);
    if (in)
        fclose(in);
    return 0;
}
