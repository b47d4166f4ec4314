/*
 * fuzz_wfb.h - the workflow-bridge half of several fuzz targets: after an
 * importer accepted an input, run on the graph everything `snetmon metrics`
 * and `snetmon wcp` would, so the fuzzer also reaches the analyses with the
 * odd graphs only damaged inputs produce.
 */
#ifndef FUZZ_WFB_H
#define FUZZ_WFB_H

#include "wfb.h"

/* Critical paths, metrics, every report format (into /dev/null), and the
 * round trip: the graph written as JSON Lines must import again, with the
 * same vertices and edges. Aborts (a finding) when that fails. */
void fuzz_wfb_analyse(const wfb_graph *g);

#endif /* FUZZ_WFB_H */
