/*
 * fuzz_dag_text.c - fuzz target: the visualiser's DAG text format
 * (viz/dag_text.c), as `snetmon render --dag FILE` reads it, and the
 * collapsing of repeated structure it draws from (Graphviz is left out).
 */
#include "fuzz.h"

#include "viz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *in = fuzz_input_file(data, size);
    viz_dag *dag = NULL;
    char err[512];
    if (in && viz_dag_create(&dag, err, sizeof err) == VIZ_OK &&
        viz_read_dag_text(in, "fuzz.dag", dag, err, sizeof err) == VIZ_OK) {
        size_t nodes;
        viz_dag_collapsed_size(dag, &nodes);
    }
    viz_dag_destroy(dag);
    if (in)
        fclose(in);
    return 0;
}
